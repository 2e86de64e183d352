"""Custom commands through the real binary: Claude Code's .claude/commands files work as is."""

from __future__ import annotations

import json

import pytest

from support.project import edgar_env, make_project, recorded, run_edgar, write_script

REVIEW = """---
description: Review a file with care
argument-hint: FILE [FOCUS]
allowed-tools: Bash(git status:*), Bash(git diff:*)
---
Review $1 closely, focusing on $2.
Always use tabs when you suggest code.
Whole request: $ARGUMENTS
"""


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(tmp_path / "sent.jsonl"))


@pytest.fixture
def project(tmp_path):
    project = make_project(tmp_path / "p", {".claude/commands/review.md": REVIEW,
                                            ".edgar/commands/ops/ship.md": "Ship it now.\n"})
    return project


def stream(out):
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_a_claude_code_command_expands_as_an_attachment_not_as_typed_text(tmp_path, project, env):
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "shell", "input": {"command": "git status"}},
                        {"name": "shell", "input": {"command": "touch made.txt"}}]},
        {"text": "reviewed"}])
    out = run_edgar(["-p", "/review src/app.py error handling", "--model", f"scripted:{script}",
                     "--output-format", "stream-json"], project, env)
    assert out.returncode == 0, out.stderr
    events = stream(out)
    assert [e["text"] for e in events if e["type"] == "PromptTyped"] == [
        "/review src/app.py error handling"]
    attached = [e for e in events if e["type"] == "Attached"]
    assert attached[0]["sources"] == ["/review"]
    sent = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"]
    assert sent[0]["text"] == "/review src/app.py error handling"
    body = sent[1]["text"]
    assert body.startswith('<command name="review">')
    assert "Review src/app.py closely, focusing on error." in body
    assert "Whole request: src/app.py error handling" in body
    # allowed-tools lets `git status` run unasked in -p (ask mode); anything else still asks
    finished = [e for e in events if e["type"] == "ToolFinished"]
    kinds = [f["error"]["kind"] if f["error"] else None for f in finished]
    assert kinds[0] != "denied" and kinds[1] == "denied"   # git ran (.git is a bare marker)
    assert not (project / "made.txt").exists()


def test_nothing_is_learned_from_a_command_body(tmp_path, project, env):
    pytest.importorskip("edgar.learning")  # facts and stats are the learning package's
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}, {"text": "ok"}])
    assert run_edgar(["-p", "/review a.py", "--model", f"scripted:{script}"], project,
                     env).returncode == 0
    listed = run_edgar(["memory", "list"], project, env).stdout
    assert "tabs" not in listed.lower()
    # the control: the same sentence typed is learned, so the check above can fail
    assert run_edgar(["-p", "Always use tabs when you suggest code.", "--model",
                      f"scripted:{script}"], project, env).returncode == 0
    assert "tabs" in run_edgar(["memory", "list"], project, env).stdout.lower()


def test_a_namespaced_command_without_placeholders_gets_its_arguments_appended(tmp_path, project, env):
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    assert run_edgar(["-p", "/ship v1.2", "--model", f"scripted:{script}"], project,
                     env).returncode == 0
    body = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"][1]["text"]
    assert "Ship it now.\n\nARGUMENTS: v1.2" in body


def test_an_unknown_slash_prompt_is_sent_as_typed(tmp_path, project, env):
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    assert run_edgar(["-p", "/nosuch thing", "--model", f"scripted:{script}"], project,
                     env).returncode == 0
    content = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"]
    assert [b["text"] for b in content] == ["/nosuch thing"]
