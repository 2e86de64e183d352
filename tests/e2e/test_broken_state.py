"""Broken state files (issue 21 item 10), through the real binary: a state database that is
not a database, a ``.edgar`` that is a file, a trust record, a checkpoint manifest and (in
tests/e2e/test_repl_broken_history.py) the REPL's input history, each in the shapes it breaks
in. Each command that reads one says where and what to do in one line, never a traceback,
and leaves the file as it was; ``edgar doctor --repair`` moves it aside (never deletes) and
edgar works again. A broken database and a ``.edgar`` that is a file also as the ordinary user of
``support.users`` and with bubblewrap hidden (``support.hostile``)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from support.hostile import IDS, KINDS, Machine, machine_fixture
from support.project import REPO, edgar_env, make_project, run_edgar, state_of, write_script

# experience.db is the learning package's store: without the package nothing opens it
LEARNING = pytest.mark.skipif(not (REPO / "edgar" / "learning").is_dir(),
                              reason="experience.db belongs to edgar/learning, which is absent")
GARBAGE = b"this is not sqlite at all\x00\xff" * 64


def corrupt(path, how: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "garbage":
        path.write_bytes(GARBAGE)
    elif how == "truncated":   # the first page of a real database, cut short
        path.write_bytes(b"SQLite format 3\x00" + b"\x10\x00\x02\x02" + b"\x00" * 30)
    elif how == "directory":
        path.mkdir()


machine = machine_fixture("edgar-broken-state-")


def kinds(hows, every_kind="garbage"):
    """Each shape on the suite's own machine; ``every_kind`` on all four kinds of machine."""
    return [pytest.param(how, kind, id=f"{how}-{kind_id}")
            for how in hows for kind, kind_id in zip(KINDS, IDS, strict=True)
            if how == every_kind or kind == KINDS[0]]


@pytest.fixture
def on(request):
    """The Machine for the ``kind`` parameter (root with bubblewrap: the suite's own)."""
    who, bwrap = request.node.callspec.params["kind"]
    base = Path(tempfile.mkdtemp(prefix="edgar-broken-state-"))
    try:
        yield Machine(base, who, bwrap)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("how, kind", kinds(["garbage", "truncated", "directory"]))
@pytest.mark.parametrize("db, argv", [
    ("memory.db", ["-p", "hi"]),
    ("memory.db", ["memory", "list"]),
    ("memory.db", ["memory", "add", "use tabs"]),
    pytest.param("experience.db", ["-p", "hi"], marks=LEARNING),
    pytest.param("experience.db", ["stats"], marks=LEARNING),
])
def test_a_broken_database_is_one_located_line_and_repair_moves_it_aside(on, how, kind, db,
                                                                         argv):
    project = make_project(on.base / "proj")
    home = on.base / "home"
    env = on.env(home)
    path = state_of(project, home) / db
    corrupt(path, how)
    before = path.read_bytes() if path.is_file() else None
    script = write_script(on.base / "s.jsonl", [{"text": "hello"}])
    args = argv + (["--model", f"scripted:{script}"] if argv[0] == "-p" else [])
    done = on.edgar(args, cwd=project, env=env)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert (f"edgar: {path} is not a database" in done.stderr
            and "move it aside or run `edgar doctor --repair`" in done.stderr), done.stderr
    if before is not None:
        assert path.read_bytes() == before          # not overwritten
    else:
        assert path.is_dir()

    fixed = on.edgar(["doctor", "--repair"], cwd=project, env=env)
    assert fixed.returncode == 0 and "Traceback" not in fixed.stderr, fixed.stderr
    assert f"moved {path} aside to {db}.broken-" in fixed.stdout
    [aside] = path.parent.glob(f"{db}.broken-*")
    assert (aside.read_bytes() == before) if before is not None else aside.is_dir()
    again = on.edgar(args, cwd=project, env=env)
    assert again.returncode == 0, again.stderr


def test_repair_leaves_a_healthy_project_alone(tmp_path):
    project = make_project(tmp_path / "proj")
    env = edgar_env(tmp_path / "home")
    assert run_edgar(["memory", "add", "use tabs"], project, env).returncode == 0
    fixed = run_edgar(["doctor", "--repair"], project, env)
    assert fixed.returncode == 0 and "no broken state file" in fixed.stdout
    assert "use tabs" in run_edgar(["memory", "list"], project, env).stdout


def test_continue_skips_a_session_line_of_the_wrong_shape_naming_file_and_line(tmp_path):
    project = make_project(tmp_path / "proj")
    home = tmp_path / "home"
    env = edgar_env(home)
    script = write_script(tmp_path / "s.jsonl", [{"text": "hello"}])
    assert run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env).returncode == 0
    [log] = (state_of(project, home) / "sessions").glob("*.jsonl")
    good = len(log.read_text().splitlines())
    with log.open("a") as handle:   # valid JSON, wrong shape; then a torn line
        handle.write('{"kind": "message", "role": "user", "content": "abc"}\n[1\n')
    done = run_edgar(["-c", "-p", "again", "--model", f"scripted:{script}"], project, env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert f"skipped 2 damaged line(s): {log}:{good + 1}, :{good + 2}" in done.stderr


# --- the other state files edgar reads back ------------------------------------------------

WAY_OUT = "move it aside or run `edgar doctor --repair`"


def damage(path, how: str) -> None:
    """One broken shape of a JSON state file (or the file's place taken by something else)."""
    if path.is_dir():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    shapes = {"garbage": b"this is not json\x00", "not utf-8": b"\xff\xfe{\"projects\": {}}",
              "a list": b"[1, 2, 3]", "truncated": b'{"projects": {"/x": {"files": ',
              "wrong shape": b'{"session": "s", "turn": "t", "created": 1, "files": 5, '
                             b'"shell": []}'}
    if how == "directory":
        path.mkdir()
    elif how == "dangling link":
        path.symlink_to(path.parent / "nowhere")
    else:
        path.write_bytes(shapes[how])


def repaired(project, env, path, machine: Machine | None = None) -> None:
    fixed = (machine.edgar(["doctor", "--repair"], cwd=project, env=env) if machine
             else run_edgar(["doctor", "--repair"], project, env))
    assert fixed.returncode == 0 and "Traceback" not in fixed.stderr, fixed.stderr
    assert f"moved {path} aside to {path.name}.broken-" in fixed.stdout, fixed.stdout
    assert len(list(path.parent.glob(f"{path.name}.broken-*"))) == 1   # kept, not deleted
    assert not os.path.lexists(path)


def test_a_dot_edgar_that_is_a_file_is_said_init_stops_and_repair_moves_it_aside(machine):
    project = make_project(machine.base / "proj")
    env = machine.env(machine.base / "home")
    dot = project / ".edgar"
    dot.write_text("not a directory\n")
    script = write_script(machine.base / "s.jsonl", [{"text": "hello"}])
    done = machine.edgar(["-p", "hi", "--model", f"scripted:{script}"], cwd=project, env=env)
    assert done.returncode == 0 and "hello" in done.stdout, done.stderr   # work goes on
    assert "Traceback" not in done.stderr
    assert done.stderr.count(f"edgar: {dot} is not a directory") == 1, done.stderr
    assert WAY_OUT in done.stderr
    init = machine.edgar(["init"], cwd=project, env=env)
    assert init.returncode == 1 and "Traceback" not in init.stderr, init.stderr
    assert init.stderr.strip() == f"edgar: {dot} is not a directory — {WAY_OUT}"
    assert dot.read_text() == "not a directory\n"
    repaired(project, env, dot, machine)
    again = machine.edgar(["init"], cwd=project, env=env)
    assert again.returncode == 0 and (project / ".edgar" / "config.toml").is_file(), again.stderr


@pytest.mark.parametrize("how", ["garbage", "not utf-8", "a list", "truncated", "directory",
                                 "dangling link"])
def test_a_broken_trust_record_trusts_nothing_is_never_overwritten_and_repair_moves_it(
        tmp_path, how):
    home = tmp_path / "home"
    env = edgar_env(home)
    other = make_project(tmp_path / "other", {".edgar/config.toml": "[hooks]\n"})
    project = make_project(tmp_path / "proj", {".edgar/config.toml": "[hooks]\n"})
    assert run_edgar(["trust"], other, env).returncode == 0
    record = home / "trust.json"
    damage(record, how)
    before = record.read_bytes() if record.is_file() else None
    script = write_script(tmp_path / "s.jsonl", [{"text": "hello"}])
    done = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env)
    assert done.returncode == 0 and "hello" in done.stdout, done.stderr
    assert "Traceback" not in done.stderr
    assert f"edgar: {record} " in done.stderr and "so nothing is trusted" in done.stderr
    assert WAY_OUT in done.stderr and "ignoring untrusted project settings" in done.stderr
    for argv in (["trust"], ["trust", "--revoke"]):
        refused = run_edgar(argv, project, env)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
        assert refused.stderr.count("\n") == 1 and WAY_OUT in refused.stderr, refused.stderr
        assert (record.read_bytes() == before) if before is not None else (
            os.path.lexists(record) and not record.is_file())
    repaired(project, env, record)
    assert run_edgar(["trust"], project, env).returncode == 0
    assert "trusted since" in run_edgar(["trust", "--show"], project, env).stdout


def change(tmp_path, project, env, n: int) -> None:
    script = write_script(tmp_path / f"w{n}.jsonl", [
        {"tool_calls": [{"name": "write", "input": {"path": "b.txt", "content": f"v{n}\n"}}]},
        {"text": "done"}])
    done = run_edgar(["-p", f"turn {n}", "--model", f"scripted:{script}",
                      "--permission-mode", "yes"], project, env)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("how", ["garbage", "not utf-8", "a list", "wrong shape", "directory",
                                 "dangling link"])
def test_a_broken_checkpoint_manifest_stops_undo_and_diff_and_repair_moves_its_turn(
        tmp_path, how):
    home = tmp_path / "home"
    env = edgar_env(home)
    project = make_project(tmp_path / "proj", {"b.txt": "v0\n"})
    change(tmp_path, project, env, 1)
    change(tmp_path, project, env, 2)
    turns = sorted((state_of(project, home) / "checkpoints").glob("0*"))
    assert len(turns) == 2
    manifest = turns[-1] / "manifest.json"
    damage(manifest, how)
    for argv in (["undo"], ["undo", "2"], ["diff"]):
        done = run_edgar(argv, project, env)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith(f"edgar: {manifest} ") and WAY_OUT in done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert (project / "b.txt").read_text() == "v2\n"      # nothing undone past it
    change(tmp_path, project, env, 3)                        # recording goes on meanwhile
    fixed = run_edgar(["doctor", "--repair"], project, env)
    assert fixed.returncode == 0, fixed.stderr
    assert f"moved {turns[-1]} aside to {turns[-1].name}.broken-" in fixed.stdout
    assert "damaged manifest.json" in fixed.stdout
    undone = run_edgar(["undo"], project, env)               # turn 3
    assert undone.returncode == 0 and "undid 1 turn" in undone.stdout, undone.stderr
    assert (project / "b.txt").read_text() == "v2\n"
    # turn 1 left v1: what turn 2 did is no longer known, so undo says so and waits
    held = run_edgar(["undo"], project, env)
    assert held.returncode == 1 and "b.txt (changed since turn" in held.stderr, held.stderr
    assert (project / "b.txt").read_text() == "v2\n"
    forced = run_edgar(["undo", "--force"], project, env)
    assert forced.returncode == 0 and (project / "b.txt").read_text() == "v0\n", forced.stderr
    assert len(list(turns[-1].parent.glob("*.broken-*"))) == 1


@pytest.mark.parametrize("where", ["the state dir", "sessions", "checkpoints"])
def test_a_state_folder_that_is_a_file_is_one_line_and_repair_moves_it(tmp_path, where):
    home = tmp_path / "home"
    env = edgar_env(home)
    project = make_project(tmp_path / "proj", {"b.txt": "v0\n"})
    change(tmp_path, project, env, 1)
    state = state_of(project, home)
    path = state if where == "the state dir" else state / where
    shutil.rmtree(path)
    path.write_text("in the way\n")
    script = write_script(tmp_path / "s.jsonl", [{"text": "hello"}])
    done = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == f"edgar: {path} is not a directory — {WAY_OUT}"
    assert path.read_text() == "in the way\n"
    repaired(project, env, path)
    change(tmp_path, project, env, 2)
    assert run_edgar(["undo"], project, env).returncode == 0
    assert (project / "b.txt").read_text() == "v1\n"


def test_an_auto_commit_record_that_is_not_utf8_is_read_line_by_line(tmp_path):
    home = tmp_path / "home"
    env = edgar_env(home)
    project = make_project(tmp_path / "proj", {"b.txt": "v0\n"})
    change(tmp_path, project, env, 1)
    (state_of(project, home) / "commits.jsonl").write_bytes(b"\xff\xfe{[\n")
    done = run_edgar(["undo"], project, env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert (project / "b.txt").read_text() == "v0\n"
