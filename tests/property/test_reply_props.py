"""Properties of ``core/reply.py``: any stream becomes blocks that replay faithfully."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from edgar.conversation import RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock
from edgar.core.reply import Reply
from edgar.providers.base import RedactedThinking, TextChunk, ThinkingChunk, ToolCall

texts = st.text(alphabet=st.sampled_from("ab \n\t."), max_size=6)
events = st.one_of(
    st.builds(TextChunk, texts),
    st.builds(ThinkingChunk, texts),
    st.builds(ThinkingChunk, st.just(""), st.text(alphabet="SIG0123", min_size=1, max_size=4)),
    st.builds(RedactedThinking, st.text(alphabet="xyz", min_size=1, max_size=4)),
    st.builds(ToolCall, st.text(alphabet="t0123", min_size=1, max_size=3), st.just("read"),
              st.one_of(st.none(), st.just({"path": "a"}))),
)


@given(st.lists(events, max_size=25))
def test_blocks_keep_every_signature_redaction_and_call_in_order(stream):
    reply = Reply()
    for event in stream:
        reply.feed(event)
    blocks = reply.blocks()
    sent = [(e.signature if isinstance(e, ThinkingChunk)
             else e.data if isinstance(e, RedactedThinking)
             else e.id) for e in stream if (isinstance(e, ThinkingChunk) and e.signature)
            or isinstance(e, (RedactedThinking, ToolCall))]
    kept = [(b.signature if isinstance(b, ThinkingBlock) else b.data
             if isinstance(b, RedactedThinkingBlock) else b.id) for b in blocks
            if (isinstance(b, ThinkingBlock) and b.signature)
            or isinstance(b, (RedactedThinkingBlock, ToolUseBlock))]
    assert kept == sent
    assert all(b.text.strip() for b in blocks if isinstance(b, TextBlock))
    assert [c.id for c in reply.calls] == [e.id for e in stream if isinstance(e, ToolCall)]


@given(st.lists(events, max_size=25))
def test_no_text_is_lost_but_blank_runs(stream):
    reply = Reply()
    for event in stream:
        reply.feed(event)
    blocks = reply.blocks()
    shown = "".join(b.text for b in blocks if isinstance(b, TextBlock))
    streamed = "".join(e.text for e in stream if isinstance(e, TextChunk))
    assert reply.text() == streamed          # the answer is what streamed, exactly
    # what the blocks drop is only whitespace
    assert "".join(shown.split()) == "".join(streamed.split())
    signed = [b for b in blocks if isinstance(b, ThinkingBlock) and b.signature]
    assert len(signed) == sum(1 for e in stream if isinstance(e, ThinkingChunk) and e.signature)
