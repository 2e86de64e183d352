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
    assert run_edgar(["trust"], project, env).returncode == 0   # allowed-tools widen: trust first
    out = run_edgar(["-p", "/review src/app.py error handling", "--model", f"scripted:{script}",
                     "--output-format", "edgar-events"], project, env)
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


def test_a_namespaced_command_without_placeholders_gets_its_arguments_appended(
        tmp_path, project, env):
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


CONTEXT = """---
description: Summarise with context
allowed-tools: Bash(echo:*), Bash(touch:*)
---
Notes: @notes.txt
Said: !`echo Always use tabs for $1`
Made: !`touch ran.txt`
Summarise $ARGUMENTS.
"""


def events_of(out, kind):
    return [e for e in stream(out) if e["type"] == kind]


def test_bang_commands_run_in_the_turn_and_at_files_are_attached(tmp_path, env):
    project = make_project(tmp_path / "p", {".claude/commands/ctx.md": CONTEXT,
                                            "notes.txt": "alpha beta\n"})
    assert run_edgar(["trust"], project, env).returncode == 0
    script = write_script(tmp_path / "s.jsonl", [{"text": "summarised"}])
    out = run_edgar(["-p", "/ctx code", "--model", f"scripted:{script}",
                     "--output-format", "edgar-events"], project, env)
    assert out.returncode == 0, out.stderr
    assert (project / "ran.txt").exists()            # the !`touch` ran, in the project
    events = stream(out)
    kinds = [e["type"] for e in events]
    # typed: the line only; the shell calls are ordinary tool calls inside the turn
    assert [e["text"] for e in events if e["type"] == "PromptTyped"] == ["/ctx code"]
    assert kinds.index("TurnStarted") < kinds.index("ToolProposed") < kinds.index("ModelResponded")
    proposed = [e["args"]["command"] for e in events if e["type"] == "ToolProposed"]
    assert proposed == ["echo Always use tabs for code", "touch ran.txt"]
    assert all(e["ok"] for e in events if e["type"] == "ToolFinished")
    attached = [e for e in events if e["type"] == "Attached"]
    assert attached[-1]["sources"] == ["/ctx", "@notes.txt"]
    content = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"]
    assert content[0]["text"] == "/ctx code"
    body = content[1]["text"]
    assert "Said: Always use tabs for code" in body and "!`" not in body
    assert "Summarise code." in body
    assert (content[2]["text"].startswith('<file path="notes.txt">')
            and "alpha beta" in content[2]["text"])


def test_nothing_is_learned_from_a_bang_commands_output(tmp_path, env):
    pytest.importorskip("edgar.learning")  # facts are the learning package's
    project = make_project(tmp_path / "p", {".claude/commands/ctx.md": CONTEXT,
                                            "notes.txt": "alpha\n"})
    assert run_edgar(["trust"], project, env).returncode == 0
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "/ctx code", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    assert "Said: Always use tabs for code" in str(recorded(tmp_path / "sent.jsonl")[0])
    assert "tabs" not in run_edgar(["memory", "list"], project, env).stdout.lower()


def test_an_untrusted_projects_bang_commands_do_not_run_and_it_says_why(tmp_path, env):
    project = make_project(tmp_path / "p", {".claude/commands/ctx.md": CONTEXT,
                                            "notes.txt": "alpha\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}, {"text": "ok"}])
    out = run_edgar(["-p", "/ctx code", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    assert not (project / "ran.txt").exists()
    assert "/ctx: !`touch ran.txt` not run: this project is not trusted" in out.stderr
    assert "allowed-tools ignored" in out.stderr
    body = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"][1]["text"]
    assert "[!`touch ran.txt` was not run: this project is not trusted" in body
    assert "Always use tabs for code" not in body.replace("!`echo Always use tabs for code`", "")
    # the control: trusted, the same command runs
    assert run_edgar(["trust"], project, env).returncode == 0
    assert run_edgar(["-p", "/ctx code", "--model", f"scripted:{script}"], project,
                     env).returncode == 0
    assert (project / "ran.txt").exists()
    # a changed command file needs trust again
    (project / "ran.txt").unlink()
    (project / ".claude/commands/ctx.md").write_text(CONTEXT + "More.\n")
    script = write_script(tmp_path / "s2.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "/ctx code", "--model", f"scripted:{script}"], project, env)
    assert not (project / "ran.txt").exists() and "not trusted" in out.stderr


def test_a_bang_command_needs_an_allowed_tools_rule_and_the_deny_rules_still_win(tmp_path, env):
    body = ("---\nallowed-tools: Bash(echo:*)\n---\nA: !`echo one`\nB: !`echo two; touch x`\n"
            "C: !`ls`\n")
    project = make_project(tmp_path / "p", {".edgar/commands/c.md": body})
    assert run_edgar(["trust"], project, env).returncode == 0
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}, {"text": "ok"}])
    out = run_edgar(["-p", "/c", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    sent = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"][1]["text"]
    assert "A: one" in sent and not (project / "x").exists()
    assert ("B: [!`echo two; touch x` was not run: allowed-tools never covers a command "
            "that chains") in sent
    assert "C: [!`ls` was not run: allowed-tools has no Bash/shell rule for it]" in sent
    assert "!`ls` not run: allowed-tools has no Bash/shell rule" in out.stderr
    # the person's deny rule wins over the command's allowed-tools, as for any shell call
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / "config.toml").write_text('[permissions]\ndeny = ["shell(echo one*)"]\n')
    out = run_edgar(["-p", "/c", "--model", f"scripted:{script}"], project, env)
    sent = recorded(tmp_path / "sent.jsonl")[1]["messages"][-1]["content"][1]["text"]
    assert "A: shell is refused by the deny rule `shell(echo one*)`" in sent
    assert "refused shell echo one" in out.stderr


def test_the_persons_own_command_runs_its_bang_without_project_trust(tmp_path, env):
    home = tmp_path / "home"
    (home / "commands").mkdir(parents=True)
    (home / "commands" / "mine.md").write_text("---\nallowed-tools: Bash(echo:*)\n---\n"
                                               "Mine: !`echo from-my-own-command`\n")
    project = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "/mine", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    sent = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"][1]["text"]
    assert "Mine: from-my-own-command" in sent


def test_an_at_file_outside_the_project_refuses_the_command(tmp_path, env):
    (tmp_path / "secret.txt").write_text("outside\n")
    project = make_project(tmp_path / "p", {".claude/commands/leak.md": "See @../secret.txt\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "/leak", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 2
    assert "@../secret.txt: outside the project root" in out.stderr
    assert recorded(tmp_path / "sent.jsonl") == []


def test_a_typed_at_path_in_the_arguments_is_attached_once(tmp_path, env):
    project = make_project(tmp_path / "p", {".edgar/commands/cmp.md": "Compare @a.txt with $1.\n",
                                            "a.txt": "first\n", "b.txt": "second\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "/cmp @b.txt", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    content = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"]
    texts = [b["text"] for b in content]
    assert texts[0] == "/cmp @b.txt"
    assert [t.split("\n")[0] for t in texts[1:]] == [
        '<file path="b.txt">', '<command name="cmp">', '<file path="a.txt">']
    assert "Compare @a.txt with @b.txt." in texts[2]
