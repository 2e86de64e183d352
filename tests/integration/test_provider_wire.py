"""What the providers send back and read, field by field: blank text, thinking blocks, stop
reasons, usage fields, wrong JSON types, proxy error shapes — each over a real socket."""

from __future__ import annotations

import pytest
from support.sse_server import Reply, anthropic_event, openai_chunk, recording, stream

from edgar.conversation import (
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from edgar.providers.base import Finished, RedactedThinking, TextChunk, ThinkingChunk, ToolCall


def text_of(events):
    return "".join(e.text for e in events if isinstance(e, TextChunk))


# --- what is sent --------------------------------------------------------------------------

def test_blank_text_blocks_are_never_sent_to_anthropic(server, make, collect, request_of):
    server.anthropic(stream("anthropic_text"))
    history = [Message("user", [TextBlock("list files"), TextBlock("   ")]),
               Message("assistant",
                       [TextBlock("\n\n"), ToolUseBlock("t1", "shell", {"command": "ls"})]),
               Message("user", [ToolResultBlock("t1", "a.py"), TextBlock(" \t\n")])]
    collect(make("anthropic"), request_of(*history))
    sent = server.requests[0].body["messages"]
    texts = [{k: v for k, v in b.items() if k != "cache_control"}
             for m in sent for b in m["content"] if b["type"] == "text"]
    assert texts == [{"type": "text", "text": "list files"}]
    assert [b["type"] for b in sent[1]["content"]] == ["tool_use"]


def test_blank_text_is_never_sent_to_openai(server, make, collect, request_of):
    server.openai(stream("openai_text"))
    history = [Message("user", [TextBlock("hi")]),
               Message("assistant",
                       [TextBlock("\n\n"), ToolUseBlock("c1", "shell", {"command": "ls"})]),
               Message("user", [ToolResultBlock("c1", "a.py"), TextBlock("  ")])]
    collect(make("openai"), request_of(*history))
    sent = server.requests[0].body["messages"]
    assert sent[2]["content"] is None and sent[2]["tool_calls"]
    assert all(m["role"] != "user" or m["content"].strip() for m in sent)
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]


def test_thinking_blocks_stay_one_block_each_with_their_signatures(server, make, collect,
                                                                  request_of):
    history = [Message("user", [TextBlock("read a.txt")]),
               Message("assistant", [ThinkingBlock("First thought.", "SigOne"),
                                     RedactedThinkingBlock("EmwKAhgB"),
                                     ThinkingBlock("Second thought.", "SigTwo"),
                                     ToolUseBlock("t1", "read", {"path": "a.txt"})]),
               Message("user", [ToolResultBlock("t1", "hello")])]
    server.anthropic(stream("anthropic_text"))
    collect(make("anthropic"), request_of(*history))
    assert server.requests[0].body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "First thought.", "signature": "SigOne"},
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
        {"type": "thinking", "thinking": "Second thought.", "signature": "SigTwo"},
        {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.txt"}}]


def test_a_stream_with_two_thinking_blocks_and_a_redacted_one_is_read_block_by_block(
        server, make, collect, last):
    server.anthropic(stream("anthropic_thinking_blocks_tool"))
    events, error = collect(make("anthropic"))
    assert error is None
    kinds = [(type(e).__name__, getattr(e, "signature", getattr(e, "data", ""))) for e in events
             if isinstance(e, (ThinkingChunk, RedactedThinking))]
    assert kinds == [("ThinkingChunk", ""), ("ThinkingChunk", "SigOne/AAAA=="),
                     ("RedactedThinking",
                      "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"),
                     ("ThinkingChunk", ""), ("ThinkingChunk", "SigTwo/BBBB==")]
    assert [e for e in events if isinstance(e, ToolCall)] == [ToolCall("toolu_01Think", "read",
                                                                       {"path": "a.txt"})]
    assert last(events).stop_reason == "tool_use"


# --- stop reasons --------------------------------------------------------------------------

@pytest.mark.parametrize("name,neutral,wire", [
    ("anthropic_refusal", "refusal", "refusal"),
    ("anthropic_max_tokens_tool", "max_tokens", "max_tokens"),
    ("anthropic_pause_turn", "pause_turn", "pause_turn"),
])
def test_anthropic_stop_reasons_reach_finished(server, make, collect, last, name, neutral, wire):
    server.anthropic(stream(name))
    events, error = collect(make("anthropic"))
    assert error is None
    done = last(events)
    assert (done.stop_reason, done.wire_stop_reason) == (neutral, wire)


def test_openai_refusal_deltas_are_the_answer_and_the_stop_reason(server, make, collect, last):
    server.openai(stream("openai_refusal"))
    events, error = collect(make("openai"))
    assert error is None
    assert text_of(events) == "I'm sorry, I can't assist with that."
    assert last(events).stop_reason == "refusal"


def test_openai_length_is_max_tokens_and_keeps_its_own_word(server, make, collect, last):
    server.openai(stream("openai_length"))
    events, _ = collect(make("openai"))
    assert text_of(events) == '{"'
    assert (last(events).stop_reason, last(events).wire_stop_reason) == ("max_tokens", "length")


# --- usage ---------------------------------------------------------------------------------

def test_cache_write_tokens_of_openai_compatible_servers_are_not_charged_as_input(
        server, make, collect, last):
    server.openai(stream("openai_litellm_cache_write"))
    events, _ = collect(make("openai", model="anthropic/claude-sonnet-4.5"))
    assert last(events).usage == Usage(input_tokens=100, output_tokens=3, cache_write_tokens=2000,
                                       cache_read_tokens=10000)


def test_no_usage_reported_is_unknown_not_zero(server, make, collect, last):
    from edgar.providers import prices

    server.openai(stream("openai_no_usage"))
    events, _ = collect(make("openai"))
    usage = last(events).usage
    assert usage.reported is False
    assert prices.cost("gpt-4.1", usage) is None


def test_usage_of_a_call_that_fails_mid_stream_is_kept(server, make, collect):
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.anthropic(stream(recording("anthropic_text")[:5]
                            + [anthropic_event("error", overloaded)]))
    _, error = collect(make("anthropic"))
    assert error.usage == Usage(input_tokens=25, output_tokens=1)
    assert error.model == "claude-sonnet-4-5-20250929"


# --- faults --------------------------------------------------------------------------------

def test_a_stream_that_ends_before_any_output_is_retried(server, make, collect):
    # clean end, no finish
    server.openai(stream(recording("openai_text")[:1]), stream("openai_text"))
    events, error = collect(make("openai"))
    assert error is None and text_of(events) == "Hello, world!"
    assert len(server.requests) == 2


def test_a_half_json_chunk_is_an_error_and_no_tool_call_is_made(server, make, collect):
    whole = recording("openai_tools")
    cut = list(whole)
    # one argument fragment arrives garbled: it must not be skipped (the rest would still parse)
    i = next(n for n, b in enumerate(cut) if "arguments" in b and "README" in b)
    cut[i] = cut[i][: len(cut[i]) // 2] + "\n\n"
    server.openai(stream(cut))
    events, error = collect(make("openai"))
    assert error is not None and "not valid JSON" in error.message
    assert not any(isinstance(e, ToolCall) for e in events)


def test_litellm_midstream_error_shape_is_a_retryable_500(server, make, collect):
    server.openai(stream("openai_litellm_midstream_error"), stream("openai_text"))
    events, error = collect(make("openai"))
    assert error is None and text_of(events) == "Hello, world!"
    assert len(server.requests) == 2


def test_litellm_midstream_error_after_text_is_reported_as_a_server_error(server, make, collect):
    error_block = recording("openai_litellm_midstream_error")
    server.openai(stream(recording("openai_text")[:3] + error_block))
    _, error = collect(make("openai"))
    assert error.status == 500 and "server error" in error.message


def test_openrouter_error_chunk_with_finish_reason_error(server, make, collect):
    blocks = recording("openai_text")[:2] + [openai_chunk({
        "id": "gen-1", "object": "chat.completion.chunk", "created": 1, "model": "x",
        "error": {"code": 502, "message": "Provider returned error"},
        "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]})]
    server.openai(stream(blocks))
    _, error = collect(make("openai"))
    assert error.status == 502 and "Provider returned error" in error.message


@pytest.mark.parametrize("status,body", [
    (401, {"error": {"message": "Authentication Error, No api key passed in.",
                     "type": "auth_error", "param": "None", "code": "401"}}),
    (500, {"error": {"message": "litellm.AuthenticationError: Missing API key: set "
                     "OPENAI_API_KEY", "type": None, "param": None, "code": "500"}}),
    (403, {"error": {"message": "You didn't provide an API key.",
                     "type": "invalid_request_error"}}),
])
def test_a_missing_key_answer_names_the_variable_without_retries(server, make, collect,
                                                                 status, body):
    server.openai(*[Reply(status=status, json=body)] * 3)
    _, error = collect(make("openai"))
    assert len(server.requests) == 1
    assert "set OPENAI_API_KEY" in error.message and not error.retryable


@pytest.mark.parametrize("blocks,field", [
    ([anthropic_event("content_block_start",
                      {"index": 0, "content_block": {"type": "text", "text": ""}}),
      anthropic_event("content_block_delta",
                      {"index": 0, "delta": {"type": "text_delta", "text": 5}})],
     "content_block_delta.delta.text"),
    ([anthropic_event("content_block_start", {"index": 0, "content_block": {
        "type": "tool_use", "id": "t", "name": 7, "input": {}}})],
     "content_block_start.content_block.name"),
    ([anthropic_event("message_delta", {"delta": {"stop_reason": "end_turn"},
                                        "usage": {"output_tokens": "ten"}})],
     "message_delta.usage.output_tokens"),
])
def test_wrong_json_types_in_an_anthropic_stream_name_the_field(server, make, collect, blocks,
                                                                field):
    start = anthropic_event("message_start",
                            {"message": {"model": "m", "usage": {"input_tokens": 3}}})
    server.anthropic(stream([start, *blocks, anthropic_event("message_stop", {})]))
    events, error = collect(make("anthropic", max_retries=0))
    assert error is not None and field in error.message, error
    assert not any(isinstance(e, (ToolCall, Finished)) for e in events)


@pytest.mark.parametrize("chunk,field", [
    ({"choices": [{"index": 0, "delta": {"content": 5}}]}, "chunk.choices[0].delta.content"),
    ({"choices": [], "usage": {"prompt_tokens": "ten", "completion_tokens": 1}},
     "chunk.usage.prompt_tokens"),
    ({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c",
                                                         "function": {"name": 7}}]}}]},
     "function.name"),
])
def test_wrong_json_types_in_an_openai_stream_name_the_field(server, make, collect, chunk, field):
    server.openai(stream([openai_chunk(chunk), openai_chunk({"choices": [
        {"index": 0, "delta": {}, "finish_reason": "stop"}]}), openai_chunk("[DONE]")]))
    _, error = collect(make("openai", max_retries=0))
    assert error is not None and field in error.message, error
