"""design.md §3.8: kill -9 at random points of scripted turns leaves every store whole.

A driver process imports edgar once, then forks one child per round; the child runs turns
the way ``edgar -p`` does (``build`` → ``run_prompt`` → ``close``) until the driver kills it
with SIGKILL after a random delay, so kills land anywhere: mid-stream, mid-tool, inside a
SQLite commit, inside a history append. Afterwards: ``PRAGMA integrity_check`` is ok, no
finished turn lost its row, no history entry is partial, and the real ``edgar -p`` works.
A few kills also hit the real ``edgar -p`` command. ``EDGAR_KILLS`` sets the number of
rounds (default 120).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("edgar.learning")

from support.project import edgar_env, make_project, run_edgar, state_of, write_script  # noqa: E402

from edgar.learning.history import is_whole  # noqa: E402

pytestmark = pytest.mark.timing   # kills edgar at random points mid-write

KILLS = int(os.environ.get("EDGAR_KILLS", 120))
CLI_KILLS = 4

DRIVER = textwrap.dedent("""
    import asyncio, io, os, random, signal, sys, time
    from pathlib import Path
    from edgar.cli.oneshot import run_prompt
    from edgar.cli.setup import build
    from edgar.config import load

    root, script, kills, done_path = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    settings = load(root, overrides={"model": "scripted:" + script, "permission_mode": "yes"})
    rng = random.Random(int(sys.argv[5]))

    # Warm up on a throwaway project so every module is imported before the first fork;
    # everything it opened is closed again, so no child inherits a connection.
    warm = Path(sys.argv[6])
    (warm / ".git").mkdir(parents=True, exist_ok=True)
    (warm / "w.jsonl").write_text('{"text": "warm"}\\n')
    app = build(warm, load(warm, overrides={"model": "scripted:" + str(warm / "w.jsonl")}))
    asyncio.run(run_prompt(app, "warm up", out=io.StringIO(), err=io.StringIO()))
    app.close()

    def child(round_no):
        done = os.open(done_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        for i in range(10_000):
            app = build(root, settings)
            try:
                prompt = f"round {round_no} turn {i}"
                code = asyncio.run(run_prompt(app, prompt, out=io.StringIO(), err=io.StringIO()))
            finally:
                app.close()
            os.write(done, f"{prompt}\\t{code}\\n".encode())
        os._exit(0)

    for round_no in range(kills):
        pid = os.fork()
        if pid == 0:
            try:
                child(round_no)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.0, 0.45))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    print("killed", kills)
""")


def script_lines() -> list[dict]:
    one_turn = [
        {"text": "Reading the file now.", "delay_s": 0.01,
         "tool_calls": [{"name": "read", "input": {"path": "src/a.py"}},
                        {"name": "shell", "input": {"command": "sleep 0.02; false"}}],
         "usage": {"input_tokens": 40, "output_tokens": 4}},
        {"text": "All done with this one, nothing else to change.", "delay_s": 0.01,
         "usage": {"input_tokens": 50, "output_tokens": 5}},
    ]
    return one_turn * 200


def check_state(state, done_turns: set[str]) -> int:
    for name in ("experience.db", "memory.db"):
        with sqlite3.connect(state / name) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", name
    with sqlite3.connect(state / "experience.db") as db:
        asked = {a for (a,) in db.execute("SELECT asked FROM runs")}
        runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    assert done_turns <= asked                  # no finished turn lost its row
    for name in ("history.md", "history.1.md"):
        path = state / name
        if path.exists():
            text = path.read_text()
            assert text == "" or text.endswith("\n\n")
            assert all(is_whole(b) for b in text.split("\n\n") if b.strip())
    return runs


def test_kill_9_at_random_points(tmp_path):
    root = make_project(tmp_path / "project", {"src/a.py": "print('a')\n"})
    env = edgar_env(tmp_path / "home")
    script = write_script(tmp_path / "turns.jsonl", script_lines())
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    done_path = tmp_path / "done.txt"
    seed = random.randrange(1 << 30)
    out = subprocess.run([sys.executable, str(driver), str(root), str(script), str(KILLS),
                          str(done_path), str(seed), str(tmp_path / "warm")],
                         cwd=root, env=env, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, (seed, out.stderr[-2000:])
    finished = [line.split("\t") for line in done_path.read_text().splitlines()
                if line] if done_path.exists() else []
    assert all(code == "0" for _, code in finished), seed
    state = state_of(root, env["EDGAR_HOME"])
    before = check_state(state, {prompt for prompt, _ in finished})

    rng = random.Random(seed)
    for _ in range(CLI_KILLS):                  # the real command, killed as it works
        proc = subprocess.Popen([sys.executable, "-m", "edgar", "-p", "always work in small steps",
                                 "--model", f"scripted:{script}", "--permission-mode", "yes"],
                                cwd=root, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 1.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = check_state(state, {prompt for prompt, _ in finished})

    after = run_edgar(["-p", "the next run works", "--model", f"scripted:{script}",
                       "--permission-mode", "yes", "--output-format", "json"], cwd=root, env=env)
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["outcome"] == "ok"
    assert check_state(state, {"the next run works"}) == before + 1
    history = run_edgar(["history", "show", "-n", "1"], cwd=root, env=env)
    assert "- asked: the next run works" in history.stdout
    stats = run_edgar(["stats", "--json"], cwd=root, env=env)
    assert json.loads(stats.stdout)["total"]["runs"] == before + 1
