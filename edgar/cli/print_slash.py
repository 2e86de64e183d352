"""``edgar -p /command``: edgar's slash commands in print mode, run as in the REPL.

Guarantees:
- ``-p "/help"``, ``-p "/undo"``, ``-p "/cost"`` … run the REPL's own handler
  (``cli/slash.py``) and are never sent to the model; a built-in name wins over a command
  file of the same name, as in the REPL. Any other ``/word`` (no such command) is a prompt,
  sent as typed, as before.
- What the command says goes to stdout as text, or as one Claude-Code-shaped ``result``
  (``json``; ``stream-json`` after its ``init`` line), with ``is_error`` false.
- A note the command leaves for the model (``/undo``'s list of restored files) is appended to
  the session as an edgar-written message, so ``edgar -c`` continues with the model told; it
  is never a ``PromptTyped``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable
from typing import IO, Any

from edgar.cli import slash

EXIT_OK = 0


class PrintHost:
    """The REPL's ``Host`` for one command line of ``-p``: it says things into a list."""

    def __init__(self, app: Any):
        self._app = app
        self.lines: list[str] = []
        self.work: list[Awaitable[Any]] = []

    @property
    def app(self) -> Any:
        return self._app

    @property
    def busy(self) -> bool:
        return False   # nothing runs beside a -p command

    def say(self, text: str, style: str = "") -> None:
        self.lines.append(text)

    def request_exit(self) -> None:
        pass   # -p ends after the command anyway

    def run_foreground(self, work: Awaitable[Any]) -> None:
        self.work.append(work)

    def custom_commands(self) -> list[tuple[str, str, str]]:
        from edgar.cli.custom_commands import discover
        from edgar.config import user_dir

        found, warnings = discover(self._app.session.root, user_dir())
        self.lines.extend(f"skipped {w}" for w in warnings)
        return [(c.name, c.where, c.description) for c in found.values()
                if c.name not in slash.COMMANDS]

    def note_for_model(self, text: str) -> None:
        from edgar.conversation import Message, TextBlock

        self._app.session.append(Message("user", [TextBlock(f"<system-reminder>\n{text}\n"
                                                            "</system-reminder>")]))


def is_builtin(line: str) -> bool:
    """A ``-p`` prompt that is one of edgar's own slash commands."""
    line = line.strip()
    if not slash.is_command(line):
        return False
    word = line[1:].split(maxsplit=1)[0] if line[1:].strip() else ""
    return word in slash.COMMANDS or word in slash.ALIASES


async def run_slash(app: Any, line: str, fmt: str, out: IO[str], err: IO[str],
                    stream: Any = None) -> int:
    """Run the command ``line`` for ``-p``; its exit code."""
    started = time.monotonic()
    host = PrintHost(app)
    await slash.run(host, line.strip())
    for work in host.work:
        await work
    text = "\n".join(host.lines)
    if fmt in ("json", "stream-json"):
        record = {"type": "result", "subtype": "success", "is_error": False,
                  "duration_ms": round((time.monotonic() - started) * 1000),
                  "duration_api_ms": 0, "num_turns": 0, "result": text,
                  "session_id": app.session.id, "total_cost_usd": 0.0,
                  "usage": {"input_tokens": 0, "output_tokens": 0,
                            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
                  "permission_denials": []}
        if stream is not None:
            stream.write(record)
        else:
            out.write(json.dumps(record) + "\n")
    elif text:
        out.write(text + "\n")
    out.flush()
    return EXIT_OK
