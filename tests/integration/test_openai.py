"""OpenAIProvider against a real loopback server: OpenAI's stream and the local servers' quirks."""

from __future__ import annotations

import json

import pytest
from support.provider_fakes import FAKE_OPENAI_KEY, SHELL
from support.sse_server import Reply, openai_chunk, recording, stream

from edgar.conversation import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from edgar.providers import prices
from edgar.providers.base import Finished, ProviderError, TextChunk, ThinkingChunk, ToolCall


def text_of(events):
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def calls_of(events):
    return [e for e in events if isinstance(e, ToolCall)]


def test_text_stream_usage_and_request_shape(server, make, collect, last, request_of):
    server.openai(stream("openai_text", delay=0.03))   # each delta its own network read
    events, error = collect(make("openai"), request_of(text="hello", tools=(SHELL,)))
    assert error is None
    assert [e.text for e in events if isinstance(e, TextChunk)] == ["Hello", ", world", "!"]
    done = last(events)
    assert (done.stop_reason, done.model) == ("end_turn", "gpt-4.1-2025-04-14")
    assert done.usage == Usage(input_tokens=20, output_tokens=3)
    (rec,) = server.requests
    assert rec.path == "/v1/chat/completions"
    assert rec.headers["authorization"] == f"Bearer {FAKE_OPENAI_KEY}"
    body = rec.body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"][0] == {"role": "system", "content": "You are edgar."}
    assert body["messages"][1] == {"role": "user", "content": "hello"}
    assert body["tools"] == [{"type": "function", "function": {
        "name": "shell", "description": "Run a command", "parameters": SHELL.input_schema}}]
    assert body["max_tokens"] == 8192 and "temperature" not in body


def test_text_and_two_fragmented_tool_calls(server, make, collect, last):
    server.openai(stream("openai_tools"))
    events, error = collect(make("openai"))
    assert error is None
    assert text_of(events) == "Let me look."
    assert calls_of(events) == [ToolCall("call_read1", "read", {"path": "README.md"}),
                                ToolCall("call_shell2", "shell", {"command": "ls -la"})]
    assert last(events).stop_reason == "tool_use"
    assert last(events).usage == Usage(310, 41)


def test_tool_results_go_back_as_tool_messages(server, make, collect, request_of):
    server.openai(stream("openai_text"))
    history = [
        Message("user", [TextBlock("list files")]),
        Message("assistant", [TextBlock("Sure."),
                              ToolUseBlock("call_1", "shell", {"command": "ls"}),
                              ToolUseBlock("call_2", "read", {"path": "x"})]),
        Message("user", [ToolResultBlock("call_1", "a.py"),
                         ToolResultBlock("call_2", "no such file", is_error=True),
                         TextBlock("and hurry")]),
    ]
    collect(make("openai"), request_of(*history))
    messages = server.requests[0].body["messages"]
    assistant = messages[2]
    assert assistant["role"] == "assistant" and assistant["content"] == "Sure."
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_1", "call_2"]
    assert assistant["tool_calls"][0]["type"] == "function"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"command": "ls"}
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "a.py"}
    assert messages[4]["tool_call_id"] == "call_2" and "no such file" in messages[4]["content"]
    assert messages[5] == {"role": "user", "content": "and hurry"}


def test_openrouter_comment_lines_are_ignored(server, make, collect, last):
    server.openai(stream("openai_openrouter_comments"))
    assert any(b.startswith(": OPENROUTER") for b in recording("openai_openrouter_comments"))
    events, error = collect(make("openai", model="anthropic/claude-sonnet-4.5"))
    assert error is None
    assert text_of(events) == "Hi there"
    done = last(events)
    assert done.usage == Usage(14, 2)
    assert prices.cost(done.model, done.usage) == pytest.approx((14 * 3 + 2 * 15) / 1e6)


def test_a_tool_call_sent_whole_in_one_chunk(server, make, collect, last):
    server.openai(stream("openai_whole_tool_call"))
    events, error = collect(make("openai"))
    assert error is None
    assert calls_of(events) == [ToolCall("call_whole", "shell", {"command": "echo hi"})]
    assert last(events).stop_reason == "tool_use"


def test_ollama_reusing_index_0_for_a_second_call(server, make, collect):
    server.openai(stream("openai_ollama_index0"))
    events, error = collect(make("openai", model="qwen2.5-coder:7b"))
    assert error is None
    calls = calls_of(events)
    assert [c.id for c in calls] == ["call_a1", "call_b2"]
    assert calls[0].input == {"path": "hello.py", "content": "print('hello')"}
    assert calls[1].input == {"path": "world.py", "content": "print('world')"}


def test_llamacpp_reasoning_content_is_thinking_not_answer(server, make, collect, last):
    server.openai(stream("openai_llamacpp_reasoning"))
    events, error = collect(make("openai", model="qwen3-8b"))
    assert error is None
    thought = "".join(e.text for e in events if isinstance(e, ThinkingChunk))
    assert thought == "Two plus two is four."
    assert text_of(events) == "4"
    assert last(events).usage == Usage(11, 9)


def test_cached_prompt_tokens_are_not_counted_twice(server, make, collect, last):
    server.openai(stream("openai_cache_usage"))
    events, _ = collect(make("openai"))
    usage = last(events).usage
    assert usage == Usage(input_tokens=1760, output_tokens=50, cache_read_tokens=10240)
    # gpt-4.1: 1760 x $2 + 50 x $8 + 10240 x $0.50, per million tokens
    assert prices.cost(last(events).model, usage) == pytest.approx(0.00904)


def test_stream_without_finish_reason_is_truncated_not_success(server, make, collect):
    server.openai(stream("openai_truncated"))
    events, error = collect(make("openai"))
    assert text_of(events) == "The answer is forty"     # the partial text did arrive
    assert not any(isinstance(e, Finished) for e in events)
    assert error is not None and "truncated" in error.message and "openai" in error.message
    assert len(server.requests) == 1                       # output was shown: never retried


def test_vllm_error_object_body(server, make, collect):
    body = {"object": "error", "message": "This model's maximum context length is 4096 tokens.",
            "type": "BadRequestError", "param": None, "code": 400}
    server.openai(Reply(status=400, json=body))
    events, error = collect(make("openai", model="meta-llama/Llama-3-8B"))
    assert events == []
    assert error.status == 400 and not error.retryable
    assert "openai: HTTP 400" in error.message and "maximum context length" in error.message
    assert len(server.requests) == 1


def test_vllm_error_object_with_status_200(server, make, collect):
    body = {"object": "error", "message": "model not loaded", "type": "NotFoundError", "code": 404}
    server.openai(Reply(status=200, json=body))
    _, error = collect(make("openai"))
    assert error.status == 404 and "model not loaded" in error.message


def test_error_object_inside_the_stream_after_text(server, make, collect):
    events = recording("openai_text")[:3] + [
        openai_chunk({"error": {"message": "upstream provider failed", "code": 502}})]
    server.openai(stream(events))
    got, error = collect(make("openai"))
    assert text_of(got) == "Hello, world"
    assert error.status == 502 and "upstream provider failed" in error.message
    assert len(server.requests) == 1


def test_local_server_needs_no_key(server, make, collect, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    server.openai(stream("openai_text"))
    _, error = collect(make("openai", model="llama3"))
    assert error is None
    assert "authorization" not in server.requests[0].headers


def test_openai_itself_needs_a_key_before_any_request(server, make, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(ProviderError) as info:
        make("openai")
    assert info.value.usage_error and "set OPENAI_API_KEY" in info.value.message
    assert server.requests == []


def test_openai_itself_gets_max_completion_tokens(make, monkeypatch, request_of):
    monkeypatch.delenv("OPENAI_BASE_URL")
    body = make("openai", model="o4-mini").body(request_of())
    assert body["max_completion_tokens"] == 8192 and "max_tokens" not in body


def test_config_base_url_is_used_without_the_env_var(server, make, collect, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL")
    server.openai(stream("openai_text"))
    _, error = collect(make("openai", base_url=server.url + "/v1/"))
    assert error is None and len(server.requests) == 1


def test_a_malformed_event_is_an_error_not_a_crash(server, make, collect):
    bad = openai_chunk({"choices": [{"delta": 7}]})
    server.openai(stream(recording("openai_text")[:2] + [bad]))
    events, error = collect(make("openai"))
    assert text_of(events) == "Hello"
    assert "cannot read" in error.message and "openai" in error.message
