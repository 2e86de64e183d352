"""REPL start to first prompt: spawn ``edgar`` on a pseudo-terminal and time until ``› `` shows.

Prints median, p95 and max over ``--runs`` starts (goal ≤ 0.5 s), and ``edgar --version`` on
the same machine as the floor (interpreter start-up). Offline: the scripted provider, a
fresh temporary project and EDGAR_HOME. Usage: ``python bench/repl_start.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "e2e")]

from support.project import edgar_env, make_project, write_script  # noqa: E402
from test_repl_pty import Terminal  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """user + system CPU time the process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="edgar-bench-start-"))
    project = make_project(tmp / "proj")
    script = write_script(tmp / "script.jsonl", [{"text": "hi"}])
    env = edgar_env(tmp / "home", TERM="xterm")
    argv = [sys.executable, "-m", "edgar", "--model", f"scripted:{script}"]
    subprocess.run(argv + ["--version"], env=env, cwd=project, capture_output=True)  # warm caches
    floor, starts, cpu = [], [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "edgar", "--version"], env=env, cwd=project,
                       capture_output=True, check=True)
        floor.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        term = Terminal(argv, project, env)
        term.expect("› ", timeout=30)
        starts.append(time.perf_counter() - t0)
        try:
            cpu.append(cpu_seconds(term.proc.pid))
        except (OSError, IndexError, ValueError):
            pass
        term.send("\x04")
        term.wait_exit()
    print(f"REPL start to first prompt over {args.runs} runs: median {statistics.median(starts):.3f} s, "
          f"p95 {pct(starts, 0.95):.3f} s, max {max(starts):.3f} s  (goal ≤ 0.5 s)")
    if cpu:
        print(f"CPU time the process had used by then: median {statistics.median(cpu):.3f} s")
    print(f"edgar --version (interpreter floor): median {statistics.median(floor):.3f} s")
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
