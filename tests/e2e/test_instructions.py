"""Instruction files through the real binary: what reaches the model, and when."""

from __future__ import annotations

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(tmp_path / "sent.jsonl"))


def test_claude_md_and_the_user_agents_md_reach_the_system_prompt(tmp_path, env):
    project = make_project(tmp_path / "p", {"CLAUDE.md": "Use tabs, never spaces.\n",
                                            "AGENTS.md": "Run make check before finishing.\n"})
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "AGENTS.md").write_text("Answer in British English.\n")
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    system = recorded(tmp_path / "sent.jsonl")[0]["system"]
    for text in ("Use tabs, never spaces.", "Run make check before finishing.",
                 "Answer in British English."):
        assert text in system
    # user-level first, then the project's files in a fixed order
    assert system.index("British") < system.index("make check") < system.index("tabs")


def test_a_symlinked_claude_md_is_given_once(tmp_path, env):
    project = make_project(tmp_path / "p", {"AGENTS.md": "Only once, please.\n"})
    (project / "CLAUDE.md").symlink_to(project / "AGENTS.md")
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    assert run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env).returncode == 0
    assert recorded(tmp_path / "sent.jsonl")[0]["system"].count("Only once, please.") == 1


def test_started_in_a_subdirectory_its_agents_md_is_in_the_system_prompt(tmp_path, env):
    project = make_project(tmp_path / "p", {"AGENTS.md": "root rule\n",
                                            "pkg/AGENTS.md": "package rule\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    assert run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project / "pkg",
                     env).returncode == 0
    system = recorded(tmp_path / "sent.jsonl")[0]["system"]
    assert system.index("root rule") < system.index("package rule")


def test_a_nested_agents_md_arrives_once_after_the_first_read_there(tmp_path, env):
    project = make_project(tmp_path / "p", {"AGENTS.md": "root rule\n",
                                            "web/AGENTS.md": "web: use pnpm\n",
                                            "web/app.js": "x = 1\n", "web/b.js": "y\n"})
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "read", "input": {"path": "web/app.js"}}]},
        {"tool_calls": [{"name": "read", "input": {"path": "web/b.js"}}]},
        {"text": "done"}])
    out = run_edgar(["-p", "look at web", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    sent = recorded(tmp_path / "sent.jsonl")
    assert "web: use pnpm" not in sent[0]["system"]
    # the system prompt is byte-stable: the nested file travels in the conversation
    assert sent[0]["system"] == sent[1]["system"] == sent[2]["system"]
    after_first = [b.get("text", "") for b in sent[1]["messages"][-1]["content"]]
    assert any('<instructions path="web/AGENTS.md">' in t and "use pnpm" in t for t in after_first)
    whole = str(sent[2]["messages"])
    assert whole.count("web: use pnpm") == 1


def test_init_agents_writes_a_starter_and_never_overwrites(tmp_path, env):
    project = make_project(tmp_path / "p", {"package.json": '{"scripts": {"test": "jest", '
                                            '"build": "tsc"}}', "src/index.ts": ""})
    out = run_edgar(["init", "--agents"], project, env)
    assert out.returncode == 0 and "created AGENTS.md" in out.stdout
    text = (project / "AGENTS.md").read_text()
    assert "- Test: `npm test`" in text and "- Build: `npm run build`" in text and "`src/`" in text
    (project / "AGENTS.md").write_text("mine\n")
    out = run_edgar(["init", "--agents"], project, env)
    assert "not overwriting" in out.stdout and (project / "AGENTS.md").read_text() == "mine\n"


def test_a_subagent_gets_the_nested_agents_md_of_a_folder_it_reads(tmp_path, env):
    project = make_project(tmp_path / "p", {"AGENTS.md": "root rule\n",
                                            "web/AGENTS.md": "web: use pnpm\n",
                                            "web/app.js": "x = 1\n"})
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "task", "input": {"prompt": "read web/app.js"}}]},
        {"tool_calls": [{"name": "read", "input": {"path": "web/app.js"}}]},   # the subagent
        {"text": "x is 1"},                                                    # the subagent
        {"tool_calls": [{"name": "read", "input": {"path": "web/app.js"}}]},   # main agent
        {"text": "done"}])
    out = run_edgar(["-p", "what is x", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    sent = recorded(tmp_path / "sent.jsonl")
    assert len(sent) == 5
    sub_first, sub_after_read = sent[1]["messages"], sent[2]["messages"]
    assert sub_first[0]["content"][0]["text"] == "read web/app.js"   # the subagent's history
    told = [b.get("text", "") for b in sub_after_read[-1]["content"]]
    assert any('<instructions path="web/AGENTS.md">' in t and "use pnpm" in t for t in told)
    # the main agent's history is separate: it gets the file itself when it reads there
    assert "use pnpm" not in str(sent[3]["messages"])
    main_told = [b.get("text", "") for b in sent[4]["messages"][-1]["content"]]
    assert any('<instructions path="web/AGENTS.md">' in t for t in main_told)
