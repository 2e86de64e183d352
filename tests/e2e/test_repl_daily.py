"""Day-one habits in the REPL on a real pseudo-terminal: command output as it runs, the edit
diff, /undo, "always allow" and where queued lines appear."""

from __future__ import annotations

import json
import re
import threading
import time
import tomllib

import pyte
import pytest
from support.project import recorded
from test_repl_pty import PROMPT, session_events

pytestmark = pytest.mark.timing   # a pseudo-terminal: what appears, and when


class Screen:
    """What the person sees: the pty's bytes played into a pyte terminal screen."""

    def __init__(self, term, rows: int = 30, cols: int = 110):
        self.screen = pyte.HistoryScreen(cols, rows, history=2000)
        self.stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()
        with term.cond:
            self.stream.feed(bytes(term.raw))
            term.listeners.append(self._feed)

    def _feed(self, _at: float, data: bytes) -> None:
        with self.lock:
            self.stream.feed(data)

    def text(self) -> str:
        with self.lock:
            cols = self.screen.columns
            scrolled = ["".join(line[x].data for x in range(cols)).rstrip()
                        for line in self.screen.history.top]
            return "\n".join(scrolled + [line.rstrip() for line in self.screen.display])

    def wait(self, pattern: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.text()
            if re.search(pattern, shown):
                return shown
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} never on screen:\n{self.text()}")


def test_shell_output_streams_as_a_tail_then_folds_into_one_line(spawn, project):
    command = "for i in 1 2 3 4 5 6 7 8; do echo out-line-$i; sleep 0.25; done; sleep 1.5"
    term = spawn([{"tool_calls": [{"name": "shell", "input": {"command": command}}]},
                  {"text": "Counted.\n"}])
    screen = Screen(term)
    term.line("count")
    shown = screen.wait(r"│ out-line-8")             # the tail, while the command still runs
    tail = [line.strip() for line in shown.splitlines() if "│" in line]
    assert tail == [f"│ out-line-{n}" for n in range(4, 9)]   # the last five, dimmed
    assert re.search(r"shell \$ for i.* \d+s", shown)          # with its elapsed time
    term.expect(r"✓ shell \$ for i in .*  [0-9.]+s · 8 lines ·\s*Ctrl-O shows them")
    term.expect("Counted.")
    term.expect(PROMPT)
    after = screen.wait(r"✓ · ")
    term.send("\x0f")                               # Ctrl-O: the whole output, above
    term.expect(r"── shell \$ for i")
    term.expect("out-line-1")
    term.expect("out-line-8")
    term.send("\x04")
    assert term.wait_exit() == 0
    assert "│ out-line" not in after                  # the tail is gone once it finished
    assert "⠋" not in after.splitlines()[-1] and "running" not in after  # no spinner idle
    logged = json.dumps(session_events(project))
    assert "ToolOutput" not in logged                 # progress is never logged


def test_an_edit_preview_and_undo_in_the_repl(spawn, project):
    (project / "code.py").write_text("".join(f"n{i} = {i}\n" for i in range(1, 21)))
    term = spawn([
        {"tool_calls": [{"name": "edit", "input": {"path": "code.py", "old_string": "n12 = 12\n",
                                                   "new_string": "n12 = 'twelve'\n"}}]},
        {"text": "Edited.\n"}, {"text": "Understood.\n"}])
    term.line("change n12")
    term.expect(r"✎ edit code.py")
    term.expect(r"@@ -9,7 \+9,7 @@")
    term.expect(r"n9 = 9\s+n10 = 10\s+n11 = 11\s+-n12 = 12\s+\+n12 = 'twelve'\s+n13 = 13")
    term.expect("Edited.")
    term.expect(PROMPT)
    term.line("/diff")
    term.expect(r"\+\+\+ b/code.py")
    term.line("/undo")
    term.expect(r"undid 1 turn:\s+turn \S+ of session \S+ \([-0-9: ]+\):\s+restored code.py")
    assert "n12 = 12\n" in (project / "code.py").read_text()
    term.line("thanks")
    term.expect("Understood.")
    term.send("\x04")
    assert term.wait_exit() == 0
    told = recorded(spawn.record)[-1]["messages"][-1]["content"]
    assert told[0]["text"] == "thanks"
    assert "ran /undo" in told[1]["text"] and "restored code.py" in told[1]["text"]


def test_always_allow_saves_a_rule_for_that_command_only(spawn, project, tmp_path):
    term = spawn([
        {"tool_calls": [{"name": "shell", "input": {"command": "git status --short"}}]},
        {"tool_calls": [{"name": "shell", "input": {"command": "git status"}}]},
        {"tool_calls": [{"name": "shell", "input": {"command": "echo other"}}]},
        {"text": "Done.\n"}], mode="ask")
    term.line("check")
    term.expect(r"a always allow `git status\*` \(saved to your config\)")
    term.send("a")
    term.expect(r"saved allow rule `shell\(git status\*\)`")
    term.expect(r"\? shell: \$ echo other")         # git status was not asked again
    term.send("n")
    term.expect("Done.")
    term.send("\x04")
    assert term.wait_exit() == 0
    config = tomllib.loads((tmp_path / "home" / "config.toml").read_text())
    assert config["permissions"]["allow"] == ["shell(git status*)"]
    asked = [e for e in session_events(project) if e.get("type") == "ToolFinished"]
    assert [e["ok"] for e in asked] == [False, False, False] or len(asked) == 3


def test_a_line_queued_mid_stream_is_echoed_at_the_pause_not_inside_the_list(spawn, project):
    items = "".join(f"- item {i}\n" for i in range(1, 13))
    term = spawn([
        {"text": "Here is the list:\n" + items, "delay_s": 3.0,
         "tool_calls": [{"name": "shell", "input": {"command": "true"}}]},
        {"text": "Added tests too.\n"}])
    screen = Screen(term)
    term.line("list things")
    term.expect("item 3")
    term.line("also add tests")
    term.expect(r"› also add tests \(queued\)")       # shown above the status line meanwhile
    term.expect("item 12")
    term.expect(r"› also add tests\s+↳ 1 queued line\(s\) delivered")
    term.expect("Added tests too.")
    shown = screen.wait(r"Added tests too\.")
    term.send("\x04")
    assert term.wait_exit() == 0
    rows = shown.splitlines()
    first = next(i for i, row in enumerate(rows) if row.strip() == "• item 1")
    last = next(i for i, row in enumerate(rows) if "item 12" in row)
    assert [r.strip() for r in rows[first:last + 1]] == [f"• item {i}" for i in range(1, 13)]
    echo = next(i for i, row in enumerate(rows) if row.strip() == "› also add tests")
    assert echo > last and "↳ 1 queued line(s) delivered" in rows[echo + 1]


def test_steps_of_a_turn_are_apart_by_one_blank_line(spawn, project):
    term = spawn([{"text": "Reading it.\n", "tool_calls": [{"name": "read",
                                                             "input": {"path": "notes.txt"}}]},
                  {"tool_calls": [{"name": "glob", "input": {"pattern": "*.txt"}}]},
                  {"text": "It says alpha.\n"}])
    screen = Screen(term)
    term.line("what is in notes")
    term.expect("It says alpha.")
    term.expect(PROMPT)
    shown = screen.wait(r"✓ · ").splitlines()
    term.send("\x04")
    assert term.wait_exit() == 0
    start = next(i for i, line in enumerate(shown) if line.strip() == "Reading it.")
    end = next(i for i, line in enumerate(shown) if line.strip() == "It says alpha.")
    rows = [re.sub(r"\s+[0-9.]+s$", "", line.strip()) for line in shown[start:end + 2]]
    # one model call each: its text and its tool lines together, a blank line before the next
    assert rows == ["Reading it.", "✓ read notes.txt", "", "✓ glob *.txt", "",
                    "It says alpha.", rows[-1]]
    assert rows[-1].startswith("✓ · ")               # the turn's line follows the last step
