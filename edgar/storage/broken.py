"""``BrokenState``: a state file edgar reads back is not what edgar wrote (issue 21 item 10).

Guarantees: its message is one line naming the file and the way out (move it aside, or
``edgar doctor --repair``); ``cli/main.py`` prints it and exits 1, never a traceback. A leaf
with no imports, so the CLI can catch it without loading SQLite.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BrokenState"]


class BrokenState(Exception):
    """The path, and what the person can do. Never raised for a busy database."""

    def __init__(self, path: Path, what: str = "is not a database"):
        self.path = path
        super().__init__(f"{path} {what} — move it aside or run `edgar doctor --repair`")
