"""Compaction: when the conversation nears the context window, older turns become a summary.

Guarantees (ADR-0020):
- The summary is one ordinary, visible model call through ``core.model_call`` (the loop's
  own): a Notice announces it, its text and thinking stream as deltas, its usage and cost
  are published as ``ModelResponded`` and added to the session's (and the running turn's)
  totals, with the unknown-price notice when the model has no price.
- ``Compactor`` is a ``BeforeStep`` hook; ``on_response`` is subscribed by the composition
  root (calibrating the token estimate on each depth-0 response).
- Only ``session.messages`` changes (in place, so a running turn sees it): older messages
  are replaced by one user message holding the summary, and the last ``context.keep_turns``
  typed turns stay verbatim. The cut never separates a ``tool_use`` from its result.
- The session log keeps every earlier line; a ``compacted`` mark holds the new view, which
  is what ``sessionlog.load`` restores. ``Compacted(tokens_before, tokens_after)`` follows.
- A failed or empty summary changes nothing (a warning Notice says so); it never ends a turn.
- A PreCompact hook that blocks (``session.guard.before_compact``) changes nothing either:
  the Notice gives its reason. The trigger is ``auto`` from ``before_step``, ``manual`` from
  ``/compact``.
- Nothing is compacted unless it saves at least ``MIN_SAVING`` of the context: skipped up
  front when the older part is smaller than that, and undone (the conversation kept as it
  was, and said) when the summary turns out not to save that much.
"""

from __future__ import annotations

import json

from edgar.config import Settings
from edgar.conversation import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from edgar.core.context import system_prompt
from edgar.core.model_call import model_call
from edgar.core.tokens import Ledger, request_chars
from edgar.core.turn import Turn
from edgar.core.views import StepView
from edgar.events import Compacted, ModelResponded, Notice, Where
from edgar.providers import prices
from edgar.providers.base import ModelRequest, ProviderError
from edgar.tools.base import clip

DEFAULT_WINDOW = 128_000      # for a model the price table does not know (context.window overrides)
SUMMARY_MAX_TOKENS = 4096
MIN_GAIN = 0.25               # automatic compaction must be able to summarise this share
MIN_SAVING = 0.10             # any compaction, /compact too, must save this share or not happen
TOOL_RESULT_CHARS = 1_500     # per tool result inside the transcript the summariser reads
HEADER = ("[Summary of the earlier conversation, written by the model when the context was "
          "compacted. The session log keeps the full transcript.]\n\n")
SYSTEM = ("You summarise a coding session between a person and edgar, a coding agent, so the "
          "agent can continue the work with only your summary. Write plain Markdown bullets.")
ASK = ("Summarise the conversation above for continuing the work. Keep: what the person asked "
       "for (their own words where they matter), decisions and why, files read or changed, "
       "commands run and their results, errors still open, and the next steps. Be concise; "
       "do not call tools.")


def transcript(messages: list[Message]) -> str:
    """The messages as plain text a model can summarise (tool output clipped)."""
    lines: list[str] = []
    for m in messages:
        for b in m.content:
            if isinstance(b, TextBlock) and b.text.strip():
                lines.append(f"[{m.role}] {b.text}")
            elif isinstance(b, ImageBlock):
                lines.append(f"[{m.role} attached an image: {b.source or b.media_type}]")
            elif isinstance(b, ToolUseBlock):
                args = json.dumps(b.input, ensure_ascii=False)
                lines.append(f"[assistant → {b.name}] {clip(args, TOOL_RESULT_CHARS)}")
            elif isinstance(b, ToolResultBlock):
                tag = "tool error" if b.is_error else "tool result"
                lines.append(f"[{tag}] {clip(b.content, TOOL_RESULT_CHARS)}")
                lines += [f"[the tool returned an image: {i.source or i.media_type}]"
                          for i in b.images]
    return "\n\n".join(lines)


def _opens_turn(m: Message) -> bool:
    return m.role == "user" and not any(isinstance(b, ToolResultBlock) for b in m.content)


def choose_cut(messages: list[Message], keep_turns: int, ledger: Ledger, budget: int) -> int | None:
    """Index where the verbatim tail starts, or None when there is nothing to summarise.

    Preferred: the earliest turn opening (a user message without tool results) that leaves
    at most ``keep_turns`` openings and ``budget`` tokens in the tail. When even that is too
    big (one long turn), and only then, the cut may fall inside a turn, at an assistant
    message: the earliest whose tail fits, else the latest. Either way every tool_use
    keeps its result.
    """
    n = len(messages)
    suffix = [0] * (n + 1)
    opens = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + ledger.message_tokens(messages[i])
        opens[i] = opens[i + 1] + _opens_turn(messages[i])
    if opens[0] <= keep_turns and suffix[0] <= budget:
        return None  # only the turns to keep, and they fit: summarising would lose detail
    for i in range(1, n):
        if _opens_turn(messages[i]) and opens[i] <= keep_turns and suffix[i] <= budget:
            return i
    valid = [i for i in range(1, n) if messages[i].role == "assistant" or _opens_turn(messages[i])]
    for i in valid:
        if suffix[i] <= budget:
            return i
    return valid[-1] if valid else None


class Compactor:
    """One session's context manager: token tracking, the threshold, and the summary call."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.ledger = Ledger()
        self._pending_chars: int | None = None   # size of the request about to be sent
        self.compactions = 0
        self._said_no_gain: str | None = None

    def on_response(self, event: ModelResponded) -> None:
        """Subscriber: calibrate tokens-per-char on a depth-0 response to our own request."""
        if event.depth == 0 and self._pending_chars is not None:
            self.ledger.observe(self._pending_chars, event.usage)
            self._pending_chars = None

    def window(self, session: StepView) -> int:
        return (self.settings.context.window or prices.context_window(session.provider.model)
                or DEFAULT_WINDOW)

    def _chars(self, session: StepView, skills: list[tuple[str, str]]) -> int:
        system = system_prompt(session.root, session.facts(), skills,
                               append=self.settings.append_system_prompt,
                               base=self.settings.system_prompt,
                               add_dirs=self.settings.tools.add_dirs)
        return request_chars(system, session.messages, [t.spec() for t in session.tools.values()])

    def tokens(self, session: StepView, skills: list[tuple[str, str]] | None = None) -> int:
        """Estimated tokens of the next request (system, tools, whole conversation)."""
        return self.ledger.tokens(self._chars(session, skills or []))

    async def before_step(self, session: StepView, turn: Turn) -> None:
        """Compact before a model call when the request would pass the threshold."""
        chars = self._chars(session, turn.skills)
        self._pending_chars = chars
        limit = self.settings.context.compact_at * self.window(session)
        if self.ledger.tokens(chars) < limit:
            return
        await self.compact(session, turn=turn, min_gain=MIN_GAIN)
        self._pending_chars = self._chars(session, turn.skills)

    async def compact(self, session: StepView, focus: str | None = None, turn: Turn | None = None,
                      min_gain: float = 0.0) -> tuple[int, int] | None:
        """Summarise older turns now; (tokens before, after), or None if nothing changed.

        ``min_gain``: skip (and say so, once per turn) unless the older part holds at least
        this share of the context, so a tail that alone fills the window cannot make every
        step pay for another summary.
        """
        skills = list(turn.skills) if turn is not None else []
        where: Where = {"session_id": session.id, "turn_id": turn.id if turn is not None else "",
                 "depth": 0}
        publish = session.bus.publish
        window = self.window(session)
        budget = int(self.settings.context.compact_at * window / 2)
        cut = choose_cut(session.messages, self.settings.context.keep_turns, self.ledger, budget)
        if cut is None:
            publish(Notice(level="info", message="nothing to compact yet", **where))
            return None
        before = self.tokens(session, skills)
        older, kept = session.messages[:cut], session.messages[cut:]
        older_tokens = self.ledger.messages_tokens(older)
        if min_gain < MIN_SAVING and older_tokens < MIN_SAVING * before:
            publish(Notice(level="info", message=(
                f"not compacting: the older messages are ≈{older_tokens} of ≈{before} tokens, "
                f"under {MIN_SAVING:.0%}; a summary would save almost nothing"), **where))
            return None
        if older_tokens < min_gain * before:
            if self._said_no_gain != where["turn_id"]:
                self._said_no_gain = where["turn_id"]
                publish(Notice(level="warning", message=(
                    f"context ≈{before} of {window} tokens, but the recent messages alone "
                    "fill it: not compacting (/compact forces it)"), **where))
            return None
        if session.guard is not None:   # PreCompact hooks may say no (Claude Code's contract)
            trigger = "auto" if min_gain else "manual"   # before_step asks for a gain
            refusal = await session.guard.before_compact(trigger, focus or "")
            if refusal is not None:
                publish(Notice(level="warning", message=f"not compacting: {refusal}", **where))
                return None
        publish(Notice(level="info", message=(
            f"compacting: context ≈{before} of {window} tokens; the model summarises "
            f"{len(older)} older messages (shown below, counted in cost)"), **where))
        text = clip(transcript(older), max(2000, int(window / 2 / self.ledger.ratio)))
        ask = ASK + (f"\nFocus especially on: {focus.strip()}" if focus and focus.strip() else "")
        request = ModelRequest(system=SYSTEM, messages=[Message("user", [TextBlock(
            f"<conversation>\n{text}\n</conversation>\n\n{ask}")])], tools=[],
            max_tokens=SUMMARY_MAX_TOKENS)
        # not calibrated on: before and after must be counted at the same tokens-per-char
        self._pending_chars = None
        try:
            summary = await self._summarise(session, request, turn, where)
        except ProviderError as exc:
            publish(Notice(level="warning", message=(
                f"compaction failed ({exc.message}); the conversation is unchanged"), **where))
            return None
        if not summary.strip():
            publish(Notice(level="warning", message="the summary came back empty; the "
                           "conversation is unchanged", **where))
            return None
        head = TextBlock(HEADER + summary.strip())
        if kept and _opens_turn(kept[0]):  # one user message, not two in a row
            kept = [Message("user", [head, *kept[0].content]), *kept[1:]]
        else:
            kept = [Message("user", [head]), *kept]
        previous = list(session.messages)
        session.messages[:] = kept
        after = self.tokens(session, skills)
        if before - after < MIN_SAVING * before:
            session.messages[:] = previous
            publish(Notice(level="warning", message=(
                f"the summary would take the context from ≈{before} to ≈{after} tokens, "
                f"under {MIN_SAVING:.0%} saved: the conversation is kept as it was"), **where))
            return None
        if session.log is not None:
            session.log.mark("compacted", messages=[m.to_json() for m in session.messages],
                             summarised=len(older), tokens_before=before, tokens_after=after)
        self.compactions += 1
        publish(Compacted(tokens_before=before, tokens_after=after, **where))
        return before, after

    async def _summarise(self, session: StepView, request: ModelRequest, turn: Turn | None,
                         where: Where) -> str:
        reply = await model_call(session, request, where, turn=turn, end_line=True)
        return reply.text()
