"""Token accounting and where compaction cuts: pure parts, with properties."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from edgar.conversation import Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock, Usage
from edgar.core.compaction import choose_cut, transcript
from edgar.core.tokens import Ledger, message_chars, request_chars
from edgar.tools.base import clip


def test_the_estimate_is_chars_over_four_until_a_provider_answers():
    ledger = Ledger()
    assert ledger.tokens(4001) == math.ceil(4001 / 4)
    ledger.observe(3000, Usage(input_tokens=0))             # no usage reported: no change
    ledger.observe(1000, Usage(input_tokens=900))           # too small a request to tell
    assert not ledger.calibrated and ledger.ratio == 0.25
    ledger.observe(10_000, Usage(input_tokens=2000, cache_read_tokens=1000))
    assert ledger.calibrated and ledger.ratio == 0.3 and ledger.last_prompt_tokens == 3000
    ledger.observe(10_000, Usage(input_tokens=50_000))      # absurd: clamped
    assert ledger.ratio == 1.0


def test_request_size_counts_system_messages_and_tools():
    spec = ToolSpec("read", "Read a file", {"type": "object"})
    msg = Message("user", [TextBlock("hello")])
    schema = len('{"type": "object"}')
    assert request_chars("sys", [msg], [spec]) == 3 + message_chars(msg) + 4 + 11 + schema
    assert message_chars(Message("assistant", [ToolUseBlock("1", "read", {"path": "a"})])) > 16


def test_transcript_clips_tool_output_and_labels_roles():
    big = "x" * 10_000
    text = transcript([Message("user", [TextBlock("do it")]),
                       Message("assistant", [ToolUseBlock("1", "shell", {"command": "ls"})]),
                       Message("user", [ToolResultBlock("1", big, is_error=True)])])
    assert text.startswith("[user] do it\n\n[assistant → shell]")
    assert "[tool error]" in text and len(text) < 2_500 and "characters omitted" in text


def test_the_clip_marker_says_how_much_and_how_to_read_the_rest():
    out = clip("a" * 500 + "b" * 500, 300)
    assert out.startswith("a" * 200) and out.endswith("b" * 100)
    assert "700 of 1000 characters omitted" in out and "offset/limit" in out


# --- where the cut falls --------------------------------------------------------------------

@st.composite
def conversations(draw):
    """A valid conversation: turns of prompt → (tool calls → results)* → answer, possibly
    stopped mid-turn right after tool results (when maybe_compact runs)."""
    messages: list[Message] = []
    ids = iter(range(10**6))
    for _ in range(draw(st.integers(1, 6))):
        messages.append(Message("user", [TextBlock("p" * draw(st.integers(1, 400)))]))
        for _ in range(draw(st.integers(0, 3))):
            calls = [str(next(ids)) for _ in range(draw(st.integers(1, 2)))]
            messages.append(Message("assistant", [ToolUseBlock(c, "read", {}) for c in calls]))
            messages.append(Message("user", [ToolResultBlock(c, "r" * draw(st.integers(0, 3000)))
                                             for c in calls]))
        messages.append(Message("assistant", [TextBlock("a" * draw(st.integers(1, 300)))]))
    if draw(st.booleans()) and messages[-1].role == "assistant" and len(messages) > 2:
        messages.pop()  # stopped before the answer
    return messages


@settings(max_examples=300, deadline=None)
@given(conversations(), st.integers(0, 3), st.integers(50, 3000))
def test_a_cut_never_separates_a_tool_use_from_its_result(messages, keep, budget):
    cut = choose_cut(messages, keep, Ledger(), budget)
    if cut is None:
        return
    assert 1 <= cut < len(messages)
    tail = messages[cut:]
    uses = {b.id for m in tail for b in m.content if isinstance(b, ToolUseBlock)}
    results = {b.tool_use_id for m in tail for b in m.content if isinstance(b, ToolResultBlock)}
    assert results <= uses                 # no orphan result at the head of the tail
    assert tail[0].role == "assistant" or not any(
        isinstance(b, ToolResultBlock) for b in tail[0].content)


@settings(max_examples=200, deadline=None)
@given(conversations(), st.integers(1, 3))
def test_with_room_to_spare_whole_turns_are_kept(messages, keep):
    ledger = Ledger()
    cut = choose_cut(messages, keep, ledger, budget=10**9)
    openings = [i for i, m in enumerate(messages) if m.role == "user"
                and not any(isinstance(b, ToolResultBlock) for b in m.content)]
    if len(openings) <= keep:
        assert cut is None                 # nothing older than the kept turns
    else:
        assert cut == openings[-keep]
