"""What `edgar -p` prints, for a person and for a script: steps apart, notices on their own
line, refused tool calls said with the flag that allows them, Claude Code's JSON fields."""

from __future__ import annotations

import json

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(tmp_path / "received.jsonl"))


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj", {"notes.txt": "remember the milk\n"})


def scripted(tmp_path, lines):
    return f"scripted:{write_script(tmp_path / 's.jsonl', lines)}"


def test_steps_are_separated_by_a_blank_line(project, env, tmp_path):
    model = scripted(tmp_path, [
        {"text": "Let me read it.",
         "tool_calls": [{"name": "read", "input": {"path": "notes.txt"}}]},
        {"text": "The file says hi."}])
    out = run_edgar(["-p", "read notes.txt", "--model", model], project, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Let me read it.\n\nThe file says hi.\n"


def test_a_blank_prompt_is_a_usage_error(project, env, tmp_path):
    out = run_edgar(["-p", "   ", "--model", scripted(tmp_path, [{"text": "x"}])], project, env)
    assert out.returncode == 2 and "empty" in out.stderr and "Traceback" not in out.stderr
    assert recorded(tmp_path / "received.jsonl") == []


def test_a_refused_edit_is_said_on_stderr_and_listed_in_json(project, env, tmp_path):
    model = scripted(tmp_path, [
        {"text": "Fixing.", "tool_calls": [{"name": "edit", "id": "toolu_e1", "input": {
            "path": "notes.txt", "old_string": "milk", "new_string": "oat milk"}}]},
        {"text": "Fixed."}])
    out = run_edgar(["-p", "fix notes.txt", "--model", model, "--output-format", "json"],
                    project, env)
    assert ("edgar: refused edit notes.txt (permission mode ask; --permission-mode auto-edit "
            "allows it)") in out.stderr
    data = json.loads(out.stdout)
    assert data["permission_denials"] == [{"tool_name": "edit", "tool_use_id": "toolu_e1",
                                           "tool_input": {"path": "notes.txt", "old_string": "milk",
                                                          "new_string": "oat milk"}}]
    assert (project / "notes.txt").read_text() == "remember the milk\n"


def test_the_refusal_advice_to_the_model_names_a_mode_that_allows_the_call(project, env,
                                                                          tmp_path):
    model = scripted(tmp_path, [
        {"tool_calls": [{"name": "shell", "input": {"command": "echo hi"}}]}, {"text": "ok"}])
    out = run_edgar(["-p", "say hi", "--model", model, "--permission-mode", "auto-edit"],
                    project, env)
    assert "refused shell echo hi (permission mode auto-edit; --permission-mode yes allows it)" \
        in out.stderr
    result = recorded(tmp_path / "received.jsonl")[1]["messages"][-1]["content"][0]
    assert "--permission-mode yes" in result["content"] and "auto-edit or" not in result["content"]


def test_json_has_claude_codes_result_fields(project, env, tmp_path):
    model = scripted(tmp_path, [{"text": "Hello.", "usage": {"input_tokens": 10,
                                                             "output_tokens": 2},
                                 "model": "claude-sonnet-4-6"}])
    data = json.loads(run_edgar(["-p", "hi", "--model", model, "--output-format", "json"],
                                project, env).stdout)
    assert (data["type"], data["subtype"], data["is_error"]) == ("result", "success", False)
    assert data["total_cost_usd"] == pytest.approx((10 * 3 + 2 * 15) / 1e6) == data["cost_usd"]
    failing = scripted(tmp_path, [{"error": {"status": 500, "message": "boom"}}])
    bad = json.loads(run_edgar(["-p", "hi", "--model", failing, "--output-format", "json"],
                               project, env).stdout)
    assert (bad["subtype"], bad["is_error"]) == ("error_during_execution", True)


def test_no_price_notice_never_for_scripted(project, env, tmp_path):
    out = run_edgar(["-p", "hi", "--model",
                     scripted(tmp_path, [{"text": "hi", "model": "llama-x"}])],
                    project, env)
    assert "no price" not in out.stderr
