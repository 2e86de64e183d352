"""Every request body edgar sends is valid for the official SDKs' request types.

The loopback server's fixture checks each recorded body when a test ends
(``SSEServer.invalid_requests``), so every body sent anywhere in the suite is checked; this file
shows the checker can fail, and sends one body of each shape edgar builds."""

from __future__ import annotations

from support.provider_fakes import SHELL
from support.sdk_types import anthropic_problems, openai_problems
from support.sse_server import stream

from edgar.conversation import (
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

HISTORY = [
    Message("user", [TextBlock("list files")]),
    Message("assistant", [ThinkingBlock("plan", "sig"), RedactedThinkingBlock("EmwK"),
                          TextBlock("Sure."), ToolUseBlock("t1", "shell", {"command": "ls"})]),
    Message("user", [ToolResultBlock("t1", "a.py"), TextBlock("and hurry")]),
]


def test_the_checker_finds_what_the_sdk_types_refuse():
    good = {"model": "claude-sonnet-4-6", "max_tokens": 10, "stream": True,
            "messages": [{"role": "user", "content": "hi"}]}
    assert anthropic_problems(good) == []
    assert any("missing required 'max_tokens'" in p for p in
               anthropic_problems({k: v for k, v in good.items() if k != "max_tokens"}))
    assert any("unknown key 'temperatur'" in p
               for p in anthropic_problems({**good, "temperatur": 1}))
    assert anthropic_problems({**good, "temperature": 0.2})            # refused by the new types
    assert anthropic_problems({**good, "temperature": 0.2}, "2023-06-01") == []
    assert anthropic_problems({**good, "messages": [{"role": "tool", "content": "x"}]})
    assert anthropic_problems({**good, "max_tokens": "10"})
    assert openai_problems({"model": "gpt-4.1", "stream": True, "messages": [
        {"role": "tool", "content": "x"}]})                            # no tool_call_id


def test_every_shape_edgar_builds_is_valid(server, make, collect, request_of):
    server.anthropic(*[stream("anthropic_text")] * 2)
    server.openai(*[stream("openai_text")] * 2)
    collect(make("anthropic", thinking_budget=2048), request_of(*HISTORY, tools=(SHELL,)))
    collect(make("anthropic", version="2023-06-01", temperature=0.3), request_of(*HISTORY))
    collect(make("openai"), request_of(*HISTORY, tools=(SHELL,)))
    collect(make("openai", model="anthropic/claude-sonnet-4.6"), request_of(*HISTORY))
    assert len(server.requests) == 4
    assert server.invalid_requests() == []
    claude = server.requests[3].body["messages"]
    assert claude[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
