"""MCP servers as tools against real servers: the SDK's own ``MCPServer`` over stdio and
streamable HTTP (tests/support/mcp_server.py), and the reference ``mcp-server-time``."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.project import REPO, write_script

from edgar.cli.setup import build
from edgar.config import ContextSettings, McpServerSettings, McpSettings, Settings
from edgar.config.trust import trust
from edgar.core.loop import run_turn
from edgar.events import Event, Notice, ToolFinished, ToolProposed
from edgar.providers.scripted import ScriptedProvider

SERVER = str(REPO / "tests" / "support" / "mcp_server.py")


def stdio(*extra: str, env: dict[str, str] | None = None) -> McpServerSettings:
    return McpServerSettings(command=sys.executable, args=[SERVER, *extra], env=env or {})


def app_for(project: Path, lines, servers=None, mode="yes", confirm=None, **settings):
    script = write_script(project / f"script-{len(ScriptedProvider._shared)}.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    mcp = settings.pop("mcp", None) or McpSettings(servers=servers or {}, startup_timeout=20)
    app = build(project, Settings(model=f"scripted:{script}", permission_mode=mode, mcp=mcp,
                                  **settings), confirm=confirm, learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def session_turns(app, *prompts: str):
    async def go():
        return [await run_turn(app.session, p) for p in prompts]
    return asyncio.run(app.running(go()))


def results(app):
    return [b for m in app.session.messages if m.role == "user" for b in m.content
            if getattr(b, "tool_use_id", None)]


def notices(events):
    return [e.message for e in events if isinstance(e, Notice)]


def call(tool_name, **args):
    return {"name": tool_name, "input": args}


def test_stdio_server_tools_run_through_the_harness_with_the_same_events(project, monkeypatch):
    monkeypatch.setenv("SECRET_API_TOKEN", "sk-do-not-pass")
    monkeypatch.setenv("GIVEN", "passed-on")
    app, events = app_for(project, [
        {"tool_calls": [call("mcp__t__echo", text="hi", times=3), call("mcp__t__fail", why="x"),
                        call("mcp__t__picture"),
                        call("mcp__t__env_report", name="SECRET_API_TOKEN"),
                        call("mcp__t__env_report", name="NAMED")]},
        {"text": "done"},
    ], servers={"t": stdio(env={"NAMED": "${GIVEN}"})})
    [result] = session_turns(app, "go")
    assert result.outcome == "ok"
    echo, fail, picture, secret, named = results(app)
    assert echo.content == "hihihi" and not echo.is_error
    assert fail.is_error and "fail" in fail.content
    # the real PNG reaches the model as an image; the broken one is named, never sent as text
    assert [(i.media_type, i.width, i.height) for i in picture.images] == [("image/png", 120, 80)]
    assert "not a readable image" in picture.content and "a tiny picture" in picture.content
    assert secret.content == "<unset>"           # edgar's secrets never reach the server
    assert named.content == "passed-on"          # unless the entry names them, ${VAR} expanded
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert len([e for e in events if isinstance(e, ToolProposed)]) == len(finished) == 5
    failed = [e.error for e in finished if e.error]
    assert [(r.tool, r.kind, r.program) for r in failed] == [("mcp__t__fail", "mcp_error", "t")]
    assert app.mcp.rows()[0][:4] == ("t", "stdio", "stopped", 9)
    assert "mcp__t__echo" not in app.session.tools   # tools end with the session


def test_the_model_is_offered_the_servers_schema(project, tmp_path, monkeypatch):
    record = tmp_path / "requests.jsonl"
    monkeypatch.setenv("EDGAR_SCRIPTED_RECORD", str(record))
    app, _ = app_for(project, [{"text": "ok"}], servers={"t": stdio()})
    session_turns(app, "go")
    spec = app.mcp.servers["t"].link  # connected once; the request recorded the tool names
    assert spec is not None
    sent = json.loads(record.read_text().splitlines()[0])
    assert "mcp__t__echo" in json.dumps(sent)


def test_results_are_bounded_by_tool_result_max_chars(project):
    app, _ = app_for(project, [{"tool_calls": [call("mcp__t__big", chars=50_000)]},
                               {"text": "ok"}],
                     servers={"t": stdio()}, context=ContextSettings(tool_result_max_chars=1000))
    session_turns(app, "go")
    [big] = results(app)
    assert len(big.content) < 1400 and "omitted" in big.content


def test_a_server_that_dies_is_one_notice_its_tools_go_and_the_session_goes_on(project):
    app, events = app_for(project, [
        {"tool_calls": [call("mcp__t__echo", text="a")]},
        {"tool_calls": [call("mcp__t__echo", text="b")]},   # the server exits on this call
        {"text": "first done"},
        {"tool_calls": [call("mcp__t__echo", text="c"), call("read", path="a.txt")]},
        {"text": "second done"},
    ], servers={"t": stdio("--die-after", "1")})
    first, second = session_turns(app, "one", "two")
    assert first.outcome == second.outcome == "ok"
    said = [m for m in notices(events) if m.startswith('mcp: server "t"')]
    assert said == ['mcp: server "t" exited (code 3): test server: giving up; its 9 tool(s) '
                    "are gone for this session"]
    a, b, c, read = results(app)
    assert a.content == "a" and b.is_error and "exited (code 3)" in b.content
    assert c.is_error and "unknown tool" in c.content and "hello" in read.content
    assert app.mcp.rows()[0][2] == "exited"


def test_streamable_http_server_with_expanded_headers(project, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, SERVER, "http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        monkeypatch.setenv("MCP_TEST_TOKEN", "t0k")
        (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"web": {
            "type": "http", "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"X-Token": "${MCP_TEST_TOKEN}", "X-Other": "${UNSET_X:-fallback}"}}}}))
        trust(project)
        app, events = app_for(project, [{"tool_calls": [call("mcp__web__echo", text="over http")]},
                                        {"text": "ok"}])
        session_turns(app, "go")
        [echo] = results(app)
        assert echo.content == "over http" and not echo.is_error
        assert app.mcp.rows()[0][:2] == ("web", "http")
    finally:
        proc.terminate()
        proc.wait(10)


def test_reference_server_mcp_server_time_from_a_claude_code_mcp_json(project):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"time": {
        "command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}}}))
    trust(project)
    app, events = app_for(project, [
        {"tool_calls": [call("mcp__time__get_current_time", timezone="Europe/Paris")]},
        {"text": "ok"}])
    session_turns(app, "what time is it in Paris")
    [now] = results(app)
    assert not now.is_error and "Europe/Paris" in now.content
    assert app.mcp.rows()[0][3] >= 2  # get_current_time and convert_time


def test_project_servers_wait_for_trust(project):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"t": {
        "command": sys.executable, "args": [SERVER]}}}))
    app, events = app_for(project, [{"tool_calls": [call("mcp__t__echo", text="x")]},
                                    {"text": "ok"}])
    session_turns(app, "go")
    [refused] = results(app)
    assert refused.is_error and "unknown tool" in refused.content
    assert any('project server "t"' in m and "not trusted" in m for m in notices(events))
    assert app.mcp.rows()[0][2] == "untrusted"


@pytest.mark.parametrize("mode,confirm,allowed", [
    ("ask", None, False),          # -p: nobody can confirm
    ("auto-edit", None, False),    # like shell
    ("read-only", None, False),
])
def test_mcp_tools_are_treated_like_shell_by_the_modes(project, mode, confirm, allowed):
    app, events = app_for(project, [{"tool_calls": [call("mcp__t__echo", text="x")]},
                                    {"text": "ok"}], servers={"t": stdio()}, mode=mode)
    session_turns(app, "go")
    [echo] = results(app)
    assert echo.is_error is not allowed
    denied = [e.error.kind for e in events if isinstance(e, ToolFinished) and e.error]
    assert denied == ["denied"]


def test_read_only_hint_counts_in_read_only_mode_only_when_the_person_allowed_it(project):
    mcp = McpSettings(servers={"t": stdio()}, trust_read_only_hint=True)
    app, _ = app_for(project, [{"tool_calls": [call("mcp__t__echo", text="x"),
                                               call("mcp__t__fail", why="y")]},
                               {"text": "ok"}], mode="read-only", mcp=mcp)
    session_turns(app, "go")
    echo, fail = results(app)
    assert echo.content == "x" and not echo.is_error          # readOnlyHint: allowed
    assert fail.is_error and "read-only" in fail.content       # no hint: refused


def test_in_ask_mode_the_person_is_asked(project):
    asked = []

    async def confirm(tool, summary, always=None):
        asked.append((tool, summary))
        return "yes"

    app, _ = app_for(project, [{"tool_calls": [call("mcp__t__echo", text="x")]},
                               {"text": "ok"}], servers={"t": stdio()}, mode="ask",
                     confirm=confirm)
    session_turns(app, "go")
    assert asked and asked[0][0] == "mcp__t__echo" and '"text": "x"' in asked[0][1]
    assert results(app)[0].content == "x"


def test_a_call_that_takes_too_long_is_a_timeout(project):
    mcp = McpSettings(servers={"t": stdio()}, call_timeout=0.5, startup_timeout=20)
    app, events = app_for(project, [{"tool_calls": [call("mcp__t__slow", seconds=5)]},
                                    {"tool_calls": [call("mcp__t__echo", text="still here")]},
                                    {"text": "ok"}], mcp=mcp)
    session_turns(app, "go")
    slow, echo = results(app)
    assert slow.is_error and "did not answer" in slow.content
    kinds = [(e.error.kind, e.error.program) for e in events if isinstance(e, ToolFinished)
             and e.error]
    assert kinds == [("timeout", "t")]
    assert echo.content == "still here"


def test_every_server_process_and_its_children_end_with_the_session(project, tmp_path):
    beat = project / "beat.txt"
    app, _ = app_for(project, [{"tool_calls": [call("mcp__t__heartbeat", path=str(beat))]},
                               {"text": "ok"}], servers={"t": stdio()})
    session_turns(app, "go")
    assert not results(app)[0].is_error
    time.sleep(0.5)                      # the session is over: the child must be gone
    size = beat.stat().st_size
    time.sleep(0.6)
    assert size > 0 and beat.stat().st_size == size


def test_cancelling_a_turn_mid_call_keeps_the_server_for_the_next_turn(project):
    app, events = app_for(project, [{"tool_calls": [call("mcp__t__slow", seconds=3)]},
                                    {"tool_calls": [call("mcp__t__echo", text="after")]},
                                    {"text": "ok"}], servers={"t": stdio()})

    async def go():
        await app.session.ready()
        task = asyncio.create_task(run_turn(app.session, "one"))
        await asyncio.sleep(0.5)
        task.cancel()
        first = await task
        second = await run_turn(app.session, "two")
        return first, second

    first, second = asyncio.run(app.running(go()))
    assert first.outcome == "cancelled" and second.outcome == "ok"
    kinds = [e.error.kind for e in events if isinstance(e, ToolFinished) and e.error]
    assert kinds == ["cancelled"]
    assert results(app)[-1].content == "after"


def test_permission_rules_allow_and_deny_one_servers_tools(project, tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[permissions]\nallow = ["mcp__t__e*"]\n'
                                      'deny = ["mcp__t__fail"]\n')
    app, events = app_for(project, [{"tool_calls": [call("mcp__t__echo", text="allowed"),
                                                    call("mcp__t__fail", why="x")]},
                                    {"text": "ok"}], servers={"t": stdio()}, mode="ask")
    session_turns(app, "go")
    echo, fail = results(app)
    assert echo.content == "allowed"         # -p-like: nobody could confirm; the rule allowed
    assert fail.is_error and "failed on purpose" not in fail.content   # denied: never ran
    kinds = [e.error.kind for e in events if isinstance(e, ToolFinished) and e.error]
    assert kinds == ["denied"]


def test_progress_notifications_are_the_calls_live_output(project):
    from edgar.events import ToolOutput

    app, events = app_for(project, [{"tool_calls": [call("mcp__t__steps", n=3)]},
                                    {"text": "ok"}], servers={"t": stdio()})
    shown: list[tuple[str, str]] = []
    app.session.display_output = lambda call_id, text: shown.append((call_id, text))
    session_turns(app, "go")
    assert results(app)[0].content == "3 steps"
    assert "".join(text for _, text in shown) == (
        "progress 1/3: step 1\nprogress 2/3: step 2\nprogress 3/3: step 3\n")
    [first, *_] = [e for e in events if isinstance(e, ToolOutput)]
    assert first.tool == "mcp__t__steps" and first.lines >= 1
