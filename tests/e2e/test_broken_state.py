"""A state database that is not a database (issue 21 item 10), through the real binary: each
command that opens it says where and what to do in one line, never a traceback, and leaves the
file as it was; ``edgar doctor --repair`` moves it aside (never deletes) and edgar works again."""

from __future__ import annotations

import pytest
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


@pytest.mark.parametrize("how", ["garbage", "truncated", "directory"])
@pytest.mark.parametrize("db, argv", [
    ("memory.db", ["-p", "hi"]),
    ("memory.db", ["memory", "list"]),
    ("memory.db", ["memory", "add", "use tabs"]),
    pytest.param("experience.db", ["-p", "hi"], marks=LEARNING),
    pytest.param("experience.db", ["stats"], marks=LEARNING),
])
def test_a_broken_database_is_one_located_line_and_repair_moves_it_aside(tmp_path, how, db, argv):
    project = make_project(tmp_path / "proj")
    home = tmp_path / "home"
    env = edgar_env(home)
    path = state_of(project, home) / db
    corrupt(path, how)
    before = path.read_bytes() if path.is_file() else None
    script = write_script(tmp_path / "s.jsonl", [{"text": "hello"}])
    args = argv + (["--model", f"scripted:{script}"] if argv[0] == "-p" else [])
    done = run_edgar(args, project, env)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert (f"edgar: {path} is not a database" in done.stderr
            and "move it aside or run `edgar doctor --repair`" in done.stderr), done.stderr
    if before is not None:
        assert path.read_bytes() == before          # not overwritten
    else:
        assert path.is_dir()

    fixed = run_edgar(["doctor", "--repair"], project, env)
    assert fixed.returncode == 0 and "Traceback" not in fixed.stderr, fixed.stderr
    assert f"moved {path} aside to {db}.broken-" in fixed.stdout
    [aside] = path.parent.glob(f"{db}.broken-*")
    assert (aside.read_bytes() == before) if before is not None else aside.is_dir()
    again = run_edgar(args, project, env)
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
