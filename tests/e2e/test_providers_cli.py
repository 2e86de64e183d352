"""The ``edgar`` command a person runs, against the loopback provider server.

``python -m edgar -p … --model anthropic:…|openai:…`` runs as a subprocess with
``ANTHROPIC_BASE_URL``/``OPENAI_BASE_URL`` pointed at ``SSEServer`` and fake keys; the tests
read its JSON output and the request bodies the server received.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.project import state_of
from support.sse_server import Reply, anthropic_event, recording, stream

ROOT = Path(__file__).resolve().parents[2]
ANTHROPIC_KEY = "sk-ant-e2e-secret-0123456789"
OPENAI_KEY = "sk-e2e-openai-secret-0123456789"
SONNET = "anthropic:claude-sonnet-4-6"   # current (4-5 retired on 2026-11-30)


@pytest.fixture
def server():
    from support.sse_server import SSEServer

    with SSEServer() as s:
        yield s
        # every request body edgar sent in the test, against the official SDKs' types
        problems = s.invalid_requests()
        assert not problems, "\n".join(problems)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def edgar(server, project, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "OPENAI_", "EDGAR_")) and "PROXY" not in k.upper()}
    env.update(PYTHONPATH=str(ROOT), EDGAR_HOME=str(tmp_path / "home"),
               ANTHROPIC_API_KEY=ANTHROPIC_KEY, OPENAI_API_KEY=OPENAI_KEY,
               ANTHROPIC_BASE_URL=server.url, OPENAI_BASE_URL=server.url + "/v1")

    def run(*args: str, drop_env: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
        run_env = {k: v for k, v in env.items() if k not in drop_env}
        return subprocess.run([sys.executable, "-m", "edgar", *args], cwd=project, env=run_env,
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)

    return run


def shell_call(command: str) -> list[str]:
    """An Anthropic stream that asks for one ``shell`` call, its input split in two deltas."""
    raw = json.dumps({"command": command})
    return [
        anthropic_event("message_start", {"message": {"model": "claude-sonnet-4-5-20250929",
                                                      "usage": {"input_tokens": 900}}}),
        anthropic_event("content_block_start", {"index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_e2e", "name": "shell", "input": {}}}),
        anthropic_event("content_block_delta", {"index": 0, "delta": {
            "type": "input_json_delta", "partial_json": raw[:7]}}),
        anthropic_event("content_block_delta", {"index": 0, "delta": {
            "type": "input_json_delta", "partial_json": raw[7:]}}),
        anthropic_event("content_block_stop", {"index": 0}),
        anthropic_event("message_delta", {"delta": {"stop_reason": "tool_use"},
                                          "usage": {"output_tokens": 30}}),
        anthropic_event("message_stop", {}),
    ]


def result_of(done: subprocess.CompletedProcess) -> dict:
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_anthropic_text_answer_as_json(server, edgar):
    server.anthropic(stream("anthropic_text"))
    done = edgar("-p", "hi", "--model", SONNET, "--output-format", "json")
    assert done.returncode == 0, done.stderr
    out = result_of(done)
    assert out["outcome"] == "ok" and out["result"] == "Hello, world!"
    assert out["usage"]["input_tokens"] == 25 and out["usage"]["output_tokens"] == 15
    assert out["cost_usd"] == pytest.approx((25 * 3 + 15 * 15) / 1e6)
    (rec,) = server.requests
    assert rec.headers["x-api-key"] == ANTHROPIC_KEY
    assert rec.body["model"] == "claude-sonnet-4-6" and rec.body["stream"] is True
    assert "hi" in json.dumps(rec.body["messages"][-1])
    assert "shell" in [t["name"] for t in rec.body["tools"]]


def test_anthropic_tool_turn_sends_the_result_back_as_tool_result(server, edgar, project):
    (project / ".edgar").mkdir()
    (project / ".edgar" / "config.toml").write_text(
        '[providers.anthropic]\nversion = "2026-10-21"\nauth = "bearer"\n')
    server.anthropic(stream(shell_call("echo hi")), stream("anthropic_text"))
    done = edgar("-p", "say hi with the shell", "--model", SONNET, "--output-format", "json",
                 "--permission-mode", "yes")
    assert done.returncode == 0, done.stderr
    out = result_of(done)
    assert out["result"] == "Hello, world!" and out["num_turns"] == 2
    assert out["tools"] == [{"name": "shell", "ok": True, "error_kind": None}]
    first, second = server.requests
    for rec in (first, second):
        assert rec.headers["anthropic-version"] == "2026-10-21"
        assert rec.headers["authorization"] == f"Bearer {ANTHROPIC_KEY}"
        assert not {"temperature", "top_p", "top_k"} & set(rec.body)
    assistant, user = second.body["messages"][-2:]
    assert assistant["role"] == "assistant"
    assert assistant["content"][-1] == {"type": "tool_use", "id": "toolu_e2e", "name": "shell",
                                        "input": {"command": "echo hi"}}
    result = user["content"][0]
    assert user["role"] == "user" and result["type"] == "tool_result"
    assert result["tool_use_id"] == "toolu_e2e" and result["is_error"] is False
    assert "hi" in json.dumps(result["content"])


def test_openai_tool_turn_sends_the_result_back_as_a_tool_message(server, edgar):
    server.openai(stream("openai_whole_tool_call"), stream("openai_text"))
    done = edgar("-p", "say hi with the shell", "--model", "openai:gpt-4.1",
                 "--output-format", "json", "--permission-mode", "yes")
    assert done.returncode == 0, done.stderr
    assert result_of(done)["result"] == "Hello, world!"
    first, second = server.requests
    assert first.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert first.body["stream_options"] == {"include_usage": True}
    assert first.body["messages"][0]["role"] == "system"
    assistant, tool = second.body["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_whole"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"command": "echo hi"}
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_whole"
    assert "hi" in tool["content"]


def test_midstream_error_keeps_partial_text_and_ends_the_turn_in_error(server, edgar, project,
                                                                    tmp_path):
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.anthropic(stream(recording("anthropic_text")[:5]
                            + [anthropic_event("error", overloaded)]))
    done = edgar("-p", "hi", "--model", SONNET, "--output-format", "edgar-events")
    assert done.returncode == 1
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert "".join(e["text"] for e in events if e["type"] == "TextDelta") == "Hello, world"
    (end,) = [e for e in events if e["type"] == "TurnFinished"]
    assert end["outcome"] == "error"
    assert end["error"] == {"tool": "provider", "kind": "provider_http", "exit_code": 529,
                            "program": None}
    assert "anthropic" in done.stderr and "529" in done.stderr
    logs = "".join(p.read_text() for p in (state_of(project, tmp_path / "home")).rglob("*.jsonl"))
    assert "Hello, world" in logs   # the partial answer is in the session log too


def test_missing_key_exits_2_before_any_request(server, edgar):
    done = edgar("-p", "hi", "--model", SONNET, drop_env=("ANTHROPIC_API_KEY",))
    assert done.returncode == 2
    assert "set ANTHROPIC_API_KEY" in done.stderr and "Traceback" not in done.stderr
    assert server.requests == []


def test_unknown_model_counts_tokens_without_a_cost(server, edgar):
    local = [b.replace("gpt-4.1-2025-04-14", "llama3.2:3b") for b in recording("openai_text")]
    server.openai(stream(local))
    done = edgar("-p", "hi", "--model", "openai:llama3.2:3b", "--output-format", "json",
                 drop_env=("OPENAI_API_KEY",))
    assert done.returncode == 0, done.stderr
    out = result_of(done)
    assert out["cost_usd"] is None and out["usage"]["input_tokens"] == 20
    assert "authorization" not in server.requests[0].headers


def test_the_key_is_never_written_anywhere(server, edgar, project, tmp_path):
    server.anthropic(Reply(status=401, json={"error": {
        "type": "authentication_error", "message": f"invalid x-api-key {ANTHROPIC_KEY}"}}))
    done = edgar("-p", "hi", "--model", SONNET, "--output-format", "edgar-events")
    assert done.returncode == 1 and "set ANTHROPIC_API_KEY" in done.stderr
    assert ANTHROPIC_KEY not in done.stdout + done.stderr
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert ANTHROPIC_KEY not in path.read_text(errors="replace"), path


def test_doctor_reports_the_key_without_showing_it_and_pings(server, edgar):
    server.anthropic(stream("anthropic_text"))
    done = edgar("doctor", "--ping", "--model", SONNET)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ANTHROPIC_API_KEY is set" in done.stdout and ANTHROPIC_KEY not in done.stdout
    assert f"{server.url} (from ANTHROPIC_BASE_URL)" in done.stdout
    assert "ping      ok" in done.stdout
    assert server.requests[0].body["max_tokens"] == 1
    missing = edgar("doctor", "--model", SONNET, drop_env=("ANTHROPIC_API_KEY",))
    assert missing.returncode == 1 and "ANTHROPIC_API_KEY is NOT set" in missing.stdout
    assert len(server.requests) == 1   # no --ping: nothing sent


def test_doctor_resolves_aliases_and_bare_ids(edgar):
    from edgar.providers.models import table

    sonnet = table()["aliases"]["sonnet"]
    done = edgar("doctor", "--model", "sonnet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"sonnet → {sonnet}" in done.stdout and "lifecycle" not in done.stdout
    bare = edgar("doctor", "--model", "gpt-4.1")
    assert "gpt-4.1 → openai:gpt-4.1" in bare.stdout


def test_doctor_warns_about_a_model_past_its_end_of_life(edgar):
    done = edgar("doctor", "--model", "claude-sonnet-4-5")
    assert done.returncode == 1
    assert "claude-sonnet-4-5 → anthropic:claude-sonnet-4-5" in done.stdout
    assert "end of life on 2026-11-30" in done.stdout and "--model sonnet" in done.stdout


def test_bare_ids_and_aliases_run(server, edgar):
    from edgar.providers.models import table

    server.anthropic(stream("anthropic_text"), stream("anthropic_text"))
    for spec in ("haiku", "claude-opus-4-8"):
        done = edgar("-p", "hi", "--model", spec, "--output-format", "json")
        assert done.returncode == 0, done.stderr
    first, second = server.requests
    assert "anthropic:" + first.body["model"] == table()["aliases"]["haiku"]
    assert second.body["model"] == "claude-opus-4-8"


def test_the_default_model_is_current(edgar):
    import datetime

    from edgar.providers.models import default, retirement

    assert retirement(default()) is None
    done = edgar("doctor")
    assert f"sonnet → {default()}" in done.stdout
    assert datetime.date.today().isoformat() >= "2026-12-01"


def test_unknown_price_notice_once_on_its_own_line(server, edgar):
    local = [b.replace("gpt-4.1-2025-04-14", "llama3.2:3b") for b in recording("openai_text")]
    tool = [b.replace("gpt-4.1-2025-04-14", "llama3.2:3b")
            for b in recording("openai_whole_tool_call")]
    server.openai(stream(tool), stream(local))
    done = edgar("-p", "hi", "--model", "openai:llama3.2:3b", "--permission-mode", "yes",
                 drop_env=("OPENAI_API_KEY",))
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "no price" in line]
    assert len(notes) == 1 and notes[0].startswith("edgar: no price for model")
    assert done.stdout.endswith("Hello, world!\n")


def test_a_refusal_exits_1_with_the_refusal_shown(server, edgar):
    server.anthropic(stream("anthropic_refusal"))
    done = edgar("-p", "do something bad", "--model", SONNET)
    assert done.returncode == 1
    assert done.stdout == "I can't help with that.\n"
    assert "declined" in done.stderr and "refusal" in done.stderr


def test_max_tokens_mid_tool_call_exits_1_naming_the_setting(server, edgar, project):
    (project / "notes.txt").write_text("keep\n")
    server.anthropic(stream("anthropic_max_tokens_tool"))
    done = edgar("-p", "rewrite notes.txt", "--model", SONNET, "--permission-mode", "yes",
                 "--output-format", "json")
    assert done.returncode == 1
    out = result_of(done)
    assert out["is_error"] is True and out["tools"] == []
    assert "providers.anthropic.max_tokens" in out["error"]
    assert (project / "notes.txt").read_text() == "keep\n"


def test_no_usage_reported_is_null_in_json(server, edgar):
    server.openai(stream("openai_no_usage"))
    done = edgar("-p", "hi", "--model", "openai:gpt-4.1", "--output-format", "json")
    out = result_of(done)
    assert out["usage"]["input_tokens"] is None and out["total_cost_usd"] is None
