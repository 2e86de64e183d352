"""Permission questions in the REPL: the live prompt to redraw, and the pending question
that the next typed line or key answers.

Guarantees: at most one question is open; an answer resolves it once and is echoed dim.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edgar.tools.permissions import Answer

Asking = tuple[str, str, "asyncio.Future[Answer]"]
"""The open question: (tool, summary, the future its answer resolves)."""


class Screen:
    """The live prompt, once ``Repl.interactive`` has made one; redraws it on request."""

    def __init__(self) -> None:
        self.prompt: Any = None                  # the PromptSession when interactive

    def invalidate(self) -> None:
        if self.prompt is not None and self.prompt.app.is_running:
            self.prompt.app.invalidate()


class Asker:
    """Permission questions (the gate's ``Confirm``); the next typed line or key answers.

    Built before the session (the gate needs ``confirm``), so the Repl is built whole after.
    """

    def __init__(self, say: Callable[[str, str], None], screen: Screen):
        self.say = say
        self.screen = screen
        self.asking: Asking | None = None

    async def confirm(self, tool: str, summary: str, offer: str | None = None) -> Answer:
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self.asking = (tool, summary, future)
        self.say(f"? {tool}: {summary}", "bold yellow")
        always = (f"always allow `{offer[offer.index('(') + 1:-1]}` (saved to your config)"
                  if offer and "(" in offer else f"always allow {tool} this session")
        self.say(f"  y yes · n no · a {always} · Esc stops the turn", "dim")
        self.screen.invalidate()
        try:
            return await future
        finally:
            self.asking = None
            self.screen.invalidate()

    async def review(self, plan: str, then: str) -> bool:
        """Show the model's plan and ask whether to carry it out (``then``: the mode it goes on
        in); True for yes. The session's ``Planner``."""
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self.asking = ("exit_plan_mode", "the plan", future)
        self.say("plan:", "bold")
        for line in plan.strip().splitlines():
            self.say(f"  {line}", "")
        self.say(f"? carry out this plan? y yes (permission mode back to {then}) · n keep "
                 "planning (type what to change)", "bold yellow")
        self.screen.invalidate()
        try:
            return await future in ("yes", "always")
        finally:
            self.asking = None
            self.screen.invalidate()

    def answer(self, answer: Answer) -> None:
        if self.asking is not None and not self.asking[2].done():
            self.asking[2].set_result(answer)
            self.say(f"  → {answer}", "dim")
