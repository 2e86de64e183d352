"""``edgar stats`` over a store of 1 000 000 runs. Goal: ≤ 0.25 s for the command, start-up
included (issue 26; it was ≤ 0.5 s in the learning package's issue).

Fills the experience store (``experience.db`` where `edgar stats` looks) of a throw-away project with N runs (two years, a dozen
shapes, three models, both sources) through ``executemany``, recounts the rollups once (what
``edgar stats`` would do itself the first time), then times ``Experience.stats`` in-process
and the ``edgar stats`` command as a subprocess (interpreter start-up included), for each
grouping and a few filters.

Run: python bench/stats.py [N [DIR]] (DIR: fill once, reuse later). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from edgar.core.project import state_dir  # noqa: E402
from edgar.learning.experience import Experience, day_of  # noqa: E402
from edgar.learning.rollup import COLUMNS  # noqa: E402

SHAPES = ["answer", "read", "edit+read", "edit+read+shell", "glob+grep+read", "read+shell",
          "shell", "grep+read", "read+write", "edit+grep+read+shell", "read+task", "write"]
WEIGHTS = [20, 15, 25, 12, 8, 6, 4, 4, 3, 1.5, 1, 0.5]
MODELS = ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1", "anthropic:claude-haiku-4-5"]


def fill(path: Path, n: int) -> float:
    rng = random.Random(7)
    now = time.time()
    start = time.perf_counter()
    with Experience(path) as store:
        # Bulk load the way a database is restored: indexes dropped, rows in, indexes back.
        indexes = [sql for (sql,) in store.query(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'runs_by_%'")]
        with store.write() as conn:
            for name in store.query(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'runs_by_%'"):
                conn.execute(f"DROP INDEX {name[0]}")
        store.conn.execute("PRAGMA cache_size = -262144")
        sql = (f"INSERT INTO runs({', '.join(COLUMNS)}) VALUES "
               f"({', '.join('?' * len(COLUMNS))})")
        batch = []
        for i in range(n):
            started = now - rng.random() * 730 * 86400
            shape = rng.choices(SHAPES, WEIGHTS)[0]
            verify = rng.random() < 0.2
            row = {
                "source": "edgar" if i % 4 else "claude-code", "session_id": f"s{i // 8}",
                "turn_id": f"t{i}", "started": started, "day": day_of(started), "asked": "asked",
                "said": "said", "shape": shape, "tools": "[]", "files": "[]", "skills": "[]",
                "model": rng.choice(MODELS), "input_tokens": rng.randrange(500, 50_000),
                "output_tokens": rng.randrange(10, 3_000), "cache_write_tokens": 0,
                "cache_read_tokens": rng.randrange(0, 20_000),
                "cost": None if i % 50 == 0 else rng.random() / 10,
                "duration": rng.lognormvariate(2.0, 1.0),
                "outcome": rng.choices(["ok", "error", "cancelled"], [90, 6, 4])[0],
                "verify_runs": int(verify),
                "verify_passed": (1 if rng.random() < 0.8 else 0) if verify else None,
                "project": "" if i % 4 else f"-bench-p{i % 3}",
            }
            # by name: a column added to the store is a KeyError here, not a shifted row
            batch.append(tuple(row[c] for c in COLUMNS))
            if len(batch) == 50_000:
                with store.write() as conn:
                    conn.executemany(sql, batch)
                batch = []
        if batch:
            with store.write() as conn:
                conn.executemany(sql, batch)
        with store.write() as conn:
            for statement in indexes:
                conn.execute(statement)
        filled = time.perf_counter() - start
        start = time.perf_counter()
        store.rebuild_rollups()
        print(f"filled {n:,} runs in {filled:.1f} s; rollups recounted in "
              f"{time.perf_counter() - start:.2f} s; file {path.stat().st_size / 1e6:.0f} MB")
    return filled


def best(fn, repeat: int = 5) -> tuple[float, float]:
    """(best wall time, best CPU time of this process and its children) over ``repeat`` runs.

    CPU time is what the figure means on a busy machine: wall time there includes waiting
    for a core."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = _cpu()
        start = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - before)
    return min(walls), min(cpus)


def _cpu() -> float:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def main(n: int = 1_000_000, reuse: str | None = None) -> None:
    project = Path(reuse) if reuse else Path(tempfile.mkdtemp(prefix="edgar-stats-bench-"))
    (project / ".git").mkdir(parents=True, exist_ok=True)
    os.environ["EDGAR_HOME"] = str(project / "home")
    state = state_dir(project)   # where `edgar stats` itself looks
    if not (state / "experience.db").exists():
        state.mkdir(mode=0o700, parents=True, exist_ok=True)
        fill(state / "experience.db", n)
    # an installed edgar has compiled bytecode: measure that, not recompilation
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONPYCACHEPREFIX=str(project / "pycache"))
    cases = [[], ["--by", "model"], ["--by", "day"], ["--by", "outcome"], ["--since", "7d"],
             ["--since", "2025-06-01"], ["--source", "edgar"], ["--json"]]
    print(f"{'edgar stats …':34} {'in-process':>12} {'command':>12} {'(its CPU)':>12}")
    with Experience(state / "experience.db") as store:
        for args in cases:
            by = args[1] if args[:1] == ["--by"] else "shape"
            since = None
            if args[:1] == ["--since"]:
                since = day_of(time.time() - 7 * 86400) if args[1] == "7d" else args[1]
            source = "edgar" if args[:1] == ["--source"] else None
            inproc, _ = best(lambda: store.stats(by, since, source))
            command, cpu = best(lambda: subprocess.run(
                [sys.executable, "-m", "edgar", "stats", *args], cwd=project, env=env,
                check=True, capture_output=True), repeat=3)
            label = " ".join(args) or "(by shape)"
            print(f"{label:34} {inproc:10.3f} s {command:10.3f} s {cpu:10.3f} s")
    wall, cpu = best(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
    print(f"(python start-up alone: {wall:.3f} s, CPU {cpu:.3f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000,
         sys.argv[2] if len(sys.argv) > 2 else None)
