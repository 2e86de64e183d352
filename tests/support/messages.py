"""Scoring what the learner hears in whole typed messages (issue 22) against the labelled sets
``tests/data/messages_labelled.jsonl`` (development) and ``messages_holdout.jsonl`` (split off,
seeded, before any rule was written), and the supersession pairs ``supersede_pairs*.jsonl``.

A message row is ``{"text", "explicit": [stored text expected], "implicit": [proposal
expected], "time_bound", "source", "licence"}``; a row with neither list and not time-bound
is a non-rule. A pair row is ``{"old", "new", "replaces", "source", "licence"}``.

A produced text *matches* an expected one when their ``key``s are equal: case, punctuation,
Markdown emphasis and whitespace aside. A produced rule that matches nothing but holds an
expected one (key-wise) kept a lead-in or task words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = {"development": DATA / "messages_labelled.jsonl",
        "hold-out": DATA / "messages_holdout.jsonl"}
PAIRS = {"development": DATA / "supersede_pairs.jsonl",
         "hold-out": DATA / "supersede_pairs_holdout.jsonl"}

# what the learner makes of one message: (active rules, pending proposals)
Hear = Callable[[str], tuple[list[str], list[str]]]


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def key(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text.casefold()).split())


def at_start(text: str, rule: str) -> bool:
    """Whether ``rule`` is stated before any sentence end or line break of ``text``."""
    words = key(rule).split()[:3]
    flat = text.casefold()
    where = -1
    for match in re.finditer(re.escape(words[0]) if words else r"^", flat):
        if key(flat[match.start():]).startswith(" ".join(words)):
            where = match.start()
            break
    if where < 0:
        return True
    return re.search(r"[.!?;]\s|\n", text[:where]) is None


@dataclass
class Score:
    messages: int = 0
    explicit: int = 0
    found: int = 0
    later: int = 0                   # explicit rules not at the start of their message
    later_found: int = 0
    non_rule_rows: int = 0
    learned_wrong: list[str] = field(default_factory=list)    # a rule nobody stated
    with_extra: list[str] = field(default_factory=list)       # lead-in or task words kept
    missed: list[str] = field(default_factory=list)
    implicit: int = 0
    proposed: int = 0
    missed_proposals: list[str] = field(default_factory=list)
    proposed_from_non_rules: list[str] = field(default_factory=list)
    other_proposals: list[str] = field(default_factory=list)  # on a rule row, not expected
    time_bound: int = 0
    time_bound_active: list[str] = field(default_factory=list)

    def pct(self, a: int, b: int) -> str:
        return f"{a}/{b} ({a / b:.0%})" if b else f"{a}/0"


def score(rows: list[dict], hear: Hear) -> Score:
    out = Score()
    for row in rows:
        out.messages += 1
        rules, proposals = hear(row["text"])
        expected = {key(e): e for e in row["explicit"]}
        wanted = {key(i): i for i in row["implicit"]}
        non_rule = not expected and not wanted and not row["time_bound"]
        out.non_rule_rows += non_rule
        out.time_bound += row["time_bound"]
        got = {key(r): r for r in rules}
        for k, e in expected.items():
            out.explicit += 1
            later = not at_start(row["text"], e)
            out.later += later
            if k in got:
                out.found += 1
                out.later_found += later
            else:
                out.missed.append(f"{row['text']!r} -> {rules!r} (expected {e!r})")
        for k, r in got.items():
            if k in expected:
                continue
            if row["time_bound"]:
                out.time_bound_active.append(f"{row['text']!r} -> {r!r}")
            elif any(e and e in k for e in expected):
                out.with_extra.append(f"{row['text']!r} -> {r!r}")
            else:
                out.learned_wrong.append(f"{row['text']!r} -> {r!r}")
        offered = {key(p): p for p in proposals}
        for k, i in wanted.items():
            out.implicit += 1
            if k in offered:
                out.proposed += 1
            else:
                out.missed_proposals.append(f"{row['text']!r} -> {proposals!r} (expected {i!r})")
        for k, p in offered.items():
            if k in wanted:
                continue
            (out.proposed_from_non_rules if non_rule else out.other_proposals).append(
                f"{row['text']!r} -> {p!r}")
    return out


@dataclass
class PairScore:
    pairs: int = 0
    contradicting: int = 0
    resolved: int = 0
    wrongly_replaced: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


def score_pairs(rows: list[dict], replaces: Callable[[str, str], bool]) -> PairScore:
    out = PairScore()
    for row in rows:
        out.pairs += 1
        said = replaces(row["old"], row["new"])
        if row["replaces"]:
            out.contradicting += 1
            if said:
                out.resolved += 1
            else:
                out.unresolved.append(f"{row['old']!r} then {row['new']!r}")
        elif said:
            out.wrongly_replaced.append(f"{row['old']!r} then {row['new']!r}")
    return out
