"""``edgar mcp list`` / ``edgar mcp trust`` and ``edgar -p`` with a Claude Code .mcp.json."""

from __future__ import annotations

import json
import sys

from support.project import edgar_env, make_project, recorded, run_edgar, write_script


def test_mcp_list_shows_state_and_tool_counts_once_trusted(tmp_path):
    root = make_project(tmp_path / "p", {".mcp.json": json.dumps({"mcpServers": {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        "gone": {"command": "/no/such/server"}}})})
    env = edgar_env(tmp_path / "home")
    before = run_edgar(["mcp", "list"], root, env)
    assert before.returncode == 0
    assert [line.split()[:4] for line in before.stdout.splitlines()[1:]] == [
        ["time", "stdio", "untrusted", "0"], ["gone", "stdio", "untrusted", "0"]]
    assert run_edgar(["mcp", "trust"], root, env).returncode == 0
    after = run_edgar(["mcp", "list"], root, env)
    lines = after.stdout.splitlines()[1:]
    rows = [line.split()[:4] for line in lines if not line.startswith(" ")]
    assert rows == [["time", "stdio", "connected", "2"], ["gone", "stdio", "failed", "0"]]
    # under each connected server, its tools by the server's own names (claude mcp list)
    assert lines[1].split() == ["tools:", "get_current_time,", "convert_time"]
    assert "cannot start '/no/such/server'" in after.stdout


def test_config_problems_are_printed_in_p_too(tmp_path):
    root = make_project(tmp_path / "p", {".mcp.json": json.dumps({"mcpServers": {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"],
                 "timeout": 30000},
        "bad": {"command": 42}}}, indent=2)})
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    env = edgar_env(tmp_path / "home")
    run_edgar(["mcp", "trust"], root, env)
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], root, env)
    assert out.returncode == 0, out.stderr
    where = root / ".mcp.json"
    assert f"{where}:3: mcp server 'time': edgar does not read 'timeout': ignored" in out.stderr
    line = where.read_text().splitlines().index('    "bad": {') + 1
    assert f"{where}:{line}: mcp server 'bad': wrong type for command" in out.stderr


def test_a_claude_code_mcp_json_works_unchanged_in_edgar_p(tmp_path):
    root = make_project(tmp_path / "p", {".mcp.json": json.dumps({"mcpServers": {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"],
                 "env": {"TZ": "${TZ:-UTC}"}}}}, indent=2)})
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "mcp__time__convert_time", "input": {
            "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}}]},
        {"text": "It is 21:00 in Tokyo."}])
    record = tmp_path / "requests.jsonl"
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record))
    run_edgar(["mcp", "trust"], root, env)
    out = run_edgar(["-p", "noon UTC in Tokyo?", "--model", f"scripted:{script}",
                     "--permission-mode", "yes", "--output-format", "json"], root, env)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["tools"] == [{"name": "mcp__time__convert_time", "ok": True,
                                 "error_kind": None}]
    second = recorded(record)[1]
    assert "21:00" in json.dumps(second)     # the server's answer went back to the model


def test_mcp_list_with_nothing_configured(tmp_path):
    root = make_project(tmp_path / "p")
    out = run_edgar(["mcp", "list"], root, edgar_env(tmp_path / "home"))
    assert out.returncode == 0 and "no MCP servers configured" in out.stdout
