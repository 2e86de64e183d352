"""design.md §3.8: four edgar processes × 250 scripted turns on one project → 1 000 runs in
the store, 1 000 whole history entries, no database error, one error fact.

Each worker is a real process running turns the way ``edgar -p`` does (``build`` →
``run_prompt`` → ``close``, a new session per turn) without paying interpreter start-up per
turn; a few real ``edgar -p`` commands run alongside. ``EDGAR_LEARNING_TURNS`` changes the
turns per worker (default 250).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from collections import Counter

import pytest

pytest.importorskip("edgar.learning")

from support.project import edgar_env, make_project, run_edgar, state_of, write_script  # noqa: E402

from edgar.learning.history import History, is_whole  # noqa: E402

pytestmark = pytest.mark.timing   # processes racing for one project

TURNS = int(os.environ.get("EDGAR_LEARNING_TURNS", 250))
WORKERS = 4
CLI_RUNS = 2

WORKER = textwrap.dedent("""
    import asyncio, io, sys
    from pathlib import Path
    from edgar.cli.oneshot import run_prompt
    from edgar.cli.setup import build
    from edgar.config import load

    root, script, turns, worker = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    settings = load(root, overrides={"model": "scripted:" + script, "permission_mode": "yes"})
    for i in range(turns):
        app = build(root, settings)
        try:
            err = io.StringIO()
            code = asyncio.run(run_prompt(app, f"worker {worker} turn {i}", out=io.StringIO(),
                                          err=err))
        finally:
            app.close()
        if code != 0:
            sys.exit(f"turn {i} exited {code}: {err.getvalue()}")
""")


def turn_lines(worker: int) -> list[dict]:
    return [
        {"text": "Looking.", "tool_calls": [
            {"name": "read", "input": {"path": f"src/w{worker}.py"}},
            {"name": "shell", "input": {"command": "false"}}],
         "usage": {"input_tokens": 50, "output_tokens": 5}},
        {"text": f"Worker {worker} is fine.", "usage": {"input_tokens": 60, "output_tokens": 6}},
    ]


def test_four_processes_share_one_project(tmp_path):
    root = make_project(tmp_path / "project",
                        {f"src/w{w}.py": f"print({w})\n" for w in range(WORKERS + 1)})
    env = edgar_env(tmp_path / "home")
    worker_py = tmp_path / "worker.py"
    worker_py.write_text(WORKER)
    procs = []
    for w in range(WORKERS):
        script = write_script(tmp_path / f"w{w}.jsonl", turn_lines(w) * TURNS)
        procs.append(subprocess.Popen(
            [sys.executable, str(worker_py), str(root), str(script), str(TURNS), str(w)],
            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    cli_script = write_script(tmp_path / "cli.jsonl", turn_lines(WORKERS))
    for _ in range(CLI_RUNS):       # the real command, racing the workers
        done = run_edgar(["-p", "always check the workers", "--model", f"scripted:{cli_script}",
                          "--permission-mode", "yes"], cwd=root, env=env)
        assert done.returncode == 0, done.stderr
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert "database" not in err.lower() and "Traceback" not in err, err

    total = WORKERS * TURNS + CLI_RUNS
    state = state_of(root, env["EDGAR_HOME"])
    with sqlite3.connect(state / "experience.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT asked, shape, session_id FROM runs").fetchall()
        rolled = db.execute("SELECT sum(runs) FROM rollups WHERE dim = 'shape'").fetchone()[0]
    assert len(rows) == total and rolled == total
    asked = Counter(a for a, _, _ in rows)
    assert all(asked[f"worker {w} turn {i}"] == 1 for w in range(WORKERS) for i in range(TURNS))
    assert {s for _, s, _ in rows} == {"read+shell"}

    blocks = [b for name in ("history.1.md", "history.md") if (state / name).exists()
              for b in (state / name).read_text().split("\n\n") if b.strip()]
    assert len(blocks) == total and all(is_whole(b) for b in blocks)
    assert len(History(state).entries()) == total

    with sqlite3.connect(state / "memory.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        facts = db.execute("SELECT provenance, text FROM facts").fetchall()
    assert sorted(p for p, _ in facts) == ["error-template", "user-prompt"]
    logs = "".join(p.read_text() for p in (state / "sessions").glob("*.jsonl"))
    assert "subscriber_error" not in logs
