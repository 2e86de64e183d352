"""The one place a model is called and accounted for (the loop's steps, compaction, subagents).

Guarantees:
- ``model_call`` streams one request, feeds every stream event to a ``Reply`` (blocks in the
  order they came), publishes each text and thinking chunk as ``TextDelta``/``ThinkingDelta``
  as it arrives, prices the response (the unknown-price notice once per model, never for the
  scripted test model or a response that reported no usage), adds usage and cost to the
  session's totals and to the turn's when there is one, and publishes exactly one
  ``ModelResponded``. No other module constructs ``ModelResponded``
  (tests/unit/test_architecture.py).
- A caller that passes its own ``reply`` still holds what streamed when the call is cancelled
  or fails mid-stream. A ``ProviderError`` that carries the usage the failed response had
  reported is billed (accounted and published) before it propagates.
- The ``Response`` keeps everything the provider said: the ``Reply`` (text, thinking, tool
  calls) and the ``Finished`` event (stop reason, usage, model), for callers that act on the
  stop reason.
"""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import dataclass

from edgar.conversation import Usage
from edgar.core.reply import Reply
from edgar.core.turn import Turn
from edgar.core.views import CallView
from edgar.events import ModelResponded, Notice, TextDelta, ThinkingDelta, Where
from edgar.providers import prices
from edgar.providers.base import (
    Finished,
    ModelRequest,
    ProviderError,
    TextChunk,
    ThinkingChunk,
    ToolCall,
)


@dataclass(frozen=True)
class Response:
    """One model response, whole."""

    reply: Reply
    finished: Finished | None
    """The provider's last event; None if the stream ended without one."""
    model: str
    usage: Usage
    cost: float | None

    @property
    def calls(self) -> list[ToolCall]:
        return self.reply.calls

    @property
    def stop_reason(self) -> str:
        return self.finished.stop_reason if self.finished is not None else ""

    def text(self) -> str:
        return self.reply.text()


async def model_call(session: CallView, request: ModelRequest, where: Where, *,
                     turn: Turn | None = None, reply: Reply | None = None,
                     end_line: bool = False, quiet: bool = False) -> Response:
    """Stream ``request`` through the session's provider; publish, price and account for it.

    ``end_line``: if the streamed text does not end a line, publish one ``TextDelta("\\\\n")``
    before ``ModelResponded`` (compaction's summary: the answer that follows starts a line).
    ``quiet``: no ``TextDelta``/``ThinkingDelta`` is published (a helper's call whose text is
    not an answer: a commit message, ADR-0111); it is still priced, accounted and published
    as one ``ModelResponded``.
    """
    publish = session.bus.publish
    reply = Reply() if reply is None else reply
    finished: Finished | None = None
    last = ""
    try:
        async with aclosing(session.provider.stream(request)) as stream:
            async for item in stream:
                reply.feed(item)
                if isinstance(item, Finished):
                    finished = item
                elif quiet:
                    continue
                elif isinstance(item, TextChunk):
                    last = item.text or last
                    publish(TextDelta(text=item.text, **where))
                elif isinstance(item, ThinkingChunk) and item.text:
                    publish(ThinkingDelta(text=item.text, **where))
    except ProviderError as exc:
        if exc.usage is not None:   # what the failed call used is still billed: keep it
            _account(session, turn, exc.model or session.provider.model, exc.usage, where)
        raise
    if end_line and last and not last.endswith("\n"):
        publish(TextDelta(text="\n", **where))
    model = finished.model if finished and finished.model else session.provider.model
    usage = finished.usage if finished else Usage(reported=False)
    cost = _account(session, turn, model, usage, where,
                    finished.billed_usd if finished else None)
    return Response(reply, finished, model, usage, cost)


def _account(session: CallView, turn: Turn | None, model: str, usage: Usage,
             where: Where, billed: float | None = None) -> float | None:
    """Add one response's usage and cost to the turn and the session, and publish it. The price
    table decides the cost; a server's own figure (OpenRouter) fills in when it has no price."""
    publish = session.bus.publish
    cost = prices.cost(model, usage)
    if cost is None and billed is not None:
        cost = billed
    session.usage = session.usage + usage
    if cost is None:
        session.cost_known = False
        # said once per model, not on every response; never for the scripted test model
        note = (prices.note_unknown(model)
                if usage.reported and session.provider.name != "scripted" else None)
        if note:
            publish(Notice(level="info", message=note, **where))
    else:
        session.cost += cost
    if turn is not None:
        turn.steps += 1
        turn.usage = turn.usage + usage
        turn.add_cost(cost)
    publish(ModelResponded(model=model, usage=usage, cost=cost, **where))
    return cost
