"""``--mcp-config FILE|JSON`` and ``--strict-mcp-config`` (issue 23 item 4, ADR-0114), through the
real binary with a real MCP server (``mcp-server-time`` from PyPI) and the scripted provider."""

from __future__ import annotations

import json
import sys

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script

TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
CALL = {"tool_calls": [{"name": "mcp__flagged__convert_time", "input": {
    "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}}]}


def tools_offered(record) -> set[str]:
    return {name for name in recorded(record)[0]["tools"] if name.startswith("mcp__")}


def test_a_file_given_with_the_flag_starts_its_servers_without_trust(tmp_path):
    root = make_project(tmp_path / "p")
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"flagged": TIME}}, indent=2))
    script = write_script(tmp_path / "s.jsonl", [CALL, {"text": "21:00"}])
    record = tmp_path / "r.jsonl"
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record))
    out = run_edgar(["-p", "noon UTC in Tokyo?", "--model", f"scripted:{script}",
                     "--permission-mode", "yes", "--mcp-config", str(config)], root, env)
    assert out.returncode == 0, out.stderr
    assert "untrusted" not in out.stderr and "edgar trust" not in out.stderr, out.stderr
    assert tools_offered(record) == {"mcp__flagged__get_current_time",
                                     "mcp__flagged__convert_time"}
    assert "21:00" in json.dumps(recorded(record)[1])   # the server answered the call


def test_a_json_string_joins_the_configured_servers_and_strict_keeps_only_it(tmp_path):
    root = make_project(tmp_path / "p", {".mcp.json": json.dumps({"mcpServers": {
        "theirs": TIME}})})
    env = edgar_env(tmp_path / "home")
    assert run_edgar(["mcp", "trust"], root, env).returncode == 0
    inline = json.dumps({"mcpServers": {"flagged": TIME}})
    offered = {}
    for strict in (False, True):
        script = write_script(tmp_path / f"s{strict}.jsonl", [{"text": "ok"}])
        record = tmp_path / f"r{strict}.jsonl"
        env["EDGAR_SCRIPTED_RECORD"] = str(record)
        out = run_edgar(["-p", "hi", "--model", f"scripted:{script}", "--mcp-config", inline,
                         *(["--strict-mcp-config"] if strict else [])], root, env)
        assert out.returncode == 0, out.stderr
        offered[strict] = {name.split("__")[1] for name in tools_offered(record)}
    assert offered == {False: {"flagged", "theirs"}, True: {"flagged"}}


def test_strict_without_a_config_starts_no_server(tmp_path):
    root = make_project(tmp_path / "p", {".mcp.json": json.dumps({"mcpServers": {
        "theirs": TIME}})})
    env = edgar_env(tmp_path / "home")
    run_edgar(["mcp", "trust"], root, env)
    record = tmp_path / "r.jsonl"
    env["EDGAR_SCRIPTED_RECORD"] = str(record)
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}", "--strict-mcp-config"],
                    root, env)
    assert out.returncode == 0, out.stderr
    assert tools_offered(record) == set()


@pytest.mark.parametrize("case", ["missing", "not-json", "not-servers", "wrong-type",
                                  "inline-wrong"])
def test_a_value_edgar_cannot_use_is_a_located_usage_error_and_nothing_starts(tmp_path, case):
    root = make_project(tmp_path / "p")
    config = tmp_path / "servers.json"
    texts = {"not-json": '{\n  "mcpServers": {,\n}',
             "not-servers": json.dumps({"servers": {}}),
             "wrong-type": json.dumps({"mcpServers": {"ok": TIME, "bad": {"command": 42}}},
                                      indent=2)}
    if case in texts:
        config.write_text(texts[case])
    value = (json.dumps({"mcpServers": {"bad": {"url": "ftp://x", "type": "http"}}})
             if case == "inline-wrong" else str(config))
    out = run_edgar(["-p", "hi", "--model", "scripted:x", "--mcp-config", value], root,
                    edgar_env(tmp_path / "home"))
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    bad = '    "bad": {'
    want = {"missing": f"edgar: --mcp-config {config}: no such file; no server was started",
            "not-json": f"edgar: {config}:2:18: not valid JSON",
            "not-servers": f'edgar: {config}:1: expected {{"mcpServers"',
            "wrong-type": f"edgar: {config}:{texts['wrong-type'].splitlines().index(bad) + 1}: "
                          "mcp server 'bad': wrong type for command",
            "inline-wrong": "edgar: --mcp-config #1 (JSON):1: mcp server 'bad': an http server "
                            "needs an http(s) \"url\""}[case]
    assert out.stderr.startswith(want), out.stderr


def test_an_unknown_key_is_a_warning_and_the_server_still_starts(tmp_path):
    root = make_project(tmp_path / "p")
    inline = json.dumps({"mcpServers": {"flagged": {**TIME, "timeout": 30000}}})
    record = tmp_path / "r.jsonl"
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}", "--mcp-config", inline],
                    root, edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record)))
    assert out.returncode == 0, out.stderr
    assert "--mcp-config #1 (JSON):1: mcp server 'flagged': edgar does not read 'timeout'" in (
        out.stderr)
    assert "mcp__flagged__convert_time" in tools_offered(record)
