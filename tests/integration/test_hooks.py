"""User hooks with real commands (small Python scripts) and real exit codes."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from support.project import REPO, make_project, write_script

from edgar.cli.setup import build
from edgar.config import HookSettings, Settings
from edgar.core.loop import run_turn
from edgar.events import Event, Notice, PromptTyped, ToolFinished, TurnFinished
from edgar.providers.scripted import ScriptedProvider

HOOK = REPO / "tests" / "support" / "hooks" / "hook.py"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    return make_project(tmp_path / "proj", {"a.txt": "hello\n", "keep/me.txt": "precious\n"})


def hook(mode: str, arg: str = "", matcher: str = "*", timeout: float = 60.0) -> HookSettings:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(HOOK))} {mode} {shlex.quote(arg)}"
    return HookSettings(command=command, matcher=matcher, timeout=timeout)


def app_for(project: Path, lines, hooks, mode="yes"):
    script = write_script(project / f"script-{len(ScriptedProvider._shared)}.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    app = build(project, Settings(model=f"scripted:{script}", permission_mode=mode, hooks=hooks),
                learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def run(app, *prompts):
    async def go():
        return [await run_turn(app.session, p) for p in prompts]
    return asyncio.run(app.running(go()))


def log(project: Path) -> list[dict]:
    path = project / "hook-log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def results(app):
    return [b for m in app.session.messages if m.role == "user" for b in m.content
            if getattr(b, "tool_use_id", None)]


def warnings(events):
    return [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]


RM = {"name": "shell", "input": {"command": "rm -rf keep"}}


def test_pre_tool_use_exit_2_refuses_the_call_with_the_hooks_stderr(project):
    app, events = app_for(project, [{"tool_calls": [RM]}, {"text": "ok"}],
                          {"PreToolUse": [hook("block", "no rm -rf here", matcher="shell")]})
    [result] = run(app, "clean up")
    assert result.outcome == "ok"
    [refused] = results(app)
    assert refused.is_error and refused.content == "refused by a PreToolUse hook: no rm -rf here"
    assert (project / "keep" / "me.txt").exists()           # it never ran
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.error is not None and finished.error.kind == "denied"
    [seen] = log(project)
    # Claude Code's vocabulary, whatever edgar calls the tool (ADR-0100)
    assert seen["hook_event_name"] == "PreToolUse" and seen["tool_name"] == "Bash"
    assert seen["tool_input"] == {"command": "rm -rf keep"}
    assert seen["session_id"] == app.session.id and seen["cwd"] == str(project)
    assert seen["permission_mode"] == "bypassPermissions" and seen["tool_use_id"]
    assert Path(seen["transcript_path"]).is_file()


@pytest.mark.parametrize("mode", ["json-block", "deny"])
def test_pre_tool_use_json_output_can_block(project, mode):
    app, _ = app_for(project, [{"tool_calls": [RM]}, {"text": "ok"}],
                     {"PreToolUse": [hook(mode, "said no in JSON")]})
    run(app, "go")
    assert results(app)[0].content == "refused by a PreToolUse hook: said no in JSON"
    assert (project / "keep").exists()


@pytest.mark.parametrize("matcher, fires", [
    ("Bash", False), ("Read", True), ("read", True), ("Edit|Write", False), ("Write, Read", True),
    ("Rea", False), ("^R", True), ("R.*", True), ("^Read$", True), ("mcp__.*", False),
    ("", True), ("*", True)])
def test_the_matcher_is_claude_codes_exact_list_or_regex(project, matcher, fires):
    app, _ = app_for(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                               {"text": "ok"}],
                     {"PreToolUse": [hook("block", "no", matcher=matcher)]})
    run(app, "go")
    assert results(app)[0].is_error is fires
    assert ("hello" in results(app)[0].content) is not fires
    assert len(log(project)) == int(fires)


def test_user_prompt_submit_exit_2_keeps_the_prompt_from_the_model(project):
    app, events = app_for(project, [{"text": "never asked"}],
                          {"UserPromptSubmit": [hook("block", "no secrets in prompts")]})
    [result] = run(app, "my password is hunter2")
    assert result.outcome == "blocked" and "no secrets in prompts" in result.error_message
    assert app.session.messages == []                       # nothing was sent or kept
    # the blocked turn still opens and closes (ADR-0077)
    turns = [type(e).__name__ for e in events
             if type(e).__name__ in ("TurnStarted", "TurnFinished")]
    assert turns == ["TurnStarted", "TurnFinished"]
    assert [e.outcome for e in events if isinstance(e, TurnFinished)] == ["blocked"]
    assert any("no secrets in prompts" in m for m in warnings(events))
    assert log(project)[0]["prompt"] == "my password is hunter2"


def test_post_tool_use_stop_and_session_hooks_run_in_order(project):
    hooks = {e: [hook("block" if e == "PostToolUse" else "record", "post says stop")]
             for e in ("SessionStart", "PostToolUse", "Stop", "SessionEnd")}
    app, events = app_for(project, [
        {"tool_calls": [{"name": "write", "input": {"path": "b.txt", "content": "new\n"}}]},
        {"text": "ok"}], hooks)
    [result] = run(app, "write it")
    assert result.outcome == "ok" and (project / "b.txt").read_text() == "new\n"
    seen = log(project)
    assert [s["hook_event_name"] for s in seen] == ["SessionStart", "PostToolUse", "Stop",
                                                    "SessionEnd"]
    post = seen[1]
    assert post["tool_name"] == "Write"
    assert post["tool_input"] == {"file_path": str(project / "b.txt"), "content": "new\n"}
    response = post["tool_response"]
    assert response["success"] is True and response["files"] == ["b.txt"]
    assert response["filePath"] == str(project / "b.txt")
    assert seen[0]["source"] == "startup" and seen[2]["stop_hook_active"] is False
    assert seen[2]["last_assistant_message"] == "ok" and seen[3]["reason"] == "other"
    # PostToolUse cannot undo the write: its exit-2 stderr goes to the model, beside the result
    after = app.session.messages[2]
    assert after.role == "user" and "PostToolUse hook feedback: post says stop" in after.text()
    assert "post says stop" not in " ".join(warnings(events))


@pytest.mark.timing   # asserts how long it took
def test_a_hook_that_hangs_is_killed_at_its_timeout_and_the_call_goes_on(project):
    app, events = app_for(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                                    {"text": "ok"}],
                          {"PreToolUse": [hook("hang", timeout=1.0)]})
    start = time.monotonic()
    run(app, "go")
    assert time.monotonic() - start < 10
    assert "hello" in results(app)[0].content
    [said] = warnings(events)
    assert said.startswith("hook PreToolUse ") and "timed out after 1s and was killed" in said


def test_a_hook_printing_10_mb_costs_a_bounded_reason(project):
    app, events = app_for(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                                    {"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                                    {"text": "ok"}],
                          {"PreToolUse": [hook("flood", "2")]})
    run(app, "go")
    first, second = results(app)
    assert first.is_error and len(first.content) < 2100   # the reason is bounded
    assert second.is_error


def test_a_hook_exiting_137_is_a_warning_and_the_call_runs(project):
    app, events = app_for(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                                    {"text": "ok"}],
                          {"PreToolUse": [hook("exit", "137")]})
    run(app, "go")
    assert "hello" in results(app)[0].content
    [said] = warnings(events)
    assert said.startswith("hook PreToolUse ") and "exited 137: exiting 137" in said


def test_a_hook_that_does_not_exist_is_a_warning(project):
    app, events = app_for(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                                    {"text": "ok"}],
                          {"PreToolUse": [HookSettings(command="/no/such/hook")]})
    run(app, "go")
    assert "hello" in results(app)[0].content
    [said] = warnings(events)
    assert "exited 127" in said


def test_hooks_see_no_secret_of_edgars_environment(project, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
    probe = (f"{shlex.quote(sys.executable)} -c \"import os,sys; "
             "sys.exit(2 if 'ANTHROPIC_API_KEY' in os.environ else 0)\"")
    app, _ = app_for(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                               {"text": "ok"}], {"PreToolUse": [HookSettings(command=probe)]})
    run(app, "go")
    assert "hello" in results(app)[0].content


@pytest.mark.parametrize("trusted", [False, True])
def test_project_hooks_wait_for_trust(project, trusted):
    from edgar.config import load
    from edgar.config.trust import trust

    (project / ".edgar").mkdir(exist_ok=True)
    (project / ".edgar" / "config.toml").write_text(
        f"[[hooks.PreToolUse]]\ncommand = '{sys.executable} {HOOK} block nope'\n")
    if trusted:
        trust(project)
    settings = load(project)
    script = write_script(project / "s.jsonl", [{"tool_calls": [RM]}, {"text": "ok"}])
    settings.model, settings.permission_mode = f"scripted:{script}", "yes"
    ScriptedProvider._shared.pop(script.resolve(), None)
    app = build(project, settings, learning=False)
    run(app, "go")
    assert (project / "keep").exists() is trusted     # only a trusted project's hook blocks
    assert (results(app)[0].content == "refused by a PreToolUse hook: nope") is trusted


def test_the_repl_asks_the_hook_before_publishing_typed_and_queued_lines(project):
    """submit(): a refused line, typed or queued, is never a PromptTyped (ADR-0077)."""
    from unit.test_slash import Said

    from edgar.cli.asker import Asker, Screen
    from edgar.cli.repl import Repl

    app, events = app_for(project, [{"text": "never asked"}],
                          {"UserPromptSubmit": [hook("block", "not this one")]})
    said, screen = Said(), Screen()
    repl = Repl(said, app, Asker(said.say, screen), screen)

    async def go():
        await repl.submit("always use tabs")            # idle: would start a turn
        while repl.foreground is not None and not repl.foreground.done():
            await asyncio.sleep(0.01)
        gate = asyncio.Event()

        async def busy():
            await gate.wait()
        repl.run_foreground(busy())                     # a turn runs: the next line is queued
        await repl.submit("always use spaces")
        gate.set()
        await asyncio.sleep(0.05)
    asyncio.run(app.running(go()))
    assert not [e for e in events if isinstance(e, PromptTyped)]
    assert [e.outcome for e in events if isinstance(e, TurnFinished)] == ["blocked"]
    assert len(app.session.queue) == 0                  # the refused line was not queued
    assert [entry["prompt"] for entry in log(project)] == ["always use tabs", "always use spaces"]
    assert any("not queued" in str(line) for line in said.lines)
