"""Scoring ``extract()`` against a labelled set of typed lines (tests/data/typed_lines*.jsonl).

Each line is ``{"text", "rule": the fact expected or null, "source"}``. A predicted fact
*finds* a rule when it equals the expected one (case and a final "." or "!" aside); it *holds
task text* when it is longer than the expected rule and starts with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = {"development": DATA / "typed_lines.jsonl", "hold-out": DATA / "typed_lines_holdout.jsonl"}


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _key(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".!").rstrip()


@dataclass
class Score:
    lines: int = 0
    rules: int = 0
    found: int = 0
    facts_from_non_rules: list[str] = field(default_factory=list)
    with_task_text: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)       # a fact, but not the expected one

    @property
    def predicted(self) -> int:
        return self.found + len(self.facts_from_non_rules) + len(self.with_task_text) + \
            len(self.wrong)

    @property
    def precision(self) -> float:
        return self.found / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.rules if self.rules else 1.0


def score(rows: list[dict], extract: Callable[[str], str | None]) -> Score:
    out = Score()
    for row in rows:
        out.lines += 1
        got = extract(row["text"])
        expected = row["rule"]
        if expected is None:
            if got is not None:
                out.facts_from_non_rules.append(f"{row['text']!r} -> {got!r}")
            continue
        out.rules += 1
        if got is None:
            out.missed.append(repr(row["text"]))
        elif _key(got) == _key(expected):
            out.found += 1
        elif _key(got).startswith(_key(expected)):
            out.with_task_text.append(f"{row['text']!r} -> {got!r}")
        else:
            out.wrong.append(f"{row['text']!r} -> {got!r} (expected {expected!r})")
    return out
