"""How a tool call looks while it runs and after: the output tail, and an edit's diff.

Guarantees:
- ``OutputTail`` keeps at most ``KEEP`` characters of each running call's output (the end),
  with terminal control sequences and control characters removed: the output is hostile
  and must not move the cursor, retitle the window or recolour the screen.
- ``tail`` gives the last ``TAIL_LINES`` non-blank lines of the newest running call, for
  the dimmed area above the status line; ``finish`` moves a call's output to ``last``
  (what the expand key prints) and says how many lines it had.
- ``edit_preview`` is a real unified diff of the file as it is against the file after the
  edit: line numbers of the file, 3 lines of context. When the file cannot be read or the
  text is not found it falls back to a diff of the two strings alone.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

KEEP = 64_000
TAIL_LINES = 5
WIDTH = 160
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]"
                      r"|[\x00-\x08\x0b-\x1f\x7f]")


def clean(text: str) -> str:
    """Output made safe to print: no escape sequences, no control characters but newline/tab;
    a carriage return keeps only what was written after it (progress bars)."""
    text = text.replace("\r\n", "\n")
    text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    return _CONTROL.sub("", text).replace("\t", "    ")


class OutputTail:
    def __init__(self) -> None:
        self.running: dict[str, str] = {}
        self.last: tuple[str, str] | None = None     # (tool line, output) of the last call

    def feed(self, call_id: str, text: str) -> None:
        joined = self.running.get(call_id, "") + text
        self.running[call_id] = joined[-KEEP:]

    def tail(self, call_id: str | None = None) -> list[str]:
        if not self.running:
            return []
        text = self.running.get(call_id or "", "") if call_id else next(reversed(
            self.running.values()))
        lines = [line[:WIDTH] for line in clean(text).split("\n") if line.strip()]
        return lines[-TAIL_LINES:]

    def finish(self, call_id: str, line: str) -> int:
        """Lines the call printed (0 when it printed nothing); its output becomes ``last``."""
        text = self.running.pop(call_id, "")
        if not text.strip():
            return 0
        shown = clean(text)
        self.last = (line, shown)
        return shown.count("\n") + (not shown.endswith("\n"))


def edit_preview(root: Path | None, args: Mapping[str, Any], limit: int = 40) -> list[str]:
    """A unified diff (no file headers) of what an ``edit`` call would change."""
    old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
    before = _read(root, args.get("path"))
    if before is not None and old and old in before:
        after = before.replace(old, new, -1 if args.get("replace_all") else 1)
        a, b = before.splitlines(), after.splitlines()
    else:
        a, b = old.splitlines(), new.splitlines()
    lines = list(difflib.unified_diff(a, b, lineterm="", n=3))[2:]
    if len(lines) > limit:
        lines = lines[:limit] + [f"… {len(lines) - limit} more diff lines"]
    return lines


def _read(root: Path | None, path: object) -> str | None:
    if root is None or not isinstance(path, str) or not path:
        return None
    full = (root / path).resolve()
    if root.resolve() not in full.parents:
        return None
    try:
        if full.stat().st_size > 2_000_000:
            return None
        return full.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
