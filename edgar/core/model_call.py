"""The one place a model is called and accounted for (the loop's steps, compaction, subagents).

Guarantees:
- ``model_call`` streams one request, publishes each text and thinking chunk as
  ``TextDelta``/``ThinkingDelta`` as it arrives, prices the response (publishing the
  unknown-price notice once per model), adds usage and cost to the session's totals and to
  the turn's when there is one, and publishes exactly one ``ModelResponded``. No other
  module constructs ``ModelResponded`` (tests/unit/test_architecture.py).
- Streamed text goes into ``sink`` as it arrives, so a caller that is cancelled or hit by a
  ``ProviderError`` mid-stream still holds what was shown. Accounting happens only when the
  stream ended (a cut-off response reported no usage).
- The ``Reply`` keeps everything the provider said: text, thinking, tool calls and the
  ``Finished`` event (stop reason, usage, model), for callers that act on the stop reason.
"""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from edgar.conversation import Block, TextBlock, ThinkingBlock, ToolUseBlock, Usage
from edgar.events import ModelResponded, Notice, TextDelta, ThinkingDelta
from edgar.providers import prices
from edgar.providers.base import Finished, ModelRequest, TextChunk, ThinkingChunk, ToolCall

if TYPE_CHECKING:
    from edgar.core.session import Session
    from edgar.core.turn import Turn


@dataclass(frozen=True)
class Reply:
    """One model response, whole."""

    text: str
    thinking: str
    signature: str
    calls: list[ToolCall]
    finished: Finished | None
    """The provider's last event; None if the stream ended without one."""
    model: str
    usage: Usage
    cost: float | None

    @property
    def stop_reason(self) -> str:
        return self.finished.stop_reason if self.finished is not None else ""

    def blocks(self) -> list[Block]:
        """The assistant message's content: thinking, text, then one tool_use per call."""
        blocks: list[Block] = []
        if self.thinking or self.signature:
            blocks.append(ThinkingBlock(self.thinking, self.signature))
        if self.text:
            blocks.append(TextBlock(self.text))
        for call in self.calls:
            blocks.append(ToolUseBlock(call.id, call.name,
                                       call.input if call.input is not None else {}))
        return blocks


async def model_call(session: Session, request: ModelRequest, where: dict[str, Any], *,
                     turn: Turn | None = None, sink: list[str] | None = None,
                     end_line: bool = False) -> Reply:
    """Stream ``request`` through the session's provider; publish, price and account for it.

    ``end_line``: if the streamed text does not end a line, publish one ``TextDelta("\\n")``
    before ``ModelResponded`` (compaction's summary: the answer that follows starts a line).
    """
    publish = session.bus.publish
    text: list[str] = [] if sink is None else sink
    thinking: list[str] = []
    signature = ""
    calls: list[ToolCall] = []
    finished: Finished | None = None
    async with aclosing(session.provider.stream(request)) as stream:
        async for item in stream:
            if isinstance(item, TextChunk):
                text.append(item.text)
                publish(TextDelta(text=item.text, **where))
            elif isinstance(item, ThinkingChunk):
                thinking.append(item.text)
                signature = item.signature or signature
                if item.text:
                    publish(ThinkingDelta(text=item.text, **where))
            elif isinstance(item, ToolCall):
                calls.append(item)
            elif isinstance(item, Finished):
                finished = item
    if end_line and text and not text[-1].endswith("\n"):
        publish(TextDelta(text="\n", **where))
    usage = finished.usage if finished else Usage()
    model = finished.model if finished and finished.model else session.provider.model
    cost = prices.cost(model, usage)
    session.usage = session.usage + usage
    if cost is None:
        session.cost_known = False
        note = prices.note_unknown(model)  # said once per model, not on every response
        if note:
            publish(Notice(level="info", message=note, **where))
    else:
        session.cost += cost
    if turn is not None:
        turn.steps += 1
        turn.usage = turn.usage + usage
        turn.add_cost(cost)
    publish(ModelResponded(model=model, usage=usage, cost=cost, **where))
    return Reply("".join(text), "".join(thinking), signature, calls, finished, model, usage, cost)
