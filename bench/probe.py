"""The sandbox probe at a start: forked (no file, or another key) ÷ read from the per-boot file
(ADR-0115), each in a fresh interpreter so nothing of one run is cached for the next.

The clock runs around ``capabilities()`` only (imports excluded), in a process that has
imported what a ``-p`` run has imported by then (``edgar.cli.setup``), so the fork copies an
interpreter of edgar's size. Cases interleaved; medians; the load average printed.

    python bench/probe.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ONE = """import json, sys, time
import edgar.cli.setup  # edgar's size, as at a session's first command
from edgar.sandbox.probe import capabilities
start = time.perf_counter()
caps = capabilities()
print(json.dumps([time.perf_counter() - start, repr(caps.namespaces)]))
"""


def once(home: Path) -> tuple[float, str]:
    env = {**os.environ, "EDGAR_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", ONE], env=env, capture_output=True, text=True,
                          check=True)
    took, plan = json.loads(done.stdout)
    return took, plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    cold: list[float] = []
    warm: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        once(home)   # bytecode, and the file written
        before = os.getloadavg()[0]
        for _ in range(args.runs):
            (home / "sandbox-probe.json").unlink(missing_ok=True)
            took, plan = once(home)
            cold.append(took)
            took, again = once(home)
            warm.append(took)
            assert again == plan, (plan, again)
        after = os.getloadavg()[0]
    c, w = statistics.median(cold), statistics.median(warm)
    print(f"medians of {args.runs}; load average {before:.2f} before, {after:.2f} after; plan {plan}")
    print(f"probe forked (no file):       {c * 1000:7.2f} ms")
    print(f"probe read from the file:     {w * 1000:7.2f} ms   ({w / c:.2f}x)")


if __name__ == "__main__":
    main()
