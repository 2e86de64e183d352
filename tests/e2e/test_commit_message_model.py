"""``[git] commit_message = "model"`` through the real binary (ADR-0111): one more scripted
model call per commit writes the subject and body from the redacted diff, in -p, in
``/commit`` and in the REPL; a failure or a garbage answer falls back to the summary message,
said once; with the default, no model call is made."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.project import edgar_env, recorded, run_edgar, write_script
from test_repl_pty import PROMPT, Terminal

SECRET = "ghp_R8fK2mQ9xLp3ZvT7wR1nB5cY6dH0jE4sA2uV"   # a GitHub token: never sent, never kept
EDIT = {"name": "edit", "input": {"path": "a.txt", "old_string": "base\n",
                                  "new_string": f"new\ntoken = {SECRET}\n"}}
MESSAGE = "Rename base to new in a.txt\n\nThe old name said nothing about the value."


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True,
                          text=True).stdout


def repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "a.txt").write_text("base\n")
    (path / "b.txt").write_text("b\n")
    git(path, "add", ".")
    git(path, "-c", "user.name=Pat", "-c", "user.email=pat@example.com", "commit", "-qm", "init")
    git(path, "config", "user.name", "Pat Person")
    git(path, "config", "user.email", "pat@example.com")
    (path / ".edgar").mkdir()
    (path / ".edgar" / "config.toml").write_text(
        '[git]\nauto_commit = true\ncommit_message = "model"\n')
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return repo(tmp_path / "p")


def turn(tmp_path: Path, project: Path, lines: list[dict], *flags: str,
         prompt: str = "rename the base value") -> tuple[subprocess.CompletedProcess[str],
                                                         list[dict]]:
    record = tmp_path / "requests.jsonl"
    script = write_script(tmp_path / "s.jsonl", lines)
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record))
    out = run_edgar(["-p", prompt, "--model", f"scripted:{script}", "--permission-mode", "yes",
                     *flags], project, env)
    return out, recorded(record)


def last_message(project: Path) -> str:
    return git(project, "log", "-1", "--format=%B")


def test_the_model_writes_the_message_from_the_redacted_diff(tmp_path, project):
    out, sent = turn(tmp_path, project, [{"tool_calls": [EDIT]}, {"text": "done"},
                                         {"text": MESSAGE}], "--output-format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["result"] == "done"           # the message is not the turn's answer
    assert result["commit"] == git(project, "rev-parse", "HEAD").strip()
    message = last_message(project)
    assert message.startswith("Rename base to new in a.txt\n\n"
                              "The old name said nothing about the value.\n\nM a.txt\n\n")
    assert "Edgar-Session: " in message and "Edgar-Turn: " in message
    assert "Edgar-Model: scripted" in message
    assert len(sent) == 3
    asked = sent[2]
    assert asked["tools"] == [] and "commit message" in json.dumps(asked["system"])
    text = json.dumps(asked["messages"])
    assert "diff --git a/a.txt b/a.txt" in text and "+new" in text
    assert "rename the base value" in text
    assert SECRET not in text and SECRET[:12] not in text   # redacted before it was sent
    assert SECRET not in message


def test_default_is_the_summary_and_no_model_call(tmp_path, project):
    (project / ".edgar" / "config.toml").write_text("[git]\nauto_commit = true\n")
    out, sent = turn(tmp_path, project, [{"tool_calls": [EDIT]}, {"text": "done"}])
    assert out.returncode == 0, out.stderr
    assert len(sent) == 2
    assert last_message(project).startswith("rename the base value\n\nM a.txt\n\n")
    assert "Edgar-Model" not in last_message(project)


@pytest.mark.parametrize("answer", [
    {"error": {"status": 529, "message": "overloaded"}},
    {"text": ""},
    {"text": "```diff\ndiff --git a/a.txt b/a.txt\n```"},
    {"text": "x" * 300},
])
def test_a_failure_or_garbage_falls_back_to_the_summary_and_says_so(tmp_path, project, answer):
    out, sent = turn(tmp_path, project, [{"tool_calls": [EDIT]}, {"text": "done"}, answer,
                                         answer, answer, answer, answer, answer])
    assert out.returncode == 0, out.stderr
    message = last_message(project)
    assert message.startswith("rename the base value\n\nM a.txt\n\n"), message
    assert "Edgar-Model" not in message
    assert out.stderr.count("commit message: ") == 1, out.stderr
    assert "the summary message is used instead" in out.stderr
    assert "committed " in out.stderr


def test_p_commit_lets_the_model_write_unless_a_message_is_given(tmp_path, project):
    (project / "a.txt").write_text("changed by me\n")
    out, sent = turn(tmp_path, project, [{"text": "Change a.txt by hand"}], prompt="/commit")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == git(project, "rev-parse", "HEAD").strip()
    assert last_message(project).startswith("Change a.txt by hand\n\nM a.txt\n\n")
    assert len(sent) == 1 and "+changed by me" in json.dumps(sent[0]["messages"])
    (project / "b.txt").write_text("mine\n")
    (tmp_path / "requests.jsonl").unlink()
    out, sent = turn(tmp_path, project, [], prompt="/commit My own words")
    assert out.returncode == 0, out.stderr
    assert sent == []                              # the person's message: no model call
    assert git(project, "log", "-1", "--format=%s").strip() == "My own words"


def test_in_the_repl_a_turn_and_commit_get_the_models_message(tmp_path, project):
    record = tmp_path / "requests.jsonl"
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [EDIT]}, {"text": "done editing"}, {"text": MESSAGE},
        {"text": "Tidy b.txt\n\nBy hand, committed on demand."}])
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record), TERM="xterm")
    term = Terminal([sys.executable, "-m", "edgar", "--model", f"scripted:{script}",
                     "--permission-mode", "yes"], project, env)
    try:
        term.expect(PROMPT)
        term.line("rename the base value")
        term.expect(r"done editing")
        term.expect(r"committed [0-9a-f]{7} 'Rename base to new in a.txt'")
        (project / "b.txt").write_text("tidied\n")
        term.expect(PROMPT)
        term.line("/commit")
        term.expect(r"committed [0-9a-f]{7} 'Tidy b.txt'")
        term.expect(PROMPT)
        term.line("/exit")
        term.wait_exit()
    finally:
        term.kill()
    log = git(project, "log", "-2", "--format=%s|%an")
    assert log.splitlines() == ["Tidy b.txt|Pat Person (edgar)",
                                "Rename base to new in a.txt|Pat Person (edgar)"]
    assert "done editing" not in last_message(project)
    sent = recorded(record)
    assert len(sent) == 4
    assert "+tidied" in json.dumps(sent[3]["messages"])
    assert "Rename base" not in term.text.split("rename the base value", 1)[1].split(
        "committed")[0]   # the message never streamed as the turn's answer
