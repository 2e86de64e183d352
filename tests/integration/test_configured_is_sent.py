"""What is configured is what is sent (issue 25, item 4): max_tokens and thinking from config
reach the request the loop makes, a whole JSON message answering a streaming request is read as
that message, a context-window refusal compacts once and retries, and a retiring model is said
on every run. Real providers against the loopback server; bodies checked against the SDKs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from support.project import edgar_env, make_project, run_edgar
from support.provider_fakes import SHELL
from support.sse_server import Reply, stream

from edgar.cli.oneshot import run_prompt
from edgar.cli.setup import build
from edgar.config import ConfigError, ProviderSettings, Settings, load
from edgar.conversation import Message, TextBlock
from edgar.core.compaction import HEADER
from edgar.events import Event, Notice
from edgar.providers import start_notes
from edgar.providers.base import ProviderError, TextChunk, ToolCall


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    return make_project(tmp_path / "proj", {"a.txt": "hello\n"})


def one_prompt(project: Path, model: str, prompt: str = "hi",
               history: list[Message] | None = None, **provider) -> tuple[int, list[Event]]:
    settings = Settings(model=model, permission_mode="yes",
                        providers={"anthropic": ProviderSettings(retry_backoff=0.01, **provider)})
    app = build(project, settings, history=history)
    seen: list[Event] = []
    app.observe(seen.append)

    async def go() -> int:
        try:
            return await run_prompt(app, prompt, fmt="quiet")
        finally:
            await app.session.provider.aclose()
    try:
        return asyncio.run(app.running(go())), seen
    finally:
        app.close()


def test_max_tokens_and_thinking_budget_from_config_reach_the_loops_request(
        server, provider_env, project):
    # before: the loop asked for 8192 whatever was set, and a budget >= 8192 vanished
    server.anthropic(stream("anthropic_text"))
    code, _ = one_prompt(project, "anthropic:claude-sonnet-4-5", max_tokens=32000,
                         thinking_budget=16000)
    assert code == 0
    (body,) = server.bodies()
    assert body["max_tokens"] == 32000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16000}


def test_adaptive_thinking_is_sent_as_configured(server, provider_env, project):
    server.anthropic(stream("anthropic_text"))
    code, _ = one_prompt(project, "anthropic:claude-sonnet-4-6", thinking="adaptive")
    assert code == 0
    (body,) = server.bodies()
    assert body["thinking"] == {"type": "adaptive"}
    assert body["max_tokens"] == 8192    # the documented default, now from the config


def test_adaptive_thinking_for_a_model_without_it_is_a_usage_error(make):
    with pytest.raises(ProviderError) as caught:
        make("anthropic", model="claude-sonnet-4-5", thinking="adaptive")
    assert caught.value.usage_error
    assert "claude-sonnet-4-5" in caught.value.message and "thinking_budget" in caught.value.message


def test_thinking_settings_that_contradict_each_other_are_located(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    root = make_project(tmp_path / "p")
    config = root / ".edgar" / "config.toml"
    config.parent.mkdir()
    config.write_text('[providers.anthropic]\nthinking = "adaptive"\nthinking_budget = 2048\n')
    with pytest.raises(ConfigError) as caught:
        load(root)
    assert f"{config}:" in str(caught.value) and "thinking_budget = 2048" in str(caught.value)


def test_a_fixed_budget_the_sdk_deprecates_is_said_at_the_start(make):
    provider = make("anthropic", model="claude-opus-4-6", thinking_budget=2048)
    notes = start_notes(provider)
    assert any('thinking = "adaptive"' in n and "claude-opus-4-6" in n for n in notes)
    assert start_notes(make("anthropic", model="claude-opus-4-6", thinking="adaptive")) == []


MESSAGE = {"id": "msg_mock", "type": "message", "role": "assistant",
           "model": "claude-sonnet-4-5-20250929",
           "content": [{"type": "text", "text": "This is a mock request"},
                       {"type": "tool_use", "id": "toolu_1", "name": "shell",
                        "input": {"command": "ls"}}],
           "stop_reason": "tool_use", "stop_sequence": None,
           "usage": {"input_tokens": 10, "output_tokens": 5}}


def test_a_whole_json_message_to_a_streaming_request_is_that_message(server, make, collect,
                                                                      last, request_of):
    # LiteLLM's mock_response answers a streaming request with a 200 JSON Message
    server.anthropic(Reply(json=MESSAGE))
    events, error = collect(make("anthropic"), request_of(tools=(SHELL,)))
    assert error is None
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "This is a mock request"
    assert [e for e in events if isinstance(e, ToolCall)] == [
        ToolCall("toolu_1", "shell", {"command": "ls"})]
    done = last(events)
    assert done.stop_reason == "tool_use" and done.usage.output_tokens == 5
    assert len(server.requests) == 1     # read, not retried (a proxy bills each retry)


def test_a_whole_chat_completion_to_a_streaming_request_is_that_message(server, make, collect,
                                                                         last):
    completion = {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1",
                  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                      "role": "assistant", "content": "Looking.",
                      "tool_calls": [{"id": "call_1", "type": "function", "function": {
                          "name": "shell", "arguments": "{\"command\": \"ls\"}"}}]}}],
                  "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}}
    server.openai(Reply(json=completion))
    events, error = collect(make("openai"))
    assert error is None
    assert [e.text for e in events if isinstance(e, TextChunk)] == ["Looking."]
    assert [e for e in events if isinstance(e, ToolCall)] == [
        ToolCall("call_1", "shell", {"command": "ls"})]
    assert last(events).stop_reason == "tool_use"
    assert len(server.requests) == 1


def test_a_200_error_object_is_still_an_error(server, make, collect):
    server.openai(Reply(json={"object": "error", "message": "model overloaded", "code": 503}))
    events, error = collect(make("openai", max_retries=0))
    assert error is not None and error.status == 503


TOO_LONG = Reply(status=400, json={"type": "error", "error": {
    "type": "invalid_request_error",
    "message": "prompt is too long: 212345 tokens > 200000 maximum"}})


def history(turns: int) -> list[Message]:
    out: list[Message] = []
    for n in range(turns):
        out += [Message("user", [TextBlock(f"question {n}: " + "words " * 400)]),
                Message("assistant", [TextBlock(f"answer {n}: " + "more " * 400)])]
    return out


def test_a_context_window_refusal_compacts_once_and_retries(server, provider_env, project):
    summary = [f"event: {k}\ndata: {json.dumps(d)}\n\n" for k, d in (
        ("message_start", {"type": "message_start", "message": {
            "id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [], "usage": {"input_tokens": 100, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": "- they asked things"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}))]
    server.anthropic(TOO_LONG, Reply(events=summary), stream("anthropic_text"))
    code, seen = one_prompt(project, "anthropic:claude-sonnet-4-5", "go on", history=history(4))
    assert code == 0
    first, summarise, retried = server.bodies()
    assert len(first["messages"]) == 9
    assert "<conversation>" in summarise["messages"][0]["content"][0]["text"]
    assert retried["messages"][0]["content"][0]["text"].startswith(HEADER.strip()[:40])
    assert len(retried["messages"]) < len(first["messages"])
    said = [e.message for e in seen if isinstance(e, Notice)]
    assert any("longer than the model's context window: compacting" in m for m in said)


def test_a_second_context_window_refusal_ends_the_turn(server, provider_env, project):
    server.anthropic(TOO_LONG, stream("anthropic_text"), TOO_LONG)
    code, _ = one_prompt(project, "anthropic:claude-sonnet-4-5", "go on", history=history(4))
    assert code == 1
    assert len(server.requests) == 3     # the refusal, the summary, the one retry: no more


def test_a_retired_model_is_said_on_every_run(server, tmp_path):
    root = make_project(tmp_path / "proj")
    env = edgar_env(tmp_path / "home", ANTHROPIC_API_KEY="sk-ant-test-0123456789abcdef",
                    ANTHROPIC_BASE_URL=server.url)
    for _ in range(2):
        server.anthropic(stream("anthropic_text"))
        done = run_edgar(["-p", "hi", "--model", "claude-sonnet-4-5"], root, env)
        assert done.returncode == 0, done.stderr
        assert "claude-sonnet-4-5 reached its end of life on 2026-11-30" in done.stderr
