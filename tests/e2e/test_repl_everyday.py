"""Issue 25's everyday tools in the real REPL on a pseudo-terminal (items 1–6 and 8; item 7 is in
``test_commit_message_model.py``): web_fetch against a loopback server, an image and a capped
file attached, what is configured reaching the request and a retired model said, plan mode
approved with ``y``, the todo checklist above the prompt, ``!cmd`` and ``# text``."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from support.project import edgar_env, recorded, write_script
from support.sse_server import SSEServer, stream
from test_repl_pty import PROMPT, Terminal

pytestmark = pytest.mark.timing
LEARNING = importlib.util.find_spec("edgar.learning") is not None

IMAGES = Path(__file__).resolve().parents[1] / "data" / "images"
PAGE = (b"<!doctype html><html><head><title>Notes</title><script>steal()</script></head>"
        b"<body><h1>Release 2.0</h1><p>Python 3.8 is no longer supported.</p></body></html>")


class _Page(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)


@pytest.fixture
def site():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def record(tmp_path: Path) -> Path:
    return tmp_path / "requests.jsonl"


@pytest.fixture
def start(tmp_path: Path, project: Path, record: Path):
    """A REPL on a pty with the scripted model (the user dir's config.toml as given)."""
    started: list[Terminal] = []

    def go(lines: list[dict], *flags: str, config: str = "", mode: str = "yes",
           model: str | None = None, **env: str) -> Terminal:
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        if config:
            (home / "config.toml").write_text(config)
        script = write_script(tmp_path / f"script{len(started)}.jsonl", lines)
        term = Terminal([sys.executable, "-m", "edgar", "--model",
                         model or f"scripted:{script}", "--permission-mode", mode, *flags],
                        project, edgar_env(home, EDGAR_SCRIPTED_RECORD=str(record),
                                           TERM="xterm", **env))
        started.append(term)
        term.expect(PROMPT)
        return term

    yield go
    for term in started:
        term.kill()


def leave(term: Terminal) -> None:
    term.expect(PROMPT)
    term.line("/exit")
    assert term.wait_exit() == 0


def test_item1_web_fetch_in_the_repl_reads_a_page_as_markdown(start, site, record):
    term = start([{"tool_calls": [{"name": "web_fetch", "input": {"url": site + "/notes"}}]},
                  {"text": "It dropped Python 3.8."}],
                 config='[web]\nallow_hosts = ["127.0.0.1"]\n')
    term.line("what changed in 2.0?")
    term.expect(r"web_fetch")
    term.expect(r"It dropped Python 3\.8\.")
    leave(term)
    result = recorded(record)[1]["messages"][-1]["content"][0]
    assert not result["is_error"] and "# Release 2.0" in result["content"]
    assert "steal()" not in result["content"]


def test_item2_an_image_typed_or_pasted_in_the_repl_is_an_image_block(start, project, record,
                                                                       tmp_path):
    (project / "shot.png").write_bytes((IMAGES / "screenshot.png").read_bytes())
    desktop = tmp_path / "Desktop"
    desktop.mkdir()
    pasted = desktop / "photo.jpg"
    pasted.write_bytes((IMAGES / "photo.jpg").read_bytes())
    term = start([{"text": "A terminal."}, {"text": "A photo."}])
    term.line("describe @shot.png")
    term.expect(r"A terminal\.")
    term.expect(PROMPT)
    term.line(f"and this {pasted}")
    term.expect(r"A photo\.")
    leave(term)
    first, second = recorded(record)
    kinds = [c["type"] for c in first["messages"][0]["content"]]
    assert "image" in kinds and "\\x89PNG" not in json.dumps(first["messages"])
    assert "image" in [c["type"] for c in second["messages"][-1]["content"]]


def test_item3_a_big_file_is_capped_and_a_binary_one_refused_in_the_repl(start, project,
                                                                         record):
    (project / "big.log").write_text(("z" * 79 + "\n") * 40_000)       # 3.2 MB
    (project / "blob.bin").write_bytes(b"\x7fELF\x00\x00" * 50)
    term = start([{"text": "Summarised."}])
    term.line("what is @blob.bin")
    term.expect(r"@blob\.bin: a binary file")
    term.expect(PROMPT)
    term.line("summarise @big.log")
    term.expect(r"@big\.log is 3,200,000 bytes: only its first 256 KB")
    term.expect(r"Summarised\.")
    leave(term)
    sent, = recorded(record)                 # the refused line sent nothing
    assert len(json.dumps(sent)) < 400_000


def test_item4_configured_max_tokens_is_sent_and_a_retired_model_is_said(start, tmp_path):
    with SSEServer() as server:
        server.anthropic(stream("anthropic_text"))
        term = start([], model="claude-sonnet-4-5",
                     config="[providers.anthropic]\nmax_tokens = 32000\n",
                     ANTHROPIC_API_KEY="sk-ant-test-0123456789abcdef",
                     ANTHROPIC_BASE_URL=server.url)
        term.line("hi")
        term.expect(r"tokens")
        leave(term)
        assert "claude-sonnet-4-5 reached its end of life on 2026-11-30" in term.text, term.text
        body, = server.bodies()
        assert body["max_tokens"] == 32000


def test_item5_plan_mode_in_the_repl_y_carries_it_out(start, project, record):
    (project / "app.py").write_text("print('hi')\n")
    plan = "1. Add greet() to app.py"
    term = start([
        {"tool_calls": [{"name": "write", "input": {"path": "app.py", "content": "x"}}]},
        {"tool_calls": [{"name": "exit_plan_mode", "input": {"plan": plan}}]},
        {"tool_calls": [{"name": "write", "input": {"path": "app.py",
                                                    "content": "def greet(): ...\n"}}]},
        {"text": "Done."}])
    term.line("/plan")
    term.expect(PROMPT)
    term.line("add a greeting")
    term.expect(r"carry out this plan\?")
    assert (project / "app.py").read_text() == "print('hi')\n"     # plan mode wrote nothing
    term.send("y")
    term.expect(r"Done\.")
    leave(term)
    assert (project / "app.py").read_text() == "def greet(): ...\n"
    assert "1. Add greet() to app.py" in term.text


def test_item6_the_todo_checklist_is_shown_above_the_prompt(start, record):
    todos = [{"content": "Run the tests", "status": "completed", "activeForm": "Running"},
             {"content": "Fix the parser", "status": "in_progress",
              "activeForm": "Fixing the parser"},
             {"content": "Update the changelog", "status": "pending", "activeForm": "Updating"}]
    term = start([{"tool_calls": [{"name": "todo_write", "input": {"todos": todos}}]},
                  {"text": "Listed."}])
    term.line("plan the work")
    term.expect(r"Listed\.")
    term.expect(r"☑ Run the tests")
    term.expect(r"◐ Fixing the parser")
    term.expect(r"☐ Update the changelog")
    term.line("/exit")
    assert term.wait_exit() == 0


def test_item8_bang_runs_without_a_model_call_and_hash_remembers(start, project, record):
    term = start([{"text": "Seen it."}])
    term.line("!echo from-the-shell")
    term.expect(r"from-the-shell")
    term.expect(PROMPT)
    assert recorded(record) == []                                 # no model call
    term.line("# use black for formatting")
    # without the learning package (.ci/run's second pass) nothing can be remembered, and it says so
    term.expect(r"remembered: use black for formatting" if LEARNING
                else r"learning is not installed: nothing was saved")
    term.expect(PROMPT)
    assert recorded(record) == []
    term.line("what did it print?")
    term.expect(r"Seen it\.")
    leave(term)
    sent, = recorded(record)
    assert "from-the-shell" in json.dumps(sent["messages"])
    assert ("use black for formatting" in json.dumps(sent["system"])) is LEARNING
