"""What the learner hears in whole typed messages (issue 22), on the development set and the
hold-out (tests/data/messages_*.jsonl, supersede_pairs*.jsonl; tests/support/messages.py
says how a match is counted).

Prints, per set: explicit rules found (overall, and for rules not at the start of their
message), rules learned that nobody stated, stored texts with a lead-in or task words, implicit
rules proposed, non-rules proposed, time-bound statements made active, contradicting pairs
resolved (and pairs wrongly resolved). The baseline is ``extract()`` on the whole message, the
learner before issue 22 (one rule, from the start only; nothing proposed, nothing replaced).
Goals on the hold-out: found ≥ 90 %, 0 learned wrongly, 0 with lead-in or task words;
proposed ≥ 60 %, non-rules proposed ≤ 5 %.

Run: python bench/learner_quality.py [-v]. Prints figures; asserts nothing (the goals are
asserted by tests/unit/test_learner_labelled.py).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from edgar.learning.learner import extract  # noqa: E402
from support.messages import PAIRS, SETS, load, score, score_pairs  # noqa: E402


def baseline(text: str) -> tuple[list[str], list[str]]:
    fact = extract(text)
    return ([fact] if fact else []), []


def learners() -> dict[str, tuple]:
    out: dict[str, tuple] = {"baseline (extract, before issue 22)": (baseline, lambda a, b: False)}
    try:
        hearing = importlib.import_module("edgar.learning.hearing")
    except ImportError:
        return out
    try:
        replaces = importlib.import_module("edgar.memory.subjects").replaces
    except ImportError:
        replaces = out["baseline (extract, before issue 22)"][1]
    out["learner (hearing.hear, subjects.replaces)"] = (hearing.heard, replaces)
    return out


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    for who, (hear, replaces) in learners().items():
        print(f"== {who}")
        for name, path in SETS.items():
            s = score(load(path), hear)
            p = score_pairs(load(PAIRS[name]), replaces)
            print(f"{name}: {s.messages} messages · explicit found {s.pct(s.found, s.explicit)}"
                  f" · not at the start {s.pct(s.later_found, s.later)}"
                  f" · learned wrongly {len(s.learned_wrong)}"
                  f" · with lead-in or task words {len(s.with_extra)}"
                  f" · implicit proposed {s.pct(s.proposed, s.implicit)}"
                  f" · non-rules proposed {s.pct(len(s.proposed_from_non_rules), s.non_rule_rows)}"
                  f" · time-bound made active {len(s.time_bound_active)}/{s.time_bound}"
                  f" · contradicting pairs resolved {p.resolved}/{p.contradicting}"
                  f" · wrongly replaced {len(p.wrongly_replaced)}/{p.pairs - p.contradicting}")
            if verbose:
                for label, items in (("learned wrongly", s.learned_wrong),
                                     ("lead-in/task words", s.with_extra),
                                     ("missed", s.missed),
                                     ("not proposed", s.missed_proposals),
                                     ("proposed from a non-rule", s.proposed_from_non_rules),
                                     ("other proposal", s.other_proposals),
                                     ("time-bound active", s.time_bound_active),
                                     ("pair unresolved", p.unresolved),
                                     ("pair wrongly replaced", p.wrongly_replaced)):
                    for item in items:
                        print(f"  {label}: {item}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
