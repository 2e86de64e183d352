"""What asking trust costs now that it covers the files trusted config runs (ADR-0073).

Measures, in one process, the median of ``trust.trusted(root)`` on a trusted project whose
config runs N hook scripts (N = 0, 3, 30), each script 4 KB: the check a session makes at
start (several times) and before every project hook and verify run. Goal: a few ms at most,
so a PreToolUse hook per tool call does not notice it. Prints the load average.

    python bench/trust_check.py [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path


def project(base: Path, scripts: int) -> Path:
    root = base / f"p{scripts}"
    (root / ".edgar").mkdir(parents=True)
    (root / "hooks").mkdir()
    lines = []
    for i in range(scripts):
        (root / "hooks" / f"h{i}.py").write_text("# x\n" * 1024)
        lines.append(f'[[hooks.PreToolUse]]\ncommand = "python3 hooks/h{i}.py --rules r.json"\n')
    (root / ".edgar" / "config.toml").write_text("".join(lines) or "max_steps = 9\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["EDGAR_HOME"] = str(Path(tmp) / "home")
        from edgar.config import trust

        roots = {n: project(Path(tmp), n) for n in (0, 3, 30)}
        for root in roots.values():
            trust.trust(root)
            assert trust.trusted(root)
        times: dict[int, list[float]] = {n: [] for n in roots}
        for _ in range(args.runs):          # interleaved: load hits every case alike
            for n, root in roots.items():
                start = time.perf_counter()
                trust.trusted(root)
                times[n].append(time.perf_counter() - start)
    print(f"load average {os.getloadavg()[0]:.2f}; median of {args.runs} runs")
    for n, found in times.items():
        print(f"  trusted() with {n:2d} hook scripts: {statistics.median(found) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
