"""Bad MCP input: each is one located message, the session goes on, nothing is lost."""

from __future__ import annotations

import json
import re
import sys

from integration.test_mcp import app_for, call, notices, results, session_turns
from support.project import REPO

from edgar.config import McpServerSettings, McpSettings
from edgar.config.trust import trust

BAD = str(REPO / "tests" / "support" / "mcp_bad_servers.py")
GOOD = str(REPO / "tests" / "support" / "mcp_server.py")


def bad(kind: str) -> McpServerSettings:
    return McpServerSettings(command=sys.executable, args=[BAD, kind])


def go(project, lines=None, **kw):
    app, events = app_for(project, lines or [{"tool_calls": [call("read", path="a.txt")]},
                                             {"text": "ok"}], **kw)
    [result] = session_turns(app, "go")
    assert result.outcome == "ok" and "hello" in results(app)[0].content  # the session goes on
    return app, events


def mcp_notices(events):
    return [m for m in notices(events) if "mcp" in m or ".mcp.json" in m]


def test_mcp_json_that_is_not_json(project):
    (project / ".mcp.json").write_text('{"mcpServers": {\n  "t": {"command": "x",}\n}}')
    trust(project)
    _, events = go(project)
    [said] = mcp_notices(events)
    assert said.startswith(f"{project / '.mcp.json'}:2:") and "not valid JSON" in said


def test_unknown_keys_are_warned_about_and_the_server_still_starts(project):
    # Claude Code's own "timeout" (and any other key edgar does not read) cost nothing
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "odd": {"command": sys.executable, "args": [GOOD], "timeout": 30000, "cwd": "/tmp"},
        "t": {"command": sys.executable, "args": [GOOD]}}}, indent=2))
    trust(project)
    app, events = go(project, [{"tool_calls": [call("read", path="a.txt"),
                                               call("mcp__t__echo", text="still works"),
                                               call("mcp__odd__echo", text="odd works")]},
                               {"text": "ok"}])
    [said] = mcp_notices(events)
    assert said.startswith(f"{project / '.mcp.json'}:3: mcp server 'odd': edgar does not read "
                           "'cwd', 'timeout': ignored")
    assert [r.content for r in results(app)[1:]] == ["still works", "odd works"]
    assert sorted(r[0] for r in app.mcp.rows()) == ["odd", "t"]


def test_an_unknown_key_in_config_toml_is_a_warning_not_a_config_error(project):
    (project / ".edgar").mkdir(exist_ok=True)
    (project / ".edgar" / "config.toml").write_text(
        f"[mcp.servers.t]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(GOOD)}]\n"
        "timeout = 30000\n")
    trust(project)
    from edgar.config import load

    settings = load(project)   # no ConfigError for the whole file
    app, events = go(project, [{"tool_calls": [call("read", path="a.txt"),
                                               call("mcp__t__echo", text="from toml")]},
                               {"text": "ok"}], mcp=settings.mcp)
    [said] = mcp_notices(events)
    assert said.startswith(f"{project / '.edgar' / 'config.toml'}:1: mcp server 't': edgar "
                           "does not read 'timeout': ignored")
    assert results(app)[1].content == "from toml"


def test_an_unset_variable_without_default_names_the_variable(project, monkeypatch):
    monkeypatch.delenv("NOPE_NOT_SET", raising=False)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "t": {"command": "${NOPE_NOT_SET}/bin/server"}}}))
    _, events = go(project)
    [said] = mcp_notices(events)
    assert "NOPE_NOT_SET is not set and has no default" in said and ".mcp.json:1" in said


def test_a_command_that_does_not_exist(project):
    _, events = go(project, servers={"nope": McpServerSettings(command="/no/such/mcp-server")})
    [said] = mcp_notices(events)
    assert said.startswith('mcp: server "nope" cannot start '
                           '\'/no/such/mcp-server\': no such program')


def test_a_server_speaking_garbage(project):
    _, events = go(project, servers={"junk": bad("garbage")})
    [said] = mcp_notices(events)
    assert said.startswith('mcp: server "junk" wrote something that is not JSON-RPC on stdout')
    assert "hello, I am not a protocol" in said


def test_a_server_that_exits_at_once_says_its_last_stderr_line(project):
    _, events = go(project, servers={"git": bad("exit")})
    [said] = mcp_notices(events)
    assert said.startswith('mcp: server "git" exited (code 1): fatal: not a git repository')


def test_a_server_that_never_answers_times_out(project):
    mcp = McpSettings(servers={"mute": bad("hang")}, startup_timeout=1.0)
    _, events = go(project, mcp=mcp)
    [said] = mcp_notices(events)
    assert said.startswith('mcp: server "mute" did not finish the handshake within 1s')


def test_a_tool_schema_a_provider_would_reject_is_made_safe(project):
    import asyncio

    from edgar.core.loop import run_turn

    app, events = app_for(project, [{"tool_calls": [call("mcp__odd__odd_tool_", a="x")]},
                                    {"text": "ok"}], servers={"odd": bad("badschema")})

    async def work():
        await app.session.ready()
        spec = app.session.tools["mcp__odd__odd_tool_"].spec()
        return spec, await run_turn(app.session, "go")

    spec, result = asyncio.run(app.running(work()))
    assert result.outcome == "ok" and results(app)[0].content == "got {'a': 'x'}"
    assert spec.input_schema == {"type": "object", "properties": {  # anyOf at the top: gone
        "a": {"type": "string"}, "b": {"type": "integer"}}}
    assert len(spec.description) <= 1024
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", spec.name)
