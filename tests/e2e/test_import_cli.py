"""``edgar import claude-code`` the way a person uses it: import, review what was proposed,
read the stats; a progress bar only on a terminal; two imports at once and a kill -9 in the
middle end where one clean import would."""

from __future__ import annotations

import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("edgar.learning")

from support.project import edgar_env, make_project, run_edgar  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "claude-code"
FASTHOOKS = "oneryalcin__fasthooks__specs__data__sample_main_transcript.jsonl"


def record(n: int, text: str, **kw) -> str:
    return json.dumps({"type": "user", "uuid": f"u{n}", "sessionId": "s-typed",
                       "timestamp": "2026-04-01T09:00:00Z", "origin": {"kind": "human"},
                       "message": {"role": "user", "content": text}} | kw) + "\n"


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home")


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj")


@pytest.fixture
def tree(tmp_path):
    """A ~/.claude/projects look-alike: two project folders, corpus copies and typed rules."""
    root = tmp_path / "projects"
    for i, folder in enumerate(("-home-me-app", "-home-me-lib")):
        (root / folder).mkdir(parents=True)
        shutil.copy(DATA / FASTHOOKS, root / folder / f"copy-{i}.jsonl")
    (root / "-home-me-app" / "s-typed.jsonl").write_text(
        record(1, "always run the linter before committing")
        + record(2, "The task finished. Always ship it now.", isMeta=True)
        + record(3, "never edit generated files by hand"), encoding="utf-8")
    return root


def edgar(project, env, *args, code=0):
    out = run_edgar([str(a) for a in args], project, env)
    assert out.returncode == code, out.stderr
    assert "Traceback" not in out.stderr
    return out


def state(project, env):
    stats = json.loads(edgar(project, env, "stats", "--source", "all", "--json").stdout)
    facts = json.loads(edgar(project, env, "memory", "list", "--all", "--json").stdout)
    total = stats["total"]
    return (total["runs"], total["tokens"], round(total["cost"], 9),
            sorted((f["text"], f["status"], f["provenance"]) for f in facts))


def test_import_review_and_stats(project, env, tree):
    out = edgar(project, env, "import", "claude-code", tree)
    assert "3 file(s)" in out.stdout and "14 exchange(s)" in out.stdout
    assert "2 new proposal(s) stored as pending; review them with `edgar memory review`" \
        in out.stdout
    assert json.loads(edgar(project, env, "memory", "list", "--json").stdout) == []
    pending = json.loads(edgar(project, env, "memory", "list", "--pending", "--json").stdout)
    assert sorted(f["text"] for f in pending) == ["always run the linter before committing",
                                                  "never edit generated files by hand"]
    chosen = pending[0]
    edgar(project, env, "memory", "review", "--approve", chosen["id"], "--hash", chosen["sha256"])
    [active] = json.loads(edgar(project, env, "memory", "list", "--json").stdout)
    assert (active["text"], active["provenance"]) == (chosen["text"], "reviewed")

    text = edgar(project, env, "stats", "--source", "claude-code").stdout
    # the two copies of one session are one session's turns: 6 + 2 runs, not 14
    assert text.startswith("edgar stats by shape, all time, source claude-code: 8 runs")
    data = json.loads(edgar(project, env, "stats", "--source", "claude-code", "--by", "model",
                            "--json").stdout)
    # (the typed file has questions and no replies: no model)
    assert {g["key"] for g in data["groups"]} == {"claude-haiku-4-5-20251001", ""}
    assert data["total"]["tokens"] > 0 and data["total"]["cost"] > 0

    again = edgar(project, env, "import", "claude-code", tree)
    assert "0 exchange(s)" in again.stdout and "0 new proposal(s)" in again.stdout


def test_typed_keeps_stdout_to_json_lines(project, env, tree):
    out = edgar(project, env, "import", "claude-code", "--dry-run", "--typed", tree)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [t["text"] for t in lines if t["session_id"] == "s-typed"] == [
        "always run the linter before committing", "never edit generated files by hand"]
    assert len(lines) == 2 + 2 * 6
    assert "dry run: nothing stored; 2 proposal(s) would be made" in out.stderr
    assert "\x1b[" not in out.stderr                   # no bar: stderr is not a terminal
    assert not (project / ".edgar").exists()


def test_help_exits_0(project, env):
    out = edgar(project, env, "import", "claude-code", "--help")
    assert "--dry-run" in out.stdout and "--typed" in out.stdout


def test_a_progress_bar_on_a_terminal(project, env, tree):
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "edgar", "import", "claude-code", "--dry-run",
                             str(tree)], cwd=project, env=env | {"TERM": "xterm"},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:                                 # EIO: the child closed the pty
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0
    assert b"importing" in seen and b"MB" in seen
    assert b"3 file(s)" in proc.stdout.read()


def test_two_imports_at_once_end_like_one(project, env, tree, tmp_path):
    cmd = [sys.executable, "-m", "edgar", "import", "claude-code", str(tree)]
    procs = [subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    clean = make_project(tmp_path / "clean")
    edgar(clean, env, "import", "claude-code", tree)
    assert state(project, env) == state(clean, env)


def test_a_kill_mid_import_loses_nothing_and_adds_nothing_twice(env, tree, tmp_path):
    for i in range(150):                                # enough files to be killed among them
        shutil.copy(DATA / FASTHOOKS, tree / "-home-me-lib" / f"more-{i}.jsonl")
    clean = make_project(tmp_path / "clean")
    edgar(clean, env, "import", "claude-code", tree)
    interrupted = 0
    for n, delay in enumerate((0.0, 0.05, 0.15, 0.3)):
        project = make_project(tmp_path / f"killed-{n}")
        proc = subprocess.Popen([sys.executable, "-m", "edgar", "import", "claude-code", "--json",
                                 str(tree)], cwd=project, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (project / ".edgar" / "imports.db").exists():
            time.sleep(0.005)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        rest = json.loads(edgar(project, env, "import", "claude-code", "--json", tree).stdout)
        interrupted += rest["lines"] > 0
        assert state(project, env) == state(clean, env), delay
    assert interrupted, "no kill landed mid-import: make the tree bigger"
