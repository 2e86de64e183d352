"""Every stop reason has an outcome: the real loop, a real provider, recorded streams on the
loopback server (docs/providers.md lists the table these tests check)."""

from __future__ import annotations

import asyncio

import pytest
from support.project import make_project
from support.sse_server import stream

from edgar.cli.setup import build
from edgar.config import Settings
from edgar.core.loop import run_turn
from edgar.events import Event, ToolProposed, TurnFinished


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    return make_project(tmp_path / "proj", {"a.txt": "hello\n", "notes.txt": "keep me\n"})


def run(project, model, prompt="go"):
    app = build(project, Settings(model=model, permission_mode="yes"), learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)

    async def go():
        try:
            return await run_turn(app.session, prompt)
        finally:
            await app.session.provider.aclose()

    return asyncio.run(go()), events, app


SONNET = "anthropic:claude-sonnet-4-5"


def test_end_turn_is_ok(server, provider_env, project):
    server.anthropic(stream("anthropic_text"))
    result, _, _ = run(project, SONNET)
    assert result.outcome == "ok" and result.text == "Hello, world!"


def test_max_tokens_in_a_tool_call_runs_nothing_and_names_the_setting(server, provider_env,
                                                                      project):
    server.anthropic(stream("anthropic_max_tokens_tool"))
    result, events, app = run(project, SONNET)
    assert result.outcome == "error"
    assert result.error.kind == "output_limit"
    assert "max_tokens = 8192" in result.error_message
    assert "providers.anthropic.max_tokens" in result.error_message
    assert "1 tool call in it were not run" in result.error_message
    assert not any(isinstance(e, ToolProposed) for e in events)
    assert (project / "notes.txt").read_text() == "keep me\n"
    assert len(server.requests) == 1
    # the conversation stays valid: the cut call has an error result
    last = app.session.messages[-1]
    assert last.role == "user" and last.content[0].is_error
    assert result.text == "Let me do that for you now."


def test_openai_length_on_text_is_an_error_not_success(server, provider_env, project):
    server.openai(stream("openai_length"))
    result, _, _ = run(project, "openai:gpt-4.1")
    assert result.outcome == "error" and "stop reason length" in result.error_message
    assert "providers.openai.max_tokens" in result.error_message


@pytest.mark.parametrize("kind,name,model", [
    ("anthropic", "anthropic_refusal", SONNET),
    ("openai", "openai_refusal", "openai:gpt-4.1"),
])
def test_a_refusal_is_shown_and_ends_the_turn_in_error(server, provider_env, project, kind,
                                                       name, model):
    server.script(f"/v1/{'messages' if kind == 'anthropic' else 'chat/completions'}", stream(name))
    result, events, _ = run(project, model)
    assert result.outcome == "error" and result.error.kind == "refusal"
    assert "declined" in result.error_message
    assert "can't" in result.text
    (end,) = [e for e in events if isinstance(e, TurnFinished)]
    assert end.outcome == "error"


def test_pause_turn_sends_the_response_back_and_goes_on(server, provider_env, project):
    server.anthropic(stream("anthropic_pause_turn"), stream("anthropic_text"))
    result, _, _ = run(project, SONNET)
    assert result.outcome == "ok" and result.text == "Hello, world!"
    first, second = server.requests
    assert second.body["messages"][-1] == {"role": "assistant", "content": [
        {"type": "text", "text": "Still working on it.", "cache_control": {"type": "ephemeral"}}]}
    assert second.body["messages"][:-1] == first.body["messages"]


def test_thinking_and_blank_text_replayed_as_received(server, provider_env, project):
    server.anthropic(stream("anthropic_thinking_blocks_tool"), stream("anthropic_text"))
    result, _, _ = run(project, SONNET)
    assert result.outcome == "ok"
    assistant = server.requests[1].body["messages"][1]
    assert assistant["content"] == [
        {"type": "thinking", "thinking": "First thought.", "signature": "SigOne/AAAA=="},
        {"type": "redacted_thinking",
         "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
        {"type": "thinking", "thinking": "Second thought.", "signature": "SigTwo/BBBB=="},
        {"type": "tool_use", "id": "toolu_01Think", "name": "read", "input": {"path": "a.txt"}}]


def test_a_session_restored_from_its_log_replays_thinking_blocks(server, provider_env, project):
    from edgar.core.sessionlog import load

    server.anthropic(stream("anthropic_thinking_blocks_tool"), stream("anthropic_text"))
    _, _, app = run(project, SONNET)
    restored = load(app.session.log.path)
    kinds = [b.type for b in restored.messages[1].content]
    assert kinds == ["thinking", "redacted_thinking", "thinking", "tool_use"]


def test_no_usage_makes_the_turn_cost_unknown(server, provider_env, project):
    server.openai(stream("openai_no_usage"))
    result, _, _ = run(project, "openai:gpt-4.1")
    assert result.outcome == "ok" and result.cost is None
    assert result.usage.reported is False


def test_usage_of_a_failed_call_is_kept_in_the_turn(server, provider_env, project):
    from support.sse_server import anthropic_event, recording

    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.anthropic(stream(recording("anthropic_text")[:5]
                            + [anthropic_event("error", overloaded)]))
    result, _, _ = run(project, SONNET)
    assert result.outcome == "error"
    assert result.usage.input_tokens == 25 and result.steps == 1
    assert result.cost == pytest.approx((25 * 3 + 1 * 15) / 1e6)


def test_a_wrong_typed_field_ends_the_turn_in_error_and_its_row_is_kept(server, provider_env,
                                                                         project):
    from support.sse_server import anthropic_event

    start = anthropic_event("message_start", {"message": {"model": "claude-sonnet-4-6",
                                                          "usage": {"input_tokens": 7}}})
    bad = anthropic_event("content_block_start", {"index": 0, "content_block": {
        "type": "tool_use", "id": "t", "name": 7, "input": {}}})
    server.anthropic(stream([start, bad]))
    result, events, _ = run(project, SONNET)
    assert result.outcome == "error"
    assert "content_block_start.content_block.name" in result.error_message
    assert not any(isinstance(e, ToolProposed) for e in events)
    (end,) = [e for e in events if isinstance(e, TurnFinished)]
    assert end.outcome == "error" and end.error.kind == "provider_http"
    assert result.usage.input_tokens == 7   # what the call had reported is kept


def test_openrouter_usage_accounting_gives_cost_and_cache_reads(server, provider_env, project):
    server.openai(stream("openai_openrouter_usage"))
    result, _, _ = run(project, "openai:z-ai/glm-9-unlisted")
    assert result.outcome == "ok"
    assert (result.usage.input_tokens, result.usage.cache_read_tokens) == (1104, 4096)
    assert result.cost == pytest.approx(0.00123)   # no price in the table: the server's figure
