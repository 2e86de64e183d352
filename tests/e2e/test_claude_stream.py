"""Claude Code's print-mode interface (issue 23 item 4): a consumer written against Claude Code's
documented stream-json line types reads edgar's stream; its flags do what Claude Code's do."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
USAGE_KEYS = {"input_tokens", "output_tokens", "cache_creation_input_tokens",
              "cache_read_input_tokens"}


def consume(stdout: str) -> dict[str, Any]:
    """What a stream-json consumer (the Agent SDK's ``SDKMessage`` types) reads: every line is
    a JSON object of a documented type with its documented fields, tool results answer tool
    uses, and each turn ends with a result. Fails on anything else."""
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert lines, "no output"
    init, *rest = lines
    assert init["type"] == "system" and init["subtype"] == "init"
    for key, kind in (("cwd", str), ("session_id", str), ("tools", list), ("mcp_servers", list),
                      ("model", str), ("permissionMode", str), ("slash_commands", list),
                      ("apiKeySource", str), ("output_style", str)):
        assert isinstance(init[key], kind), key
    assert init["permissionMode"] in ("default", "acceptEdits", "bypassPermissions", "plan")
    seen: dict[str, dict[str, Any]] = {}
    answered: set[str] = set()
    results: list[dict[str, Any]] = []
    assistants: list[dict[str, Any]] = []
    for line in lines:
        assert UUID.match(line["uuid"]), line
        assert line["session_id"] == init["session_id"]
    for line in rest:
        assert line["type"] in ("assistant", "user", "result"), line["type"]
        if line["type"] == "assistant":
            message = line["message"]
            assert line["parent_tool_use_id"] is None
            assert message["role"] == "assistant" and message["type"] == "message"
            assert message["id"].startswith("msg_") and isinstance(message["model"], str)
            assert set(message["usage"]) >= USAGE_KEYS
            for block in message["content"]:
                assert block["type"] in ("text", "thinking", "tool_use"), block
                if block["type"] == "tool_use":
                    assert isinstance(block["input"], dict) and block["name"]
                    seen[block["id"]] = block
            assistants.append(message)
        elif line["type"] == "user":
            message = line["message"]
            assert message["role"] == "user" and line["parent_tool_use_id"] is None
            for block in message["content"]:
                assert block["type"] == "tool_result"
                assert block["tool_use_id"] in seen and block["tool_use_id"] not in answered
                assert isinstance(block["content"], str) and isinstance(block["is_error"], bool)
                answered.add(block["tool_use_id"])
        else:
            assert line["subtype"] in ("success", "error_max_turns", "error_during_execution")
            for key, kind in (("is_error", bool), ("duration_ms", int),
                              ("duration_api_ms", int), ("num_turns", int), ("result", str),
                              ("total_cost_usd", (int, float)), ("usage", dict),
                              ("permission_denials", list)):
                assert isinstance(line[key], kind), key
            assert set(line["usage"]) >= USAGE_KEYS
            assert 0 <= line["duration_api_ms"] <= line["duration_ms"]
            results.append(line)
    assert rest and rest[-1]["type"] == "result"
    assert answered == set(seen), "a tool use without its result"
    return {"init": init, "assistants": assistants, "tool_uses": seen, "results": results,
            "lines": lines}


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(tmp_path / "sent.jsonl"))


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj", {"notes.txt": "remember the milk\n"})


def two_steps(tmp_path, *calls: dict[str, Any]):
    return write_script(tmp_path / "s.jsonl", [
        {"text": "Let me look.", "tool_calls": list(calls) or
         [{"name": "read", "input": {"path": "notes.txt"}}],
         "usage": {"input_tokens": 100, "output_tokens": 10}, "model": "claude-sonnet-4-5"},
        {"text": "It says: remember the milk.",
         "usage": {"input_tokens": 150, "output_tokens": 8}}])


def test_a_stream_json_consumer_reads_claude_codes_line_types(project, env, tmp_path):
    out = run_edgar(["-p", "what does notes.txt say?", "--model",
                     f"scripted:{two_steps(tmp_path)}", "--output-format", "stream-json"],
                    project, env)
    assert out.returncode == 0, out.stderr
    got = consume(out.stdout)
    assert [line["type"] for line in got["lines"]] == ["system", "assistant", "user",
                                                       "assistant", "result"]
    assert {"Read", "Write", "Edit", "Bash", "Glob", "Grep"} <= set(got["init"]["tools"])
    [use] = got["tool_uses"].values()
    assert use["name"] == "Read" and use["input"] == {"file_path": str(project / "notes.txt")}
    tool_result = got["lines"][2]["message"]["content"][0]
    assert "remember the milk" in tool_result["content"] and tool_result["is_error"] is False
    [result] = got["results"]
    assert result["result"] == "It says: remember the milk." and result["num_turns"] == 2
    assert result["usage"]["input_tokens"] == 250 and result["usage"]["output_tokens"] == 18
    assert result["total_cost_usd"] == pytest.approx((250 * 3 + 18 * 15) / 1e6)
    assert got["assistants"][0]["usage"]["input_tokens"] == 100   # each message its own usage


def test_edgar_events_are_behind_their_own_format(project, env, tmp_path):
    out = run_edgar(["-p", "hi", "--model", f"scripted:{two_steps(tmp_path)}",
                     "--output-format", "edgar-events"], project, env)
    types = [json.loads(line)["type"] for line in out.stdout.splitlines()]
    assert types[0] == "PromptTyped" and "ToolProposed" in types and types[-1] == "TurnFinished"


def test_input_stream_json_runs_a_turn_per_user_line_and_never_learns_it(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [{"text": "one"}, {"text": "two"}])
    lines = [{"type": "user", "message": {"role": "user",
                                          "content": "From now on, always use tabs."}},
             {"type": "user", "message": {"role": "user",
                                          "content": [{"type": "text", "text": "and now?"}]}}]
    out = run_edgar(["-p", "--input-format", "stream-json", "--output-format", "stream-json",
                     "--model", f"scripted:{script}"], project, env,
                    stdin="".join(json.dumps(x) + "\n" for x in lines))
    assert out.returncode == 0, out.stderr
    got = consume(out.stdout)
    assert [r["result"] for r in got["results"]] == ["one", "two"]
    sent = recorded(tmp_path / "sent.jsonl")
    assert sent[1]["messages"][0]["content"][0]["text"] == "From now on, always use tabs."
    assert sent[1]["messages"][-1]["content"][0]["text"] == "and now?"   # one conversation
    listed = run_edgar(["memory", "list", "--all"], project, env)
    assert "tabs" not in listed.stdout   # piped, not typed: nothing learned


def test_a_bad_input_line_is_located_and_the_turns_before_it_ran(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [{"text": "one"}])
    stdin = json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + \
        "\n" + json.dumps({"type": "control_request"}) + "\n"
    out = run_edgar(["-p", "--input-format", "stream-json", "--output-format", "stream-json",
                     "--model", f"scripted:{script}"], project, env, stdin=stdin)
    assert out.returncode == 2
    assert "edgar: stdin line 2: expected a {\"type\": \"user\"" in out.stderr
    assert "Traceback" not in out.stderr
    assert [r["result"] for r in consume(out.stdout)["results"]] == ["one"]
    alone = run_edgar(["-p", "--input-format", "stream-json", "--model", f"scripted:{script}"],
                      project, env, stdin=stdin)
    assert alone.returncode == 2 and "needs --output-format stream-json" in alone.stderr


def test_allowed_and_disallowed_tools_are_permission_rules(project, env, tmp_path):
    script = two_steps(tmp_path, {"name": "shell", "input": {"command": "touch made.txt"}})
    refused = run_edgar(["-p", "go", "--model", f"scripted:{script}",
                         "--output-format", "stream-json"], project, env)
    assert not (project / "made.txt").exists()   # -p in ask mode: nobody to confirm
    [denied] = consume(refused.stdout)["results"][0]["permission_denials"]
    assert denied["tool_name"] == "shell"
    allowed = run_edgar(["-p", "go", "--model", f"scripted:{script}", "--allowedTools",
                         "Bash(touch:*) Read", "--output-format", "json"], project, env)
    assert allowed.returncode == 0, allowed.stderr
    assert (project / "made.txt").exists()
    reads = two_steps(tmp_path)
    out = run_edgar(["-p", "go", "--model", f"scripted:{reads}", "--permission-mode", "yes",
                     "--disallowedTools", "Read", "--output-format", "stream-json"],
                    project, env)
    got = consume(out.stdout)
    assert got["lines"][2]["message"]["content"][0]["is_error"] is True   # deny beats yes
    bad = run_edgar(["-p", "go", "--model", f"scripted:{reads}", "--allowedTools", "Bash(("],
                    project, env)
    assert bad.returncode == 2 and bad.stderr.startswith("edgar: --allowedTools: ")


def test_append_system_prompt_ends_the_system_prompt(project, env, tmp_path):
    out = run_edgar(["-p", "hi", "--model", f"scripted:{two_steps(tmp_path)}",
                     "--append-system-prompt", "Answer in French."], project, env)
    assert out.returncode == 0, out.stderr
    system = recorded(tmp_path / "sent.jsonl")[0]["system"]
    assert system.endswith("\n\nAnswer in French.")


def test_slash_commands_in_print_mode_run_as_in_the_repl(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [
        {"text": "Writing.", "tool_calls": [{"name": "write", "input": {
            "path": "notes.txt", "content": "changed\n"}}]}, {"text": "Done."}])
    after = write_script(tmp_path / "after.jsonl", [{"text": "ok"}])
    model = ["--model", f"scripted:{script}"]
    out = run_edgar(["-p", "/help", *model], project, env)
    assert out.returncode == 0 and "/undo [N]" in out.stdout
    assert recorded(tmp_path / "sent.jsonl") == []   # never sent to the model
    assert run_edgar(["-p", "change it", *model, "--permission-mode", "yes"],
                     project, env).returncode == 0
    assert (project / "notes.txt").read_text() == "changed\n"
    undo = run_edgar(["-c", "-p", "/undo", *model, "--output-format", "stream-json"],
                     project, env)
    assert undo.returncode == 0, undo.stderr
    [result] = consume(undo.stdout)["results"]
    assert result["is_error"] is False and "notes.txt" in result["result"]
    assert (project / "notes.txt").read_text() == "remember the milk\n"
    again = run_edgar(["-c", "-p", "and now?", "--model", f"scripted:{after}"], project, env)
    assert again.returncode == 0, again.stderr
    told = json.dumps(recorded(tmp_path / "sent.jsonl")[-1]["messages"])
    assert "The user ran /undo" in told     # -c goes on with the model told
    assert len(recorded(tmp_path / "sent.jsonl")) == 3
