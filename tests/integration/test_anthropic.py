"""AnthropicProvider against a real loopback server replaying recorded Messages API streams."""

from __future__ import annotations

import pytest
from support.provider_fakes import FAKE_ANTHROPIC_KEY, SHELL
from support.sse_server import anthropic_event, stream

from edgar.conversation import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from edgar.providers import prices
from edgar.providers.base import ProviderError, TextChunk, ThinkingChunk, ToolCall


def text_of(events):
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def test_text_stream_arrives_in_pieces_then_one_finished(server, make, collect, last):
    server.anthropic(stream("anthropic_text", delay=0.03))   # each delta its own network read
    events, error = collect(make("anthropic"))
    assert error is None
    assert [e.text for e in events if isinstance(e, TextChunk)] == ["Hello", ", world", "!"]
    done = last(events)
    assert done.stop_reason == "end_turn"
    assert done.model == "claude-sonnet-4-5-20250929"
    assert done.usage == Usage(input_tokens=25, output_tokens=15)


def test_request_headers_and_body(server, make, collect, request_of):
    server.anthropic(stream("anthropic_text"))
    collect(make("anthropic"), request_of(text="hello there", tools=(SHELL,)))
    (rec,) = server.requests
    assert rec.path == "/v1/messages"
    assert rec.headers["x-api-key"] == FAKE_ANTHROPIC_KEY
    assert "authorization" not in rec.headers
    # the version the pinned official SDK sends, from the generated models.json
    from edgar.providers.models import anthropic_version

    assert rec.headers["anthropic-version"] == anthropic_version() == "2026-10-21"
    body = rec.body
    assert body["model"] == "claude-sonnet-4-5" and body["stream"] is True
    assert body["max_tokens"] == 8192
    assert body["system"][0]["text"] == "You are edgar."
    assert body["messages"][0]["role"] == "user"
    assert body["messages"][0]["content"][0]["text"] == "hello there"
    assert body["tools"] == [{"name": "shell", "description": "Run a command",
                              "input_schema": SHELL.input_schema}]
    for absent in ("temperature", "top_p", "top_k", "thinking"):
        assert absent not in body


def test_text_and_two_tool_calls_assembled_at_block_stop(server, make, collect, last):
    server.anthropic(stream("anthropic_tools"))
    events, error = collect(make("anthropic"))
    assert error is None
    assert text_of(events) == "Let me look at the project."
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert calls == [ToolCall("toolu_01Read", "read", {"path": "README.md"}),
                     ToolCall("toolu_02Shell", "shell", {"command": "ls -la"})]
    # the text is on its way before any call is complete
    assert events.index(calls[0]) > max(i for i, e in enumerate(events) if isinstance(e, TextChunk))
    assert last(events).stop_reason == "tool_use"
    assert last(events).usage.output_tokens == 89


def test_thinking_is_kept_apart_from_the_answer(server, make, collect):
    server.anthropic(stream("anthropic_thinking"))
    events, error = collect(make("anthropic"))
    assert error is None
    thinking = [e for e in events if isinstance(e, ThinkingChunk)]
    assert "".join(t.text for t in thinking) == "The user wants 27 * 453. 27 * 453 = 12231."
    assert thinking[-1].signature.startswith("EqQBCgIYAhIM")
    assert text_of(events) == "27 * 453 = 12,231"


def test_cumulative_usage_with_cache_tokens_is_overwritten_not_added(server, make, collect, last):
    server.anthropic(stream("anthropic_cache_usage"))
    events, _ = collect(make("anthropic"))
    usage = last(events).usage
    assert usage == Usage(input_tokens=12, output_tokens=87, cache_write_tokens=2048,
                          cache_read_tokens=30000)
    # 12 x $3 + 87 x $15 + 2048 x $3.75 + 30000 x $0.30, per million tokens
    assert prices.cost(last(events).model, usage) == pytest.approx(0.018021)


def test_tool_results_and_signed_thinking_go_back_in_anthropic_shape(server, make, collect,
                                                                    request_of):
    server.anthropic(stream("anthropic_text"))
    history = [
        Message("user", [TextBlock("list files")]),
        Message("assistant", [ThinkingBlock("plan", "sig-1"), ThinkingBlock("unsigned"),
                              TextBlock("Sure."),
                              ToolUseBlock("toolu_1", "shell", {"command": "ls"}),
                              ToolUseBlock("toolu_2", "read", {"path": "x"})]),
        Message("user", [TextBlock("also, hurry"), ToolResultBlock("toolu_1", "a.py\nb.py"),
                         ToolResultBlock("toolu_2", "no such file", is_error=True)]),
    ]
    collect(make("anthropic"), request_of(*history))
    messages = server.requests[0].body["messages"]
    assert messages[1] == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "plan", "signature": "sig-1"},
        {"type": "text", "text": "Sure."},
        {"type": "tool_use", "id": "toolu_1", "name": "shell", "input": {"command": "ls"}},
        {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "x"}}]}
    results = messages[2]["content"]
    assert messages[2]["role"] == "user"
    assert results[0] == {"type": "tool_result", "tool_use_id": "toolu_1",
                          "content": "a.py\nb.py", "is_error": False}
    assert results[1]["tool_use_id"] == "toolu_2" and results[1]["is_error"] is True
    assert results[2]["type"] == "text"   # tool results open the turn, the typed text follows


def test_new_api_version_with_bearer_auth_sends_no_sampling_parameters(server, make, collect):
    server.anthropic(stream("anthropic_text"))
    collect(make("anthropic", version="2026-10-21", auth="bearer"))
    rec = server.requests[0]
    assert rec.headers["authorization"] == f"Bearer {FAKE_ANTHROPIC_KEY}"
    assert "x-api-key" not in rec.headers
    assert rec.headers["anthropic-version"] == "2026-10-21"
    assert not {"temperature", "top_p", "top_k"} & set(rec.body)


def test_temperature_goes_only_to_the_old_version(server, make, collect):
    server.anthropic(stream("anthropic_text"))
    collect(make("anthropic", temperature=0.2, version="2023-06-01"))
    assert server.requests[0].body["temperature"] == 0.2
    with pytest.raises(ProviderError) as info:
        make("anthropic", temperature=0.2)   # the default, current version refuses it
    assert info.value.usage_error and "temperature" in info.value.message
    assert len(server.requests) == 1   # the refused one never left


def test_missing_key_is_a_usage_error_before_any_request(server, make, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ProviderError) as info:
        make("anthropic")
    assert info.value.usage_error
    assert "set ANTHROPIC_API_KEY" in info.value.message
    assert server.requests == []


def test_key_env_name_and_extra_headers_come_from_settings(server, make, collect, monkeypatch):
    monkeypatch.setenv("MY_CLAUDE_KEY", "sk-ant-other-key-000000")
    server.anthropic(stream("anthropic_text"))
    collect(make("anthropic", api_key_env="MY_CLAUDE_KEY", headers={"anthropic-beta": "x-1"}))
    headers = server.requests[0].headers
    assert headers["x-api-key"] == "sk-ant-other-key-000000"
    assert headers["anthropic-beta"] == "x-1"


def test_tool_json_that_does_not_parse_gives_input_none(server, make, collect, last):
    start = anthropic_event("message_start", {"message": {"model": "claude-sonnet-4-5",
                                                          "usage": {"input_tokens": 3}}})
    events = [
        start,
        anthropic_event("content_block_start", {"index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_bad", "name": "shell", "input": {}}}),
        anthropic_event("content_block_delta", {"index": 0, "delta": {
            "type": "input_json_delta", "partial_json": '{"command": "ls'}}),
        anthropic_event("content_block_stop", {"index": 0}),
        anthropic_event("message_delta", {"delta": {"stop_reason": "tool_use"},
                                          "usage": {"output_tokens": 5}}),
        anthropic_event("message_stop", {}),
    ]
    server.anthropic(stream(events))
    got, error = collect(make("anthropic"))
    assert error is None
    assert got[0] == ToolCall("toolu_bad", "shell", None)
    assert last(got).usage == Usage(3, 5)


def test_max_tokens_is_the_smaller_of_request_and_settings(server, make, collect, request_of):
    server.anthropic(stream("anthropic_text"), stream("anthropic_text"))
    collect(make("anthropic", max_tokens=1000))
    collect(make("anthropic", thinking_budget=2048), request_of(max_tokens=1))
    assert server.requests[0].body["max_tokens"] == 1000
    assert server.requests[1].body["max_tokens"] == 1
    assert "thinking" not in server.requests[1].body   # a budget above the limit is not sent


def test_one_connection_serves_the_calls_of_a_session(server, make, request_of):
    import asyncio

    server.anthropic(stream("anthropic_text"), stream("anthropic_tools"))
    provider = make("anthropic")

    async def two_calls():
        for _ in range(2):
            async for _event in provider.stream(request_of()):
                pass
        await provider.aclose()

    asyncio.run(two_calls())
    first, second = server.requests
    assert first.peer == second.peer   # the finished stream was read to its end: keep-alive


def test_httpx2_is_not_imported_until_the_first_request():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import sys, edgar.providers.anthropic, edgar.providers.openai, edgar.providers.prices;"
            "print('httpx2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(root)},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_deltas_of_one_network_read_reach_the_loop_as_one_chunk(server, make, collect, last):
    server.anthropic(stream("anthropic_text", chunk_size=1 << 16))   # the whole stream at once
    events, error = collect(make("anthropic"))
    assert error is None
    assert [e.text for e in events if isinstance(e, TextChunk)] == ["Hello, world!"]
    assert last(events).usage.output_tokens == 15
