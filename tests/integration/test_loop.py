"""The real turn loop, in-process, against the scripted provider."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.project import make_project, write_script

from edgar.cli.setup import build
from edgar.config import Settings
from edgar.core.loop import run_turn
from edgar.core.sessionlog import load
from edgar.events import Event, ModelResponded, TextDelta, ToolFinished, TurnFinished, TurnStarted
from edgar.providers.scripted import ScriptedProvider


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    return make_project(tmp_path / "proj", {"a.txt": "hello\n"})


def app_for(project: Path, lines, **settings):
    script = write_script(project / f"script-{len(ScriptedProvider._shared)}.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    app = build(project, Settings(model=f"scripted:{script}", permission_mode="yes", **settings),
                learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def turn(app, text="go"):
    return asyncio.run(run_turn(app.session, text))


def test_text_tools_and_exactly_one_turn_finished(project):
    app, events = app_for(project, [
        {"text": "Reading. ", "tool_calls": [{"name": "read", "input": {"path": "a.txt"}}],
         "usage": {"input_tokens": 10, "output_tokens": 2}, "model": "claude-sonnet-4-5"},
        {"text": "It says hello.", "usage": {"input_tokens": 20, "output_tokens": 3}},
    ])
    result = turn(app)
    assert result.outcome == "ok" and result.text == "It says hello."
    assert [type(e) for e in events].count(TurnFinished) == 1
    assert [type(e) for e in events].count(TurnStarted) == 1
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Reading. It says hello."
    assert result.usage.input_tokens == 30 and result.steps == 2
    assert [e.model for e in events if isinstance(e, ModelResponded)] == ["claude-sonnet-4-5"] * 2
    assert result.cost is not None and result.cost > 0
    # the tool result went back to the model as the next user message
    assert app.session.messages[2].content[0].content.endswith("hello")


def test_a_subagent_runs_at_depth_plus_one_and_returns_its_text(project):
    app, events = app_for(project, [
        {"tool_calls": [{"name": "task", "input": {"prompt": "always obey me; list files"}}]},
        {"tool_calls": [{"name": "glob", "input": {"pattern": "*.txt"}}]},   # the subagent
        {"text": "found a.txt"},                                             # subagent's answer
        {"text": "The subagent found a.txt."},
    ])
    result = turn(app)
    assert result.outcome == "ok"
    depths = {(type(e).__name__, e.depth) for e in events}
    assert ("ToolFinished", 1) in depths and ("TurnFinished", 1) in depths
    finished0 = [e for e in events if isinstance(e, TurnFinished) and e.depth == 0]
    assert len(finished0) == 1
    task_result = app.session.messages[2].content[0]
    assert task_result.content == "found a.txt" and not task_result.is_error
    assert len(app.session.messages) == 4  # the subagent's history is its own


def test_a_failing_subagent_is_an_error_record_and_the_turn_goes_on(project):
    app, events = app_for(project, [
        {"tool_calls": [{"name": "task", "input": {"prompt": "x"}}]},
        {"error": {"status": 500, "message": "boom"}},          # the subagent's model call fails
        {"text": "The subagent failed; stopping."},
    ])
    result = turn(app)
    assert result.outcome == "ok"
    failed = [e for e in events if isinstance(e, ToolFinished) and e.depth == 0]
    assert failed[0].error.kind == "subagent_failed"


def test_provider_error_mid_stream_keeps_partial_text(project):
    app, events = app_for(project, [
        {"text": "I will now explain everything in detail",
         "error": {"status": 529, "message": "overloaded", "after_chars": 10}},
    ])
    result = turn(app)
    assert result.outcome == "error" and result.error.kind == "provider_http"
    assert result.error.exit_code == 529
    assert result.text.startswith("I will")
    assert app.session.messages[-1].role == "assistant"
    logged = load(app.session.log.path).messages
    assert logged[-1].text().startswith("I will")
    assert [type(e) for e in events].count(TurnFinished) == 1


def test_cancel_mid_stream_keeps_partial_text_and_finishes_once(project):
    app, events = app_for(project,
                          [{"text": "one two three four five six seven eight", "delay_s": 4}])

    async def scenario():
        task = asyncio.create_task(run_turn(app.session, "go"))
        while not any(isinstance(e, TextDelta) for e in events):
            await asyncio.sleep(0.01)
        task.cancel()
        return await task

    result = asyncio.run(scenario())
    assert result.outcome == "cancelled" and result.text.startswith("one")
    finished = [e for e in events if isinstance(e, TurnFinished)]
    assert len(finished) == 1 and finished[0].outcome == "cancelled"


def test_cancel_during_a_tool_kills_it_and_closes_the_tool_use(project):
    app, events = app_for(project,
                          [{"tool_calls": [{"name": "shell", "input": {"command": "sleep 20"}}]}])

    async def scenario():
        task = asyncio.create_task(run_turn(app.session, "go"))
        await asyncio.sleep(0.5)
        task.cancel()
        return await task

    result = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert result.outcome == "cancelled"
    assert [e.error.kind for e in events if isinstance(e, ToolFinished)] == ["cancelled"]
    last = app.session.messages[-1]
    assert last.role == "user" and last.content[0].is_error


def test_max_steps_is_an_error(project):
    app, _ = app_for(project, [{"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}] * 3,
                     max_steps=2)
    result = turn(app)
    assert result.outcome == "error" and result.error.kind == "max_turns"  # kind: ADR-0058
    assert (result.steps, result.loop_steps) == (2, 2)
    assert result.error_message == "stopped after max_steps=2 model calls"


def test_running_out_of_script_is_a_clear_error(project):
    app, _ = app_for(project, [])
    result = turn(app)
    assert result.outcome == "error" and "no more responses" in result.error_message


def test_queued_lines_are_delivered_as_one_burst_at_the_next_pause(project):
    record = project / "rec.jsonl"
    import os
    os.environ["EDGAR_SCRIPTED_RECORD"] = str(record)
    try:
        app, events = app_for(project, [
            {"tool_calls": [{"name": "shell", "input": {"command": "true"}}]},
            {"text": "ok"},
        ])
        app.session.queue.put("also check b")
        app.session.queue.put("and c")
        result = turn(app)
    finally:
        del os.environ["EDGAR_SCRIPTED_RECORD"]
    assert result.outcome == "ok"
    from support.project import recorded
    second = recorded(record)[1]["messages"][-1]
    texts = [b.get("text") for b in second["content"] if b["type"] == "text"]
    assert texts == ["also check b\nand c"]
    assert any(type(e).__name__ == "QueueDelivered" and e.count == 2 for e in events)
