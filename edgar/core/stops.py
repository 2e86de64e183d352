"""What the loop does with each reason a model response stopped (docs/providers.md, ADR-0040).

Guarantees:
- ``end_turn``/``stop_sequence`` (OpenAI ``stop``) end the step normally; ``tool_use`` runs
  the calls; ``pause_turn`` sends the response back as is so the model goes on (the loop's
  job, with ``max_steps`` as the bound).
- ``max_tokens`` (OpenAI ``length``) and ``model_context_window_exceeded`` (``CUT``): the
  response is incomplete, so none of its tool calls runs — the one being written when the
  limit struck may hold arguments the model never finished. Each gets an error
  ``tool_result`` (the conversation stays valid), the text so far is kept, and the turn ends
  ``error`` with a message naming the limit and the setting that raises it. No automatic
  continuation (ADR-0040).
- ``refusal`` (Anthropic ``stop_reason``; OpenAI ``refusal`` deltas or ``content_filter``):
  the refusal text has been shown as the answer; no tool call runs; the turn ends ``error``
  (exit 1 for ``-p``).
- Every ``ErrorRecord`` here is chosen by edgar (kind ``output_limit`` or ``refusal``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from edgar.conversation import Message, ToolResultBlock
from edgar.events import ErrorRecord
from edgar.providers.base import Finished, ToolCall

if TYPE_CHECKING:
    from edgar.core.session import Session
    from edgar.core.turn import Turn

CUT = ("max_tokens", "model_context_window_exceeded")


def _close_calls(calls: list[ToolCall], why: str, append: Callable[[Message], None]) -> None:
    if calls:
        append(Message("user", [ToolResultBlock(c.id, why, is_error=True) for c in calls]))


def cut_off(session: Session, turn: Turn, calls: list[ToolCall], finished: Finished | None,
            append: Callable[[Message], None]) -> None:
    """The response hit an output or context limit: nothing of it runs; say which limit."""
    reason = finished.stop_reason if finished else "max_tokens"
    said = finished.wire_stop_reason if finished and finished.wire_stop_reason else reason
    provider = session.provider.name
    _close_calls(calls, "not run: the response was cut off at the output limit before this "
                 "call was complete", append)
    turn.outcome = "error"
    turn.error = ErrorRecord("provider", "output_limit")
    unrun = (f"; {len(calls)} tool call{'s' if len(calls) != 1 else ''} in it "
             "were not run" if calls else "")
    if reason == "model_context_window_exceeded":
        turn.error_message = (f"the response stopped at the model's context window "
                              f"(stop reason {said}){unrun} — start a new session or attach less")
        return
    limit = _limit(session, provider)
    turn.error_message = (f"the response was cut off at the output limit (stop reason {said}, "
                          f"max_tokens = {limit}){unrun} — raise providers.{provider}.max_tokens "
                          "or ask for less at once")


def refused(session: Session, turn: Turn, calls: list[ToolCall],
            append: Callable[[Message], None]) -> None:
    """The model declined: its words were shown; nothing runs; the turn is an error."""
    _close_calls(calls, "not run: the model refused this request", append)
    turn.outcome = "error"
    turn.error = ErrorRecord("provider", "refusal")
    shown = "" if turn.answer.strip() else " (it gave no reason)"
    turn.error_message = f"the model declined to answer (stop reason refusal){shown}"


def _limit(session: Session, provider: str) -> int:
    try:
        return int(session.settings.provider(provider).max_tokens)
    except (AttributeError, TypeError, ValueError):
        return 0
