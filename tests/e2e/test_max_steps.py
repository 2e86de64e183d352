"""`--max-steps` and the JSON counts of `edgar -p` (ADR-0058), through the real command."""

from __future__ import annotations

import json

import pytest
from support.project import edgar_env, make_project, run_edgar, write_script

TOOL = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}
WARNING = "is deprecated: use"


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj", {"a.txt": "a\n"})


def _run(project, tmp_path, args, steps=3, **env):
    script = write_script(tmp_path / "s.jsonl", [TOOL] * steps + [{"text": "done"}])
    out = run_edgar(["-p", "look", "--model", f"scripted:{script}", "--permission-mode", "yes",
                     "--output-format", "json", *args], project,
                    edgar_env(tmp_path / "home", **env))
    return out, json.loads(out.stdout)


def test_json_counts_steps_and_claude_code_turns(project, tmp_path):
    out, data = _run(project, tmp_path, [])
    assert out.returncode == 0, out.stderr
    assert (data["num_steps"], data["num_turns"]) == (4, 4)   # three tool calls, one answer
    assert out.stderr == ""


def test_max_steps_stops_the_turn_as_claude_code_max_turns_does(project, tmp_path):
    out, data = _run(project, tmp_path, ["--max-steps", "2"])
    assert out.returncode == 1
    assert data["subtype"] == "error_max_turns" and data["is_error"] is True
    assert (data["num_steps"], data["num_turns"]) == (2, 2)
    assert "stopped after max_steps=2 model calls" in out.stderr and WARNING not in out.stderr


def test_the_old_flag_still_works_and_warns_once(project, tmp_path):
    out, data = _run(project, tmp_path, ["--max-turns", "2"])
    assert data["subtype"] == "error_max_turns" and data["num_steps"] == 2
    lines = [line for line in out.stderr.splitlines() if WARNING in line]
    assert lines == ["edgar: --max-turns is deprecated: use --max-steps (the same meaning: "
                     "model calls one turn may make)"]


def test_the_old_variable_still_works_and_warns_once(project, tmp_path):
    out, data = _run(project, tmp_path, [], EDGAR_MAX_TURNS="2")
    assert data["subtype"] == "error_max_turns" and data["num_steps"] == 2
    lines = [line for line in out.stderr.splitlines() if WARNING in line]
    assert lines == ["edgar: EDGAR_MAX_TURNS is deprecated: use EDGAR_MAX_STEPS (the same "
                     "meaning: model calls one turn may make)"]


def test_the_old_key_in_a_config_file_names_its_line(project, tmp_path):
    config = project / ".edgar" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "sonnet"\nmax_turns = 2\n')
    out, data = _run(project, tmp_path, [])
    assert data["num_steps"] == 2
    lines = [line for line in out.stderr.splitlines() if WARNING in line]
    assert lines == [f"edgar: {config}:2: 'max_turns' is deprecated: use 'max_steps' (the same "
                     "meaning: model calls one turn may make)"]
