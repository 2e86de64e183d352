"""Published Claude Code hooks, run unchanged against edgar: karanb192/claude-code-hooks'
``block-dangerous-commands.js`` and ``protect-secrets.js`` (MIT, vendored byte for byte in
tests/data/claude-code-hooks/karanb192), and hooks equivalent to
disler/claude-code-hooks-mastery's (no licence: tests/support/hooks/mastery.py reads the same
fields). Each is wired the way its README says, with its matcher."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shlex
import shutil
import sys

import pytest
from support.project import REPO, make_project, write_script

from edgar.cli.setup import build
from edgar.config import HookSettings, Settings
from edgar.core.loop import run_turn
from edgar.providers.scripted import ScriptedProvider

KARAN = REPO / "tests" / "data" / "claude-code-hooks" / "karanb192"
MASTERY = REPO / "tests" / "support" / "hooks" / "mastery.py"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
# the vendored files are the published ones (SOURCE.md names the commit)
PUBLISHED = {"block-dangerous-commands.js": "7698", "protect-secrets.js": "15855"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    return make_project(tmp_path / "proj", {"a.txt": "hello\n", ".env": "API=sk-live\n",
                                            "build/out.o": "x\n"})


def node_hook(script: str, matcher: str, env: str = "") -> HookSettings:
    return HookSettings(command=f"{env}node {shlex.quote(str(KARAN / script))}", matcher=matcher)


def run(project, calls, hooks, mode="yes", confirm=None):
    script = write_script(project / f"s{len(ScriptedProvider._shared)}.jsonl",
                          [{"tool_calls": [c]} for c in calls] + [{"text": "ok"}])
    ScriptedProvider._shared.pop(script.resolve(), None)
    app = build(project, Settings(model=f"scripted:{script}", permission_mode=mode, hooks=hooks),
                learning=False, confirm=confirm)

    async def go():
        return await run_turn(app.session, "go")
    try:
        asyncio.run(app.running(go()))
    finally:
        app.close()
    return [b for m in app.session.messages if m.role == "user" for b in m.content
            if getattr(b, "tool_use_id", None)]


def shell(command: str) -> dict:
    return {"name": "shell", "input": {"command": command}}


def read(path: str) -> dict:
    return {"name": "read", "input": {"path": path}}


def test_the_vendored_scripts_are_the_published_bytes():
    for name, size in PUBLISHED.items():
        data = (KARAN / name).read_bytes()
        assert str(len(data)) == size and data.startswith(b"#!/usr/bin/env node")
    assert "MIT License" in (KARAN / "LICENSE").read_text()
    assert hashlib.sha256((KARAN / "block-dangerous-commands.js").read_bytes()).hexdigest()


@needs_node
def test_block_dangerous_commands_blocks_what_it_names_and_lets_the_rest_run(project):
    hooks = {"PreToolUse": [node_hook("block-dangerous-commands.js", "Bash")]}
    home, reset, listing = run(project, [shell("rm -rf ~"), shell("git reset --hard"),
                                         shell("echo fine")], hooks)
    assert home.is_error and "[rm-home] rm targeting home directory" in home.content
    assert reset.is_error and "[git-reset-hard]" in reset.content
    assert not listing.is_error and "fine" in listing.content


@needs_node
def test_its_ask_mode_never_runs_unasked_in_yes_mode(project):
    hooks = {"PreToolUse": [node_hook("block-dangerous-commands.js", "Bash",
                                      env="HOOK_ASK_HIGH=true ")]}
    marker = project / "reset-ran"
    [refused] = run(project, [shell(f"git reset --hard; touch {marker}")], hooks, mode="yes")
    assert refused.is_error and "nobody can confirm" in refused.content
    assert not marker.exists()
    asked: list[str] = []

    async def confirm(tool, summary, offer):
        asked.append(summary)
        return "no"
    [declined] = run(project, [shell(f"git reset --hard; touch {marker}")], hooks, mode="yes",
                     confirm=confirm)
    assert declined.is_error and len(asked) == 1 and not marker.exists()


@needs_node
def test_protect_secrets_guards_dotenv_through_read_and_bash(project):
    hooks = {"PreToolUse": [node_hook("protect-secrets.js", "Read|Edit|Write|Bash")]}
    by_read, by_cat, fine = run(project, [read(".env"), shell("cat .env"), read("a.txt")], hooks)
    assert by_read.is_error and "sk-live" not in by_read.content
    assert by_cat.is_error and "sk-live" not in by_cat.content
    assert not fine.is_error and "hello" in fine.content


def test_the_mastery_equivalents_block_dotenv_and_rm_rf_and_log_every_event(project):
    def hook(event: str) -> HookSettings:
        return HookSettings(command=f"{shlex.quote(sys.executable)} {shlex.quote(str(MASTERY))} "
                                    f"{event}", matcher="")
    events = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart",
              "SessionEnd")
    env, rm, fine = run(project, [read(".env"), shell("rm -rf build"), read("a.txt")],
                        {e: [hook(e)] for e in events})
    assert env.is_error and "BLOCKED: Access to .env files" in env.content
    assert rm.is_error and "Dangerous rm command" in rm.content
    assert (project / "build" / "out.o").exists() and "hello" in fine.content
    logged = {e: json.loads((project / "logs" / f"{e}.json").read_text()) for e in events}
    # as in the original, a call it blocks is not logged: only the read of a.txt is
    assert [(c["tool_name"], c["tool_input"]) for c in logged["PreToolUse"]] == [
        ("Read", {"file_path": str(project / "a.txt")})]
    assert [c["tool_name"] for c in logged["PostToolUse"]] == ["Read"]
    assert logged["UserPromptSubmit"][0]["prompt"] == "go"
    assert logged["Stop"][0]["stop_hook_active"] is False
