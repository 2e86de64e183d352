"""``edgar -p PROMPT``: one turn, no questions asked, output for people or scripts.

Guarantees:
- ``run_prompt`` builds exactly one ``PromptTyped``: the ``-p`` argument, as typed. Piped
  stdin and ``@path`` files travel as ``Attached`` and never become a ``PromptTyped``.
- Exit codes: 0 ok, 1 turn error, 2 usage or config error, 130 cancelled.
- ``--output-format``: ``text`` streams the answer; ``json`` prints one summary object;
  ``stream-json`` prints every bus event as one JSON line as it happens.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
from pathlib import Path
from typing import IO

from edgar.events import (
    Attached, Event, Notice, PromptTyped, TextDelta, ToolFinished, ToolProposed, to_dict,
)

AT_PATH = re.compile(r"(?<!\S)@(\S+)")
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130


class UsageError(Exception):
    """A mistake in how edgar was called; exit 2 with this message."""


def at_paths(prompt: str, cwd: Path) -> list[tuple[str, str]]:
    """(``@path``, body) for each ``@path`` in the prompt; a missing file is a UsageError."""
    out = []
    for match in AT_PATH.finditer(prompt):
        name = match.group(1).rstrip(".,;:!?)\"'")
        path = (cwd / name).expanduser()
        try:
            body = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise UsageError(f"@{name}: no such file") from None
        except IsADirectoryError:
            raise UsageError(f"@{name}: is a directory, not a file") from None
        except OSError as exc:
            raise UsageError(f"@{name}: cannot read it ({exc.strerror})") from None
        out.append((f"@{name}", body))
    return out


def read_stdin(stream: IO[str] | None) -> str:
    if stream is None or stream.closed:
        return ""
    try:
        if stream.isatty():
            return ""
        return stream.read()
    except (OSError, ValueError):
        return ""


class _Printer:
    """Subscriber that writes a -p run's output in the chosen format."""

    def __init__(self, fmt: str, out: IO[str], err: IO[str]):
        self.fmt, self.out, self.err = fmt, out, err
        self.err_tty = err.isatty()
        self.ended_with_newline = True

    def __call__(self, event: Event) -> None:
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


async def run_prompt(app, prompt: str, attached: list[tuple[str, str]] | None = None,
                     fmt: str = "text", out: IO[str] = sys.stdout,
                     err: IO[str] = sys.stderr) -> int:
    """Run the ``-p`` prompt as one turn and print the result; returns the exit code."""
    from edgar.core.loop import run_turn

    printer = _Printer(fmt, out, err)
    if fmt != "quiet":  # "quiet": the caller renders the session itself (edgar demo)
        app.observe(printer)
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
    app.bus.publish(PromptTyped(text=prompt, session_id=session.id))
    if attached:
        app.bus.publish(Attached(bodies=tuple(b for _, b in attached),
                                 sources=tuple(s for s, _ in attached), session_id=session.id))
    try:
        result = await run_turn(session, prompt, attached)
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
            "num_turns": result.steps,
            "tools": [{"name": n, "ok": ok, "error_kind": kind} for n, ok, kind in result.tools],
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
