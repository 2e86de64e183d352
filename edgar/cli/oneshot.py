"""``edgar -p PROMPT``: one turn, no questions asked, output for people or scripts.

Guarantees:
- ``run_prompt`` builds at most one ``PromptTyped``: the ``-p`` argument (or the command-line
  prompt), as typed, carrying the id of the turn it starts. With nothing typed (``-p`` without
  an argument, or stdin not a terminal) none is published. Piped stdin and ``@path`` files
  travel as ``Attached`` and never become a ``PromptTyped``.
- Exit codes: 0 ok, 1 turn error, 2 usage or config error, 130 cancelled.
- ``--output-format``: ``text`` streams the answer; ``json`` prints one summary object;
  ``stream-json`` prints every bus event as one JSON line as it happens.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from typing import IO

from edgar.events import (
    Attached, Event, FactLearned, Notice, PromptTyped, TextDelta, ToolFinished, ToolProposed, to_dict,
)

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130


class UsageError(Exception):
    """A mistake in how edgar was called; exit 2 with this message."""


class _Printer:
    """Subscriber that writes a -p run's output in the chosen format."""

    def __init__(self, fmt: str, out: IO[str], err: IO[str]):
        self.fmt, self.out, self.err = fmt, out, err
        self.err_tty = err.isatty()
        self.ended_with_newline = True
        self.learned: list[FactLearned] = []

    def __call__(self, event: Event) -> None:
        if isinstance(event, FactLearned):
            self.learned.append(event)
        if self.fmt == "stream-json":
            self.out.write(json.dumps(to_dict(event), default=str) + "\n")
            self.out.flush()
        elif self.fmt == "text":
            if isinstance(event, TextDelta) and event.depth == 0:
                self.out.write(event.text)
                self.out.flush()
                self.ended_with_newline = event.text.endswith("\n")
            elif isinstance(event, ToolProposed) and self.err_tty:
                self.err.write(f"· {event.tool}\n")
            elif isinstance(event, ToolFinished) and self.err_tty and event.error:
                self.err.write(f"  ✗ {event.tool}: {event.error.kind}\n")
            elif isinstance(event, Notice) and event.depth == 0:
                self.err.write(f"edgar: {event.message}\n")
            elif isinstance(event, FactLearned):
                from edgar.cli.render import learned_line

                self.err.write(f"edgar: {learned_line(event, 'edgar memory forget')}\n")


async def run_prompt(app, prompt: str | None, attached: list[tuple[str, str]] | None = None,
                     fmt: str = "text", out: IO[str] = sys.stdout,
                     err: IO[str] = sys.stderr) -> int:
    """Run one turn for what was typed (``prompt``; None: nothing was) and the attachments."""
    from edgar.core.loop import run_turn
    from edgar.core.session import new_id

    printer = _Printer(fmt, out, err)
    if fmt != "quiet":  # "quiet": the caller renders the session itself (edgar demo)
        app.bus.subscribe(Event, printer)
    session = app.session
    attached = attached or []
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    interrupts = 0

    def on_sigint() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1:
            raise SystemExit(EXIT_CANCELLED)
        if task is not None:
            task.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError):
        pass
    turn_id = new_id()   # the PromptTyped names the turn it starts (ADR-0002)
    if prompt is not None:
        app.bus.publish(PromptTyped(text=prompt, session_id=session.id, turn_id=turn_id))
    if attached:
        app.bus.publish(Attached(bodies=tuple(b for _, b in attached),
                                 sources=tuple(s for s, _ in attached), session_id=session.id,
                                 turn_id=turn_id))
    try:
        result = await run_turn(session, prompt or "", attached, turn_id=turn_id)
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
    if fmt == "text" and not printer.ended_with_newline:
        out.write("\n")
    if fmt == "json":
        out.write(json.dumps({
            "result": result.text,
            "session_id": session.id,
            "outcome": result.outcome,
            "usage": {"input_tokens": result.usage.input_tokens,
                      "output_tokens": result.usage.output_tokens,
                      "cache_write_tokens": result.usage.cache_write_tokens,
                      "cache_read_tokens": result.usage.cache_read_tokens},
            "cost_usd": result.cost,
            "duration_ms": round(result.duration * 1000),
            "num_turns": result.model_calls,
            "tools": [{"name": n, "ok": ok, "error_kind": kind} for n, ok, kind in result.tools],
            "learned": [{"id": e.fact_id, "text": e.text, "provenance": e.provenance,
                         "reactivated": e.reactivated} for e in printer.learned],
            **({"error": result.error_message} if result.error_message else {}),
        }) + "\n")
    out.flush()
    if result.outcome == "cancelled":
        err.write("edgar: cancelled\n")
        return EXIT_CANCELLED
    if result.outcome == "error":
        err.write(f"edgar: {result.error_message or 'the turn failed'}\n")
        return EXIT_ERROR
    return EXIT_OK
