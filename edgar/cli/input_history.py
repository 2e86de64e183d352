"""The REPL's input history (Up, Ctrl-R): ``input_history`` in the project's state dir,
redacted like every durable line.

Guarantees: every string passes ``redact`` before it is written (design.md §3.6); the
file is created private (0600); a line identical to the previous one is not stored twice.
A history file edgar cannot use — a directory, a FIFO, a link, unreadable (``damage``) — is
never opened: ``history_for`` says so in one line with the way out (move it aside or
``edgar doctor --repair``) and the session keeps its history in memory only; a write that
fails later is said once and the rest of the session keeps it in memory, never a traceback.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

WAY_OUT = "move it aside or run `edgar doctor --repair`"


def damage(path: Path) -> str | None:
    """Why ``path`` cannot be the input history, or None when it is absent or usable."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(found.st_mode):
        return "is not a file"
    try:
        os.close(os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK))
    except OSError as exc:
        return f"cannot be read and written ({exc.strerror or exc})"
    return None


def history_for(path: Path, redact: Callable[[str], str],
                say: Callable[[str], None]) -> History:
    """The REPL's history: the file at ``path``, or (when it is damaged) memory only."""
    why = damage(path)
    if why is None:
        try:
            return RedactedFileHistory(path, redact, say)
        except OSError as exc:
            why = f"cannot be made ({exc.strerror or exc})"
    say(f"edgar: {path} {why}, so input history is not kept this session — {WAY_OUT}")
    return InMemoryHistory()


class RedactedFileHistory(FileHistory):
    def __init__(self, path: str | Path, redact: Callable[[str], str],
                 say: Callable[[str], None] | None = None):
        self._redact = redact
        self._say = say
        self._last: str | None = None
        self._failed = False
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(path):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        os.chmod(path, 0o600)
        super().__init__(str(path))

    def store_string(self, string: str) -> None:
        clean = self._redact(string)
        if clean == self._last or self._failed:
            return
        self._last = clean
        try:
            super().store_string(clean)
        except OSError as exc:   # replaced by a directory, the disk full …: said once
            self._failed = True
            if self._say is not None:
                self._say(f"edgar: {self.filename!s} cannot be written "
                          f"({exc.strerror or exc}), so input history is kept in memory only "
                          f"from now on — {WAY_OUT}")

    def append_string(self, string: str) -> None:
        # What is kept in memory for Up/Ctrl-R this session is redacted too: the screen
        # already showed the secret, but the history should not offer it back.
        super().append_string(self._redact(string))
