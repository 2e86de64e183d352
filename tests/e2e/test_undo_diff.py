"""Checkpoints through the real binary: -p changes files, `edgar diff` shows them, `edgar undo`
puts them back and says which."""

from __future__ import annotations

import asyncio
import subprocess

import pytest
from support.project import edgar_env, make_project, run_edgar, state_of, write_script

from edgar.core.checkpoints import Checkpoints

BODY = "".join(f"line {n}\n" for n in range(1, 21))


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home")


def turn(tmp_path, project, env, calls, name="s"):
    script = write_script(tmp_path / f"{name}.jsonl", [{"tool_calls": calls}, {"text": "done"}])
    out = run_edgar(["-p", "change things", "--model", f"scripted:{script}",
                     "--permission-mode", "yes"], project, env)
    assert out.returncode == 0, out.stderr
    return out


def test_diff_then_undo_restores_the_last_turn_and_says_which(tmp_path, env):
    project = make_project(tmp_path / "p", {"a.txt": BODY})
    turn(tmp_path, project, env, [
        {"name": "edit", "input": {"path": "a.txt", "old_string": "line 10\n",
                                   "new_string": "line ten\n"}},
        {"name": "edit", "input": {"path": "a.txt", "old_string": "line 11\n",
                                   "new_string": "line eleven\n"}},
        {"name": "write", "input": {"path": "sub/new.txt", "content": "fresh\n"}}])
    diff = run_edgar(["diff"], project, env).stdout
    assert "--- a/a.txt\n+++ b/a.txt\n@@ -7,8 +7,8 @@\n line 7\n line 8\n line 9\n" in diff
    assert "-line 10\n-line 11\n+line ten\n+line eleven\n line 12\n" in diff
    assert "--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1 @@\n+fresh\n" in diff
    stored = list((state_of(project, tmp_path / "home") / "checkpoints").rglob("*"))
    assert stored and all(p.stat().st_mode & 0o077 == 0 for p in stored if p.name != ".gitignore")
    out = run_edgar(["undo"], project, env)
    assert out.returncode == 0
    assert "undid 1 turn" in out.stdout
    assert "restored a.txt" in out.stdout and "removed sub/new.txt" in out.stdout
    assert (project / "a.txt").read_text() == BODY and not (project / "sub/new.txt").exists()
    assert "nothing to undo" in run_edgar(["undo"], project, env).stdout


def test_undo_n_goes_back_several_turns(tmp_path, env):
    project = make_project(tmp_path / "p", {"a.txt": "v0\n"})
    for n in (1, 2, 3):
        turn(tmp_path, project, env, [{"name": "write", "input": {"path": "a.txt",
                                                                  "content": f"v{n}\n"}}], f"s{n}")
    assert (project / "a.txt").read_text() == "v3\n"
    out = run_edgar(["undo", "2"], project, env)
    assert "undid 2 turns" in out.stdout and (project / "a.txt").read_text() == "v1\n"
    run_edgar(["undo"], project, env)
    assert (project / "a.txt").read_text() == "v0\n"


def git(project, *args):
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


def test_shell_changes_in_a_git_repo_are_listed_and_undone(tmp_path, env):
    project = tmp_path / "p"
    project.mkdir()
    git(project, "init", "-q")
    (project / "tracked.txt").write_text("committed\n")
    (project / "mine.txt").write_text("base\n")
    git(project, "add", ".")
    git(project, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    (project / "mine.txt").write_text("my own work in progress\n")
    turn(tmp_path, project, env, [{"name": "shell", "input": {
        "command": "echo more >> tracked.txt; echo made > made.txt"}}])
    diff = run_edgar(["diff"], project, env).stdout
    assert "+more" in diff and "+++ b/made.txt" in diff and "mine.txt" not in diff
    out = run_edgar(["undo"], project, env).stdout
    assert "restored from HEAD tracked.txt" in out and "removed made.txt" in out
    assert (project / "tracked.txt").read_text() == "committed\n"
    assert not (project / "made.txt").exists()
    assert (project / "mine.txt").read_text() == "my own work in progress\n"  # not edgar's


def test_undo_and_diff_never_create_the_state_dir(tmp_path, env):
    project = make_project(tmp_path / "p")
    assert "nothing to undo" in run_edgar(["undo"], project, env).stdout
    assert run_edgar(["diff"], project, env).returncode == 0
    assert not (state_of(project, tmp_path / "home")).exists()


def test_the_store_is_bounded_and_drops_the_oldest_turn(tmp_path):
    root = make_project(tmp_path / "p", {"big.txt": "x" * 4000})
    store = Checkpoints(root, root / ".edgar", "s1", max_bytes=10_000)

    class Started:
        depth = 0

        def __init__(self, n):
            self.turn_id = f"t{n}"

    for n in range(4):
        store.on_turn_started(Started(n))
        store.before_write("big.txt")
        (root / "big.txt").write_text(str(n) * 4000)
        store.after_write("big.txt")
    names = [m["turn"] for _, m in store.turns()]
    assert names == ["t2", "t3"]
    asyncio.run(store.undo(2))
    assert (root / "big.txt").read_text() == "1" * 4000


def _age(project, days: float) -> None:
    """Make every stored turn look `days` old, as if its session had ended then."""
    import json
    import time

    checkpoints = state_of(project, project.parent / "home") / "checkpoints"
    for manifest in checkpoints.glob("*/manifest.json"):
        data = json.loads(manifest.read_text())
        data["created"] = time.time() - days * 86400
        manifest.write_text(json.dumps(data))


def test_checkpoints_older_than_seven_days_are_deleted_by_undo_and_by_the_next_turn(tmp_path, env):
    project = make_project(tmp_path / "p", {"a.txt": "v0\n", ".env": "TOKEN=kept-as-it-was\n"})
    turn(tmp_path, project, env,
         [{"name": "write", "input": {"path": ".env", "content": "TOKEN=x\n"}}], "s1")
    store = state_of(project, tmp_path / "home") / "checkpoints"
    copies = list(store.rglob("files/*"))
    assert [p.read_bytes() for p in copies] == [b"TOKEN=kept-as-it-was\n"]  # exact: the exception
    _age(project, 6.9)
    assert ".env" in run_edgar(["diff"], project, env).stdout  # within the week: kept
    _age(project, 7.1)
    assert "no changes recorded" in run_edgar(["diff"], project, env).stdout
    assert not list(store.glob("0*")) and not any(p.exists() for p in copies)
    # ...and a later session's first change deletes an expired one's turns too
    turn(tmp_path, project, env,
         [{"name": "write", "input": {"path": "a.txt", "content": "v1\n"}}], "s2")
    _age(project, 8)
    turn(tmp_path, project, env,
         [{"name": "write", "input": {"path": "a.txt", "content": "v2\n"}}], "s3")
    assert len(list(store.glob("0*"))) == 1
    assert "restored a.txt" in run_edgar(["undo"], project, env).stdout
    assert (project / "a.txt").read_text() == "v1\n"


def test_undo_help_names_the_exception_and_the_expiry(tmp_path, env):
    project = make_project(tmp_path / "p", {})
    out = run_edgar(["undo", "--help"], project, env).stdout
    assert "unredacted" in out and "7 days" in out


def test_the_running_session_never_expires_its_own_turns(tmp_path):
    import time

    root = tmp_path / "r"
    root.mkdir()
    (root / "a.txt").write_text("v0\n")
    live = Checkpoints(root, root / ".edgar", "live")
    live.before_write("a.txt")
    later = time.time() + 8 * 86400
    assert live.expire(now=later) == [] and len(live.turns()) == 1
    assert Checkpoints(root, root / ".edgar", "next").expire(now=later) == ["live"]
    assert live.turns() == []
