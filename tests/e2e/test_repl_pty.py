"""The REPL end to end on a real pseudo-terminal, with the scripted provider.

``Terminal`` plays the part of a terminal emulator just enough for prompt_toolkit: it
answers cursor-position requests (so the status line is drawn, as in a real terminal), keeps
everything the REPL wrote, and offers ``expect`` on the text with escape sequences removed.
What the model was sent is read from ``EDGAR_SCRIPTED_RECORD``; what crossed the bus is
read from the session log (``.edgar/sessions/<id>.jsonl``), the same file ``-c`` restores.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import time
from pathlib import Path

import ptyprocess  # pexpect's pty layer (a test dependency): spawn, resize, kill
import pytest
from support.processes import alive, gone, sleeper
from support.project import edgar_env, make_project, recorded, run_edgar, state_of, write_script

pytestmark = pytest.mark.timing   # a pseudo-terminal: what appears, and when

ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                  r"|\x1b[()][0-9A-Za-z]"
                  r"|\x1b[=>78DEHM]|[\r\x07\x08]")
TIMEOUT = 20.0


class Terminal:
    """A child process on a pty, its output pumped by a thread, CPR requests answered."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str],
                 rows: int = 30, cols: int = 110):
        self.rows = rows
        self.proc = ptyprocess.PtyProcess.spawn(argv, cwd=str(cwd), env=env,
                                                dimensions=(rows, cols))
        self.raw = bytearray()
        self.cond = threading.Condition()
        self.pos = 0              # where the next expect starts, in the plain text
        self.closed = False
        self.listeners: list = []   # called as listener(time.perf_counter(), bytes) per read
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        while True:
            try:
                data = os.read(self.proc.fd, 65536)
            except OSError:
                data = b""
            for listener in self.listeners:
                listener(time.perf_counter(), data)
            if b"\x1b[6n" in data:     # where is the cursor? near the top: room below
                with contextlib.suppress(OSError):
                    os.write(self.proc.fd, b"\x1b[1;1R")
            with self.cond:
                if not data:
                    self.closed = True
                    self.cond.notify_all()
                    return
                self.raw.extend(data)
                self.cond.notify_all()

    @property
    def text(self) -> str:
        with self.cond:
            return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def send(self, keys: str) -> None:
        os.write(self.proc.fd, keys.encode())

    def line(self, text: str) -> None:
        """Type ``text`` and press Enter (pasting is not typing: send key by key)."""
        for ch in text:
            self.send(ch)
        self.send("\r")

    def expect(self, pattern: str, timeout: float = TIMEOUT) -> re.Match:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                text = ANSI.sub("", self.raw.decode("utf-8", "replace"))
                match = regex.search(text, self.pos)
                if match:
                    self.pos = match.end()
                    return match
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(f"{pattern!r} not seen; output since the last match:\n"
                                         + self.screen_tail(self.pos))
                self.cond.wait(min(left, 0.1))

    def screen_tail(self, start: int = 0, lines: int = 40) -> str:
        """The output since ``start``, blank lines and spinner-only lines dropped."""
        kept = [line for line in self.text[start:].splitlines() if line.strip(" ⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")]
        return "\n".join(kept[-lines:])

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.isalive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.proc.isalive():
            self.proc.terminate(force=True)
            raise AssertionError("the REPL did not exit:\n" + self.screen_tail())
        self.thread.join(2)
        return self.proc.exitstatus if self.proc.exitstatus is not None else -1

    def kill(self) -> None:
        if self.proc.isalive():
            self.proc.terminate(force=True)


PROMPT = "› "
# a GitHub token: durable files must never hold it
SECRET = "ghp_R8fK2mQ9xLp3ZvT7wR1nB5cY6dH0jE4sA2uV"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj", {"notes.txt": "alpha\n"})


@pytest.fixture
def spawn(tmp_path: Path, project: Path):
    started: list[Terminal] = []
    record = tmp_path / "requests.jsonl"

    def start(lines: list[dict], *flags: str, mode: str = "yes") -> Terminal:
        script = write_script(tmp_path / f"script{len(started)}.jsonl", lines)
        env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record), TERM="xterm")
        term = Terminal([sys.executable, "-m", "edgar", "--model", f"scripted:{script}",
                         "--permission-mode", mode, *flags], project, env)
        started.append(term)
        term.expect(PROMPT)
        return term

    start.record = record
    yield start
    for term in started:
        term.kill()


def session_events(project: Path) -> list[dict]:
    logs = sorted((state_of(project, project.parent / "home") / "sessions").glob("*.jsonl"),
                  key=lambda p: p.stat().st_mtime)
    out = []
    for log in logs:
        out += [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return out


def test_a_prompt_streams_its_answer_and_ctrl_d_exits(spawn, project):
    term = spawn([{"text": "First line of the answer.\nSecond **line**.\n", "delay_s": 0.3,
                   "usage": {"input_tokens": 30, "output_tokens": 9}}])
    term.line(f"hello there {SECRET}")
    term.expect("First line of the answer.")
    term.expect("Second line.")
    term.expect(r"✓ · [0-9.]+s · 39 tokens")
    term.expect(PROMPT)
    term.send("\x04")
    term.expect("edgar -c continues it")
    assert term.wait_exit() == 0
    sent = recorded(spawn.record)
    assert sent[0]["messages"][-1]["content"][0]["text"] == f"hello there {SECRET}"
    typed = [e for e in session_events(project) if e.get("type") == "PromptTyped"]
    assert [(e["text"], e["queued"]) for e in typed] == [
        ("hello there [REDACTED:github-pat]", False)]
    history = (state_of(project, project.parent / "home") / "input_history").read_text()
    assert "+hello there [REDACTED:github-pat]" in history and SECRET not in history
    assert colours(bytes(term.raw)) == set()      # NO_COLOR=1 is set by edgar_env


def colours(raw: bytes) -> set[str]:
    """SGR parameters that set a foreground or background colour."""
    found = set()
    for params in re.findall(rb"\x1b\[([0-9;]*)m", raw):
        for p in params.decode().split(";"):
            if p.isdigit() and (30 <= int(p) <= 49 and int(p) not in (39, 49)
                                or 90 <= int(p) <= 107):
                found.add(p)
    return found


def test_two_lines_typed_during_a_tool_reach_the_model_as_one_message(spawn, project):
    term = spawn([
        {"text": "Let me wait.\n",
         "tool_calls": [{"name": "shell", "input": {"command": "sleep 1.5"}}]},
        {"text": "Both noted.\n"},
    ])
    term.line("start the job")
    term.expect(r"shell \$ sleep 1\.5 \d+s")        # the status line: the tool is running
    term.line("also check the docs")
    term.line("and use mermaid")
    term.expect("2 queued")                         # the status line counts them
    term.expect(r"2 queued line\(s\) delivered")
    term.expect("Both noted.")
    term.expect(PROMPT)
    term.send("\x04")
    assert term.wait_exit() == 0
    sent = recorded(spawn.record)
    assert len(sent) == 2
    last = sent[1]["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_result", "text"]
    assert last["content"][1]["text"] == "also check the docs\nand use mermaid"
    typed = [(e["text"], e["queued"]) for e in session_events(project)
             if e.get("type") == "PromptTyped"]
    assert typed == [("start the job", False), ("also check the docs", True),
                     ("and use mermaid", True)]


@pytest.mark.parametrize("key", ["\x03", "\x1b"], ids=["ctrl-c", "esc"])
def test_an_interrupt_mid_stream_keeps_the_partial_text_and_returns_to_the_prompt(
        spawn, project, key):
    words = "".join(f"word{i} " + ("\n" if i % 8 == 7 else "") for i in range(400))
    term = spawn([{"text": words, "delay_s": 8.0}, {"text": "Fresh answer.\n"}])
    term.line("write a lot")
    term.expect("word9 ")                            # mid-stream
    term.send(key)
    term.expect("interrupted")
    term.expect(PROMPT)
    term.line("go on")
    term.expect("Fresh answer.")
    term.send("\x04")
    assert term.wait_exit() == 0
    events = session_events(project)
    outcomes = [e["outcome"] for e in events if e.get("type") == "TurnFinished"]
    assert outcomes == ["cancelled", "ok"]
    sent = recorded(spawn.record)
    kept = sent[1]["messages"][1]                    # the partial answer, kept in history
    assert kept["role"] == "assistant" and kept["content"][0]["text"].startswith("word0 word1")
    assert "word399" not in kept["content"][0]["text"]
    shown = kept["content"][0]["text"].split()[-1]
    assert shown in term.text                        # ... and on screen, to the last word


def test_ctrl_c_during_a_shell_tool_kills_its_process_group(spawn, project):
    # the command runs in a PID namespace: find its processes by a marker, not by $$
    marker = sleeper(30)
    command = f"setsid {marker} & {marker} & echo up > started.txt; wait"
    term = spawn([{"tool_calls": [{"name": "shell", "input": {"command": command}}]},
                  {"text": "never sent"}])
    term.line("run the long job")
    deadline = time.monotonic() + TIMEOUT
    while not (project / "started.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive(marker)
    term.send("\x03")
    term.expect(r"✗ shell .* — cancelled")
    term.expect("interrupted")
    assert gone(marker), "the shell's processes survived the interrupt"
    term.send("\x04")
    assert term.wait_exit() == 0
    assert len(recorded(spawn.record)) == 1


def test_continue_restores_the_conversation(spawn, project):
    term = spawn([{"text": "Noted: the number is 42.\n"}])
    term.line("remember the number 42")
    term.expect("Noted: the number is 42.")
    term.expect(PROMPT)
    term.send("/exit\r")
    assert term.wait_exit() == 0
    log = next((state_of(project, project.parent / "home") / "sessions").glob("*.jsonl"))
    with open(log, "a") as handle:                   # a crash mid-write: a torn last line
        handle.write('{"kind": "message", "role": "assis')
    again = spawn([{"text": "It was 42.\n"}], "-c")
    assert "skipped 1 damaged line(s)" in again.text
    assert re.search(r"resumed session \w+ \(2 messages\)", again.text)
    again.line("what was the number?")
    again.expect("It was 42.")
    again.send("\x04")
    assert again.wait_exit() == 0
    listed = run_edgar(["-r"], project, edgar_env(project.parent / "home"))
    assert log.stem in listed.stdout and "remember the number 42" in listed.stdout
    sent = recorded(spawn.record)[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[0]["content"][0]["text"] == "remember the number 42"
    assert sent[1]["content"][0]["text"] == "Noted: the number is 42.\n"


def test_ask_mode_confirms_inline_and_ctrl_c_twice_exits(spawn, project):
    term = spawn([
        {"tool_calls": [{"name": "shell", "input": {"command": "echo confirmed-run"}}]},
        {"text": "Ran it.\n"},
    ], mode="ask")
    term.line("run echo")
    term.expect(r"\? shell: \$ echo confirmed-run")
    term.expect(r"allow shell\? \[y\]es \[n\]o \[a\]lways")
    term.send("y")
    term.expect("→ yes")
    term.expect(r"✓ shell \$ echo confirmed-run")
    term.expect("Ran it.")
    term.expect(PROMPT)
    term.send("\x03")
    term.expect("Ctrl-C again to exit")
    term.send("\x03")
    assert term.wait_exit() == 0
    sent = recorded(spawn.record)
    assert "confirmed-run" in json.dumps(sent[1]["messages"][-1])
