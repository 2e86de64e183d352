"""Claude Code's hook contract, each decision and field with a real hook process: allow, ask,
updatedInput, additionalContext where Claude Code places it, continue: false, systemMessage,
Stop and SubagentStop that keep the model going, PostToolUseFailure, PreCompact,
Notification, transcript_path, and a per-hook network opt-in."""

from __future__ import annotations

import asyncio
import json
import shlex
import socket
import sys
import threading
from pathlib import Path

import pytest
from support.project import REPO, make_project, write_script

from edgar.cli.setup import build
from edgar.config import HookSettings, Settings
from edgar.core.loop import run_turn
from edgar.events import Event, Notice
from edgar.hooks.config import HookSpec, load_hooks, session_end_budget
from edgar.providers.scripted import ScriptedProvider

HOOK = REPO / "tests" / "support" / "hooks" / "hook.py"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    return make_project(tmp_path / "proj", {"a.txt": "hello\n"})


def hook(mode: str, arg: str = "", matcher: str = "*", **extra) -> HookSettings:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(HOOK))} {mode} {shlex.quote(arg)}"
    return HookSettings(command=command, matcher=matcher, **extra)


def specific(event: str, **fields) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}})


def session(project: Path, lines, hooks, mode="yes", confirm=None):
    script = write_script(project / f"s{len(ScriptedProvider._shared)}.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    app = build(project, Settings(model=f"scripted:{script}", permission_mode=mode, hooks=hooks),
                learning=False, confirm=confirm)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def run(app, *prompts, work=None):
    async def go():
        out = [await run_turn(app.session, p) for p in prompts]
        if work is not None:
            await work(app)
        return out
    try:
        return asyncio.run(app.running(go()))
    finally:
        app.close()


def results(app):
    return [b for m in app.session.messages if m.role == "user" for b in m.content
            if getattr(b, "tool_use_id", None)]


def log(project: Path) -> list[dict]:
    path = project / "hook-log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def said(events, level="warning"):
    return [e.message for e in events if isinstance(e, Notice) and e.level == level]


SHELL = {"name": "shell", "input": {"command": "echo ran > ran.txt"}}


def test_allow_runs_without_asking_in_ask_mode_where_nobody_can_confirm(project):
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}],
                     {"PreToolUse": [hook("print", specific("PreToolUse",
                                                            permissionDecision="allow"))]},
                     mode="ask")
    run(app, "go")
    assert (project / "ran.txt").read_text() == "ran\n"


def test_allow_does_not_lift_a_deny_rule_or_read_only(project):
    allow = {"PreToolUse": [hook("print", specific("PreToolUse", permissionDecision="allow"))]}
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}], allow,
                     mode="read-only")
    run(app, "go")
    assert not (project / "ran.txt").exists() and "read-only" in results(app)[0].content
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}], allow, mode="ask")
    app.session.gate.deny = [
        __import__("edgar.tools.rules", fromlist=["x"]).parse_rule("Bash(echo *)")]
    run(app, "go")
    assert not (project / "ran.txt").exists() and "deny rule" in results(app)[0].content


@pytest.mark.parametrize("answer, ran", [("yes", True), ("no", False)])
def test_ask_asks_even_in_yes_mode(project, answer, ran):
    asked: list[str] = []

    async def confirm(tool, summary, offer):
        asked.append(summary)
        return answer
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}],
                     {"PreToolUse": [hook("print", specific(
                         "PreToolUse", permissionDecision="ask",
                         permissionDecisionReason="double-check"))]}, mode="yes",
                     confirm=confirm)
    run(app, "go")
    assert len(asked) == 1 and "a PreToolUse hook asks" in asked[0]
    assert (project / "ran.txt").exists() is ran


def test_ask_is_refused_where_nobody_can_confirm_never_run(project):
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}],
                     {"PreToolUse": [hook("print", specific("PreToolUse",
                                                            permissionDecision="ask"))]},
                     mode="yes")
    run(app, "go")
    assert not (project / "ran.txt").exists()
    assert "nobody can confirm" in results(app)[0].content


def test_deny_wins_over_ask_and_allow(project):
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}], {"PreToolUse": [
        hook("print", specific("PreToolUse", permissionDecision="allow")),
        hook("print", specific("PreToolUse", permissionDecision="deny",
                               permissionDecisionReason="no echo")),
        hook("print", specific("PreToolUse", permissionDecision="ask"))]})
    run(app, "go")
    assert results(app)[0].content == "refused by a PreToolUse hook: no echo"


def test_updated_input_rewrites_the_call_in_claude_codes_keys(project):
    target = str(project / "b.txt")
    app, _ = session(project, [{"tool_calls": [{"name": "write", "input": {
        "path": "a.txt", "content": "model's\n"}}]}, {"text": "ok"}],
        {"PreToolUse": [hook("print", specific(
            "PreToolUse", permissionDecision="allow",
            updatedInput={"file_path": target, "content": "hook's\n"}), matcher="Write")]})
    run(app, "go")
    assert (project / "b.txt").read_text() == "hook's\n"
    assert (project / "a.txt").read_text() == "hello\n"


def test_updated_input_that_does_not_validate_is_a_validation_error(project):
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}],
                     {"PreToolUse": [hook("print", specific(
                         "PreToolUse", updatedInput={"command": 42}))]})
    run(app, "go")
    assert results(app)[0].is_error and "invalid arguments" in results(app)[0].content
    assert not (project / "ran.txt").exists()


def test_additional_context_reaches_the_model_where_claude_code_puts_it(project):
    hooks = {
        "SessionStart": [hook("print", specific("SessionStart", additionalContext="branch main"))],
        "UserPromptSubmit": [hook("print", "plain stdout is context here")],
        "PreToolUse": [hook("print", specific("PreToolUse", additionalContext="pre note"))],
        "PostToolUse": [hook("print", specific("PostToolUse", additionalContext="post note"))],
    }
    app, _ = session(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                               {"text": "ok"}], hooks)
    run(app, "go")
    first, _assistant, after = app.session.messages[:3]
    assert first.content[0].text == "go"                     # the typed text is untouched
    text = first.text()
    assert "SessionStart hook additional context: branch main" in text
    assert "UserPromptSubmit hook additional context: plain stdout is context here" in text
    assert after.content[0].tool_use_id and "hello" in after.content[0].content
    assert "pre note" in after.text() and "post note" in after.text()
    assert "pre note" not in after.content[0].content        # beside the result, not in it


def test_continue_false_ends_the_turn_and_says_why(project):
    app, events = session(project, [{"tool_calls": [SHELL, SHELL]}, {"text": "never"}],
                          {"PostToolUse": [hook("print", json.dumps(
                              {"continue": False, "stopReason": "build is red"}))]})
    [result] = run(app, "go")
    assert result.outcome == "error" and "build is red" in result.error_message
    first, second = results(app)
    assert not first.is_error and second.content == "not run: a hook stopped the turn"
    assert any("build is red" in m for m in said(events))


def test_system_message_is_shown_to_the_person_only(project):
    app, events = session(project, [{"text": "ok"}], {"UserPromptSubmit": [
        hook("print", json.dumps({"systemMessage": "prompts are logged"}))]})
    run(app, "go")
    assert "hook UserPromptSubmit: prompts are logged" in said(events)
    assert "prompts are logged" not in json.dumps([m.to_json() for m in app.session.messages])


def test_another_exit_code_with_valid_json_lets_the_json_decide(project):
    out = json.dumps({"decision": "block", "reason": "json says no"})
    command = (f"{shlex.quote(sys.executable)} {shlex.quote(str(HOOK))} "
               f"print-exit 1 {shlex.quote(out)}")
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}],
                          {"PreToolUse": [HookSettings(command=command)]})
    run(app, "go")
    assert results(app)[0].content == "refused by a PreToolUse hook: json says no"
    assert said(events) == []      # not a hook error: the JSON was valid


def test_a_stop_block_makes_the_model_go_on_with_stop_hook_active_after(project):
    app, _ = session(project, [{"text": "done?"}, {"text": "now done"}],
                     {"Stop": [hook("block-once", "run the tests first")]})
    [result] = run(app, "go")
    assert result.text == "now done"
    assert "Stop hook feedback:\nrun the tests first" in app.session.messages[2].text()
    first, second = log(project)
    assert first["stop_hook_active"] is False and second["stop_hook_active"] is True
    assert second["last_assistant_message"] == "now done"


def test_a_stop_hook_that_always_blocks_is_overridden_after_8(project):
    app, events = session(project, [{"text": f"try {i}"} for i in range(12)],
                          {"Stop": [hook("block", "never done")]})
    [result] = run(app, "go")
    assert result.text == "try 8" and len(log(project)) == 9
    assert any("8 times in a row" in m for m in said(events))


def test_subagent_stop_keeps_the_subagent_going(project):
    app, _ = session(project, [
        {"tool_calls": [{"name": "task", "input": {"prompt": "look", "description": "d"}}]},
        {"text": "sub first"}, {"text": "sub again"}, {"text": "parent done"}],
        {"SubagentStop": [hook("block-once", "check once more")]})
    run(app, "go")
    [sub_result] = results(app)
    assert sub_result.content == "sub again"
    first = log(project)[0]
    assert first["hook_event_name"] == "SubagentStop" and first["agent_type"]
    assert first["last_assistant_message"] == "sub first"


def test_post_tool_use_failure_fires_for_a_failed_call_only(project):
    app, _ = session(project, [{"tool_calls": [{"name": "read", "input": {"path": "nope.txt"}},
                                               {"name": "read", "input": {"path": "a.txt"}}]},
                               {"text": "ok"}],
                     {"PostToolUseFailure": [hook("record", matcher="Read")]})
    run(app, "go")
    [seen] = log(project)
    assert seen["hook_event_name"] == "PostToolUseFailure" and seen["tool_name"] == "Read"
    assert seen["tool_input"]["file_path"] == str(project / "nope.txt") and seen["error"]


def test_pre_compact_can_refuse_a_manual_compaction(project):
    app, events = session(project, [{"text": "one"}, {"text": "two"}, {"text": "three"}],
                          {"PreCompact": [hook("block", "keep everything", matcher="manual")]})
    app.settings.context.keep_turns = 0

    async def compact(app):
        await app.session.compactor.compact(app.session)
    run(app, "a" * 4000, "b" * 4000, work=compact)
    assert any("a PreCompact hook said no: keep everything" in m for m in said(events))
    seen = log(project)
    assert seen and seen[0]["trigger"] == "manual" and seen[0]["custom_instructions"] == ""


def test_notification_fires_when_a_permission_question_is_asked(project):
    async def confirm(tool, summary, offer):
        return "yes"
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}],
                     {"Notification": [hook("record", matcher="permission_prompt")]}, mode="ask",
                     confirm=confirm)
    run(app, "go")
    [seen] = log(project)
    assert seen["notification_type"] == "permission_prompt" and "Bash" in seen["message"]


def test_transcript_path_is_the_session_in_claude_codes_shape_kept_current(project, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "tok-" + "q" * 30)
    app, _ = session(project, [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
                               {"text": "ok"}],
                     {"PreToolUse": [HookSettings(command="cp \"$(python3 -c 'import json,sys;"
                                                  "print(json.load(sys.stdin)[\"transcript_path\"])')\""
                                                  " seen.jsonl")]})
    run(app, "the token is tok-" + "q" * 30)
    seen = [json.loads(line) for line in (project / "seen.jsonl").read_text().splitlines()]
    # at PreToolUse time the prompt and the model's tool call are already there
    assert [r["type"] for r in seen] == ["user", "assistant"]
    user, assistant = seen
    assert user["sessionId"] == app.session.id and user["parentUuid"] is None
    assert assistant["parentUuid"] == user["uuid"] and assistant["cwd"] == str(project)
    [call] = [b for b in assistant["message"]["content"] if b["type"] == "tool_use"]
    assert call["name"] == "Read" and call["input"] == {"file_path": str(project / "a.txt")}
    assert "q" * 30 not in json.dumps(seen)        # redacted like every file edgar writes
    path = Path(log_path := app.session.transcript.path)
    assert oct(path.stat().st_mode & 0o777) == "0o600" and str(log_path).endswith(".jsonl")


def test_events_claude_code_has_and_edgar_does_not_fire_are_named(tmp_path):
    problems: list[str] = []
    specs = load_hooks(tmp_path, tmp_path, {"PermissionRequest": [{"command": "x"}],
                                            "Nonsense": [{"command": "x"}],
                                            "PreToolUse": [{"command": "x", "matcher": "("}]},
                       problems)
    assert specs == []
    assert any("PermissionRequest is Claude Code's, but edgar does not fire it" in p
               for p in problems)
    assert any("unknown hook event 'Nonsense'" in p for p in problems)
    assert any("not a valid regular expression" in p for p in problems)


def test_timeouts_default_to_claude_codes():
    assert HookSpec("PreToolUse", "x").seconds() == 600
    assert HookSpec("UserPromptSubmit", "x").seconds() == 30
    assert HookSpec("PreToolUse", "x", timeout=5).seconds() == 5
    assert session_end_budget([HookSpec("SessionEnd", "x")]) == 1.5
    assert session_end_budget([HookSpec("SessionEnd", "x", timeout=10)]) == 10
    assert session_end_budget([HookSpec("SessionEnd", "x", timeout=600)]) == 60


class _Listener:
    """A TCP server on the host's loopback: reached only by a process with the network."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            conn.close()


@pytest.mark.parametrize("network", [False, True])
def test_a_hook_gets_the_network_only_when_its_entry_opts_in(project, network):
    from edgar.sandbox.probe import capabilities

    # without a network namespace nothing can withhold the network: a located failure that
    # names the machine's gap, never a skip (only learning tests may skip)
    assert network or capabilities().namespaces is not None, (
        "this machine gives edgar no network namespace, so a hook's network cannot be withheld")
    listener = _Listener()
    probe = (f"{shlex.quote(sys.executable)} -c \"import socket; "
             f"socket.create_connection(('127.0.0.1', {listener.port}), 2)\"")
    app, _ = session(project, [{"text": "ok"}],
                     {"UserPromptSubmit": [HookSettings(command=probe, network=network)]})
    run(app, "go")
    listener.sock.close()
    assert (listener.hits == 1) is network


def test_if_runs_the_hook_only_for_calls_its_rule_matches(project):
    block = hook("block", "no rm")
    guarded = HookSettings(command=block.command, matcher="Bash", **{"if": "Bash(rm *)"})
    app, _ = session(project, [{"tool_calls": [
        {"name": "shell", "input": {"command": "echo a && rm -rf nothing"}},
        {"name": "shell", "input": {"command": "echo fine"}}]}, {"text": "ok"}],
        {"PreToolUse": [guarded], "UserPromptSubmit": [
            HookSettings(command=block.command, **{"if": "Bash(rm *)"})]})
    run(app, "go")
    rm, fine = results(app)
    assert rm.content == "refused by a PreToolUse hook: no rm" and "fine" in fine.content
    assert len(log(project)) == 1      # not for echo, and never outside a tool event


def test_exec_form_runs_the_program_without_a_shell(project):
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}], {"PreToolUse": [
        HookSettings(command=sys.executable,
                     args=[str(HOOK), "block", "$HOME; ${CLAUDE_PROJECT_DIR}"])]})
    run(app, "go")
    # no shell: "$HOME" stays as written; the placeholder is filled in as plain text
    assert results(app)[0].content == f"refused by a PreToolUse hook: $HOME; {project}"
