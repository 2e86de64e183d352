"""Verify: run the configured check after a turn that changed files; a failure earns a fix round.

Guarantees:
- ``Verifier`` is an ``AfterStop`` hook (core/turn.py), in ``session.after_stop`` with
  ``on_tool`` subscribed to ``ToolFinished`` by the composition root. It runs ``verify.command`` at
  the project root only when the model has stopped in a depth-0 turn whose tools changed
  files, and only if files changed since the last check of that turn.
- Each run publishes exactly one ``VerifyFinished(command, passed, exit_code, duration)`` at
  depth 0 with the turn's ids; ``exit_code`` is None when the command hung past
  ``verify.timeout`` and was killed (with every descendant: it runs in the session's
  sandbox, like ``shell``).
- On failure the bounded tail of the output (``verify.tail_chars``) goes back to the model
  as the next user message, at most ``verify.max_rounds`` times per turn; then the turn ends
  with a Notice saying the check still fails. The output reaches the model only: no event
  carries it (design.md §3.4).
- A project's own ``verify.command`` (``recheck`` given) runs only while the project's trust
  still holds: once a file it runs changed, it no longer runs, and one Notice says which.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from edgar.config import VerifySettings
from edgar.events import Notice, ToolFinished, VerifyFinished, Where
from edgar.sandbox import explain
from edgar.tools.base import ToolContext, ToolFailure
from edgar.tools.shell import run_command, sandbox_for

if TYPE_CHECKING:
    from edgar.core.turn import Turn
    from edgar.core.views import StopView

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def tail(output: str, limit: int) -> str:
    """The last ``limit`` characters of ``output`` (ANSI colours removed), marked if cut."""
    text = _ANSI.sub("", output).strip()
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    cut = cut[cut.find("\n") + 1:] if "\n" in cut[: limit // 4] else cut  # start on a line
    return f"[… {len(text) - len(cut)} earlier characters omitted …]\n{cut}"


def fix_message(command: str, code: int | None, output: str, round_: int, rounds: int,
                timeout: float) -> str:
    verdict = (f"hung and was killed after {timeout:g}s" if code is None
               else f"failed with exit code {code}")
    return (f"The verify command `{command}` {verdict} after your changes "
            f"(fix round {round_} of {rounds}). Fix the cause, then stop; it runs again "
            f"when you stop.\n<verify-output>\n{output or '(no output)'}\n</verify-output>")


class Verifier:
    """One session's verify hook; counts fix rounds per turn."""

    def __init__(self, settings: VerifySettings,
                 recheck: Callable[[], str | None] | None = None):
        self.settings = settings
        self.recheck = recheck   # a project's command: why trust no longer holds, or None
        self._lapse_said = False
        self.command = (settings.command or "").strip()
        self._changes = 0                      # ToolFinished events that changed files
        self._checked: dict[str, int] = {}     # turn id -> _changes at its last check
        self._rounds: dict[str, int] = {}      # turn id -> fix rounds given

    def on_tool(self, event: ToolFinished) -> None:
        # every depth counts: a subagent's edits are the parent turn's edits too
        if event.files:
            self._changes += 1

    async def after_stop(self, session: StopView, turn: Turn) -> str | None:
        if not self.command or turn.depth != 0 or not turn.files:
            return None
        if self._checked.get(turn.id) == self._changes:
            return None  # nothing changed since the last check of this turn
        self._checked[turn.id] = self._changes
        where: Where = {"session_id": session.id, "turn_id": turn.id, "depth": 0}
        why = self.recheck() if self.recheck is not None else None
        if why:   # the project's own command, and a file it runs changed since the start
            if not self._lapse_said:
                self._lapse_said = True
                session.bus.publish(Notice(level="warning", message=(
                    f"verify `{self.command}` no longer runs: {why}"), **where))
            return None
        ctx = ToolContext(root=session.root, sandbox=session.sandbox)
        started = time.monotonic()
        try:
            done = await run_command(self.command, ctx, self.settings.timeout)
            code, output = (None if done.timed_out else done.exit_code), done.output
            notes = explain(output, code, sandbox_for(ctx).policy)
            output += "".join(f"\n{line}" for line in notes)
        except ToolFailure as exc:  # the sandbox could not start it: a failure, said as such
            code, output = -1, exc.message
        passed = code == 0
        session.bus.publish(VerifyFinished(command=self.command, passed=passed, exit_code=code,
                                           duration=time.monotonic() - started, **where))
        if passed:
            return None
        rounds = self._rounds.get(turn.id, 0)
        if rounds >= self.settings.max_rounds:
            session.bus.publish(Notice(level="warning", message=(
                f"verify `{self.command}` still fails after {rounds} fix round(s) "
                f"(verify.max_rounds = {self.settings.max_rounds}); over to you"), **where))
            return None
        self._rounds[turn.id] = rounds + 1
        session.bus.publish(Notice(level="info", message=(
            f"verify failed: fix round {rounds + 1} of {self.settings.max_rounds}"), **where))
        return fix_message(self.command, code, tail(output, self.settings.tail_chars),
                           rounds + 1, self.settings.max_rounds, self.settings.timeout)
