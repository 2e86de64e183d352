"""The REPL's input history (Up, Ctrl-R): ``.edgar/input_history``, redacted like every durable line.

Guarantees: every string passes ``redact`` before it is written (design.md §3.6); the
file is created private (0600); a line identical to the previous one is not stored twice.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory


class RedactedFileHistory(FileHistory):
    def __init__(self, path: str | Path, redact: Callable[[str], str]):
        self._redact = redact
        self._last: str | None = None
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        os.chmod(path, 0o600)
        super().__init__(str(path))

    def store_string(self, string: str) -> None:
        clean = self._redact(string)
        if clean == self._last:
            return
        self._last = clean
        super().store_string(clean)

    def append_string(self, string: str) -> None:
        # What is kept in memory for Up/Ctrl-R this session is redacted too: the screen
        # already showed the secret, but the history should not offer it back.
        super().append_string(self._redact(string))
