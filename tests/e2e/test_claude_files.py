"""Claude Code's own files through the real binary: ``~/.claude/CLAUDE.md``, ``CLAUDE.local.md``,
``.claude/CLAUDE.md``, ``CLAUDE.md`` above the project, ``@path`` imports and
``~/.claude/commands`` reach the model where Claude Code would put them (HOME is a temp dir)."""

from __future__ import annotations

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "u"
    home.mkdir()
    return home


@pytest.fixture
def env(tmp_path, home):
    return edgar_env(tmp_path / "edgar-home", HOME=str(home),
                     EDGAR_SCRIPTED_RECORD=str(tmp_path / "sent.jsonl"))


def system_after(tmp_path, project, env, cwd=None):
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], cwd or project, env)
    assert out.returncode == 0, out.stderr
    return recorded(tmp_path / "sent.jsonl")[0]["system"], out.stderr


def test_every_claude_md_variant_loads_in_claude_codes_order(tmp_path, home, env):
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("USER-LEVEL: answer briefly.\n")
    (home / "work").mkdir()
    (home / "work" / "CLAUDE.md").write_text("ABOVE-ROOT: we use uv.\n")
    project = make_project(home / "work" / "p", {
        "CLAUDE.md": "PROJECT: tabs only.\n",
        ".claude/CLAUDE.md": "DOT-CLAUDE: no emojis.\n",
        "CLAUDE.local.md": "LOCAL: my sandbox is at http://localhost:9000.\n"})
    system, _ = system_after(tmp_path, project, env)
    order = ["USER-LEVEL", "ABOVE-ROOT", "PROJECT", "DOT-CLAUDE", "LOCAL"]
    assert [system.index(word) for word in order] == sorted(system.index(w) for w in order)


def test_imports_load_relative_to_the_importing_file_five_hops_deep(tmp_path, home, env):
    files = {"CLAUDE.md": "See @docs/one.md for the rules.\n"}
    names = ["one", "two", "three", "four", "five", "six"]   # CLAUDE.md → one: hop 1 … six: 6
    for i, name in enumerate(names):
        nxt = f"@{names[i + 1]}.md" if i + 1 < len(names) else ""
        files[f"docs/{name}.md"] = f"HOP-{name.upper()} {nxt}\n"
    project = make_project(tmp_path / "p", files)
    system, _ = system_after(tmp_path, project, env)
    for name in names[:5]:
        assert f"HOP-{name.upper()}" in system
    assert "HOP-SIX" not in system


def test_imports_in_code_are_not_imports_and_prose_mentions_are_left_alone(tmp_path, env):
    project = make_project(tmp_path / "p", {
        "CLAUDE.md": "Ask @alice.\nRun `cat @secret.md` never.\n```\n@fenced.md\n```\n@real.md\n",
        "secret.md": "SPAN-IMPORTED\n", "fenced.md": "FENCE-IMPORTED\n",
        "real.md": "REAL-IMPORTED\n"})
    system, stderr = system_after(tmp_path, project, env)
    assert "REAL-IMPORTED" in system
    assert "SPAN-IMPORTED" not in system and "FENCE-IMPORTED" not in system
    assert "alice" not in stderr


def test_a_project_import_leaving_the_project_is_named_and_not_followed(tmp_path, home, env):
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PRIVATE-KEY-TEXT\n")
    (home / "mine.md").write_text("MY-OWN-NOTES\n")
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("@~/mine.md\n")   # the person's own: followed
    project = make_project(tmp_path / "p", {"CLAUDE.md": "Context: @~/.ssh/id_rsa\n"})
    system, stderr = system_after(tmp_path, project, env)
    assert "PRIVATE-KEY-TEXT" not in system
    assert "MY-OWN-NOTES" in system
    assert "CLAUDE.md: @~/.ssh/id_rsa is outside the project" in stderr


def test_a_claude_user_command_runs_in_print_mode(tmp_path, home, env):
    (home / ".claude" / "commands").mkdir(parents=True)
    (home / ".claude" / "commands" / "commit-push-pr.md").write_text(
        "---\nallowed-tools: Bash(echo:*)\ndescription: Commit, push, and open a PR\n---\n"
        "Context: !`echo on-branch-main`\nCreate a commit, push it and open a PR.\n")
    project = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.jsonl", [{"text": "done"}])
    out = run_edgar(["-p", "/commit-push-pr", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    sent = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"]
    body = " ".join(block.get("text", "") for block in sent)
    assert '<command name="commit-push-pr">' in body
    assert "Create a commit, push it and open a PR." in body
    # the person's own command: its ! line ran (its output is there, the line is not)
    assert "on-branch-main" in body and "!`echo" not in body
