"""How well ``extract()`` finds the rule in a typed line (issue 10): precision and recall on
the labelled sets in tests/data (``typed_lines.jsonl``, the development set, and
``typed_lines_holdout.jsonl``, written before the grammar was tuned and held out of it).

Goals: 0 facts from lines that state no rule, 0 rules stored with task text, ≥ 90 % of rules
found. Run: python bench/extract_quality.py [-v]. Prints figures; asserts nothing (the
goals are asserted by tests/unit/test_extract_labelled.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from edgar.learning.learner import extract  # noqa: E402
from support.labelled import SETS, load, score  # noqa: E402


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    for name, path in SETS.items():
        s = score(load(path), extract)
        print(f"{name}: {s.lines} lines, {s.rules} rules · found {s.found}/{s.rules} "
              f"(recall {s.recall:.1%}) · precision {s.precision:.1%} · "
              f"facts from non-rules {len(s.facts_from_non_rules)} · with task text "
              f"{len(s.with_task_text)} · other text {len(s.wrong)}")
        if verbose:
            for label, items in (("fact from a non-rule", s.facts_from_non_rules),
                                 ("with task text", s.with_task_text), ("missed", s.missed),
                                 ("other text", s.wrong)):
                for item in items:
                    print(f"  {label}: {item}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
