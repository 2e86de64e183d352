"""What the REPL says when it starts: edgar's version, the model and the permission mode, the
keys that matter, and for a resumed session its last two messages. Lines are broken only
between parts, so a narrow terminal never wraps one mid-word."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgar.core.session import Session


def greet(session: Session, say: Callable[[str, str], None]) -> None:
    """Say the greeting for ``session`` through ``say(text, style)``."""
    from edgar import __version__

    width = shutil.get_terminal_size((80, 24)).columns
    for line in fit([f"edgar {__version__}", session.model_name, f"{session.gate.mode} mode"],
                    width):
        say(line, "bold")
    for line in fit(["/help for commands", "Esc interrupts", "Esc-Enter new line",
                     "Ctrl-D exits"], width):
        say(line, "dim")
    if session.messages:
        say(f"resumed session {session.id} ({len(session.messages)} messages)", "cyan")
        for message in session.messages[-2:]:
            text = " ".join(message.text().split())
            if text:
                say(f"  {message.role}: {text[:200]}", "dim")


def fit(parts: list[str], width: int, sep: str = " · ") -> list[str]:
    """``parts`` joined by ``sep`` into lines of at most ``width`` columns, broken only
    between parts; a part too long on its own keeps its end (``…/script.jsonl``)."""
    width = max(width - 1, 10)   # the last column: some terminals wrap a full line
    lines: list[str] = []
    for part in parts:
        if len(part) > width:
            part = "…" + part[-(width - 1):]
        if lines and len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return lines
