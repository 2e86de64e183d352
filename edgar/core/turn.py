"""The public, typed state of one turn, and the hook protocols that may read and change it.

A *turn* is what one typed prompt (or queued burst that starts a turn) sets off; a *step* is
one model call inside it. ``run_turn`` (core/loop.py) owns a ``Turn`` for its whole life and
hands it to the hooks below; nothing else holds one.

Guarantees:
- Every field a hook may read is declared here with its meaning; a change to the loop that
  drops or renames one is a type error in every hook (mypy, strict for this module).
- Hooks are called by the loop only: ``before_step`` before each model call of a depth-0
  turn (compaction), ``after_stop`` at every depth when the model stopped without asking for
  tools and nothing was queued (verify, which acts at depth 0 only; Stop and SubagentStop
  user hooks); the first non-empty string an ``after_stop`` returns is sent as the next
  user message and the turn goes on.
- ``SkillSource`` is what the loop asks for skills (the matcher implements it).
- Hooks see a view of the session (core/views.py), never the ``Session`` itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from edgar.conversation import ToolResultBlock, Usage
from edgar.core.reply import Reply
from edgar.core.views import StepView, StopView
from edgar.events import ErrorRecord, Outcome

__all__ = ["Turn", "TurnResult", "ToolRun", "BeforeStep", "AfterStop", "SkillSource"]

ToolRun = tuple[str, bool, "str | None"]
"""(tool name, ok, error kind or None) of one tool call, in call order."""


@dataclass
class Turn:
    """The mutable state of one turn, built up step by step (mutable on purpose)."""

    id: str
    """Random id; every event of this turn carries it as ``turn_id``."""
    depth: int
    """0 for the person's own turn; a subagent's turn is its parent's depth + 1."""
    started: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when the turn began."""
    reply: Reply | None = None
    """The response streaming now (None between model calls); kept if the turn is cut off."""
    answer: str = ""
    """The text of the last step that produced any: the turn's answer."""
    usage: Usage = field(default_factory=Usage)
    """Tokens of every model call of this turn, its subagents and compaction included."""
    cost: float | None = 0.0
    """Dollars for ``usage``; None once any call had no known price."""
    steps: int = 0
    """Model calls made for this turn (compaction's summary call counts): JSON ``num_steps``."""
    loop_steps: int = 0
    """Model calls the loop made (``steps`` without compaction's), which ``max_steps`` bounds:
    Claude Code's agentic turns, JSON ``num_turns`` (ADR-0058)."""
    tools: list[ToolRun] = field(default_factory=list)
    """Every tool call of this turn (not its subagents'), in order."""
    files: set[str] = field(default_factory=set)
    """Paths changed by this turn's tools, its subagents' included (relative to the root)."""
    skills: list[tuple[str, str]] = field(default_factory=list)
    """(name, body) of the skills in this turn's context, in activation order."""
    outcome: Outcome = "ok"
    """How the turn ended so far: ``ok``, ``error`` or ``cancelled``."""
    error: ErrorRecord | None = None
    """The shape of what ended the turn with ``error``, for the bus."""
    error_message: str = ""
    """What to tell the person about that error (never sent to learning)."""
    pending_results: list[ToolResultBlock] | None = None
    """Tool results gathered before a cancellation, so every tool_use keeps its result."""
    plan: str | None = None
    """The plan the model presented with ``exit_plan_mode`` and nobody approved: the turn ends
    with it as its answer (plan mode)."""

    def add_cost(self, cost: float | None) -> None:
        """Add one call's price; an unknown price makes the turn's cost unknown."""
        if cost is None or self.cost is None:
            self.cost = None
        else:
            self.cost += cost

    def absorb(self, child: TurnResult) -> None:
        """Roll a subagent's totals into this turn (it ran for this turn's tool call)."""
        self.usage = self.usage + child.usage
        self.add_cost(child.cost)
        self.files.update(child.files)


@dataclass(frozen=True, kw_only=True)
class TurnResult:
    """What ``run_turn`` returns: the finished turn, frozen (built by keyword: eleven fields in
    a row are a reader's guess)."""

    id: str
    outcome: Outcome
    text: str
    usage: Usage
    cost: float | None
    duration: float
    steps: int
    tools: tuple[ToolRun, ...]
    files: tuple[str, ...]
    error_message: str = ""
    error: ErrorRecord | None = None
    loop_steps: int = 0
    plan: str | None = None


class BeforeStep(Protocol):
    """Called before each model call of a depth-0 turn (compaction)."""

    async def before_step(self, session: StepView, turn: Turn) -> None: ...


class AfterStop(Protocol):
    """Called when a turn's model stopped (any depth); a string continues the turn."""

    async def after_stop(self, session: StopView, turn: Turn) -> str | None: ...


class SkillSource(Protocol):
    """Skills for the loop and the REPL (skills/matcher.py implements it)."""

    def activate(self, surface: str) -> list[tuple[str, str]]:
        """(name, body) of skills the surface activates now (refractory applied)."""
        ...

    def carried(self) -> list[tuple[str, str]]:
        """(name, body) of skills fired in earlier turns that stay in context."""
        ...

    def list(self) -> Iterable[tuple[str, str, float | None]]:
        """(name, description, last score or None) of every skill, for ``/skills``."""
        ...

    def force(self, name: str) -> tuple[str, str] | None:
        """Put a skill in the next model call: (name, body), or None for an unknown name."""
        ...
