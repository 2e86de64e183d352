"""The error learner on a scripted 30-session run (issue 10): refusals, grep no-matches and
other exit codes that are answers, and one really broken command (``make build``, exit 2, in
three sessions). Goal: exactly one fact, for the broken command. On the code before issue 10
(4342902) the same run filed 8: the refused write, edit and shell, grep, diff, test and git
(grep/diff --exit-code) exit 1, and make.

Run: python bench/error_facts_run.py [SESSIONS]. Prints figures; asserts nothing (the goal is
asserted by tests/integration/test_error_facts_run.py).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.error_sessions import make_project, run  # noqa: E402


def main(argv: list[str]) -> int:
    sessions = int(argv[0]) if argv else 30
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = run(make_project(Path(tmp) / "proj"), sessions)
        took = time.perf_counter() - start
    seen = ", ".join(f"{k} {n}" for k, n in sorted(result.kinds.items()))
    print(f"{result.sessions} sessions in {took:.1f} s · failures on the bus: {seen}")
    print(f"error facts: {len(result.facts)} (goal: 1)")
    for fact in result.facts:
        print(f"  {fact}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
