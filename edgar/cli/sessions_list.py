"""``edgar -r``: the project's sessions, newest first, and finding one by an id prefix.

Guarantees: read-only (a damaged line is skipped, never fatal); each row has the id, the
date of its last write, its turns (``TurnFinished`` at depth 0) and its first typed prompt
(as logged, so redacted); ``find`` accepts a unique id prefix and says when a prefix is
ambiguous or matches nothing.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Row:
    id: str
    when: datetime.datetime
    turns: int
    first: str


def summary(path: Path) -> Row:
    turns, first = 0, ""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                kind = record.get("type")
                if kind == "TurnFinished" and not record.get("depth"):
                    turns += 1
                elif kind == "PromptTyped" and not first and not record.get("depth"):
                    first = str(record.get("text") or "")
                elif not first and record.get("kind") == "message" and record.get("role") == "user":
                    blocks = record.get("content") or []
                    texts = [b.get("text", "") for b in blocks if isinstance(b, dict)
                             and b.get("type") in (None, "text") and b.get("text")]
                    first = texts[0] if texts else ""
    except OSError:
        pass
    when = datetime.datetime.fromtimestamp(path.stat().st_mtime)
    return Row(path.stem, when, turns, " ".join(first.split()))


def rows(paths: list[Path], limit: int = 30) -> list[Row]:
    return [summary(p) for p in paths[:limit]]


def render(found: list[Row]) -> list[str]:
    out = []
    for row in found:
        first = row.first if len(row.first) <= 60 else row.first[:59] + "…"
        turns = f"{row.turns} turn{'s' * (row.turns != 1)}"
        out.append(f"{row.id}  {row.when:%Y-%m-%d %H:%M}  {turns:>9}  {first}")
    return out


def find(paths: list[Path], prefix: str) -> Path | str:
    """The session whose id starts with ``prefix``, or a message saying why not."""
    matches = [p for p in paths if p.stem.startswith(prefix)]
    exact = [p for p in matches if p.stem == prefix]
    if exact:
        return exact[0]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        return f"no session {prefix!r} (edgar -r lists them)"
    return (f"{len(matches)} sessions start with {prefix!r}: "
            f"{', '.join(p.stem for p in matches[:5])} — type more of the id")
