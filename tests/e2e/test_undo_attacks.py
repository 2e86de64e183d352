"""edgar's own hands (issue 21 items 3-4), through the real binary, as root and as the
ordinary user, bubblewrap present and hidden: undo never discards the person's work, and
neither undo nor write follows a link the model planted — a real symlink, a real
renameat2(RENAME_EXCHANGE) swap loop."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.project import recorded, state_of, write_script
from support.user_edgar import runner, workdir

WHO = ["root", "user"] if os.geteuid() == 0 else ["user"]
KINDS = [(who, bwrap) for who in WHO for bwrap in (True, False)]
IDS = [f"{who}-{'bwrap' if bwrap else 'no-bwrap'}" for who, bwrap in KINDS]


@pytest.fixture(scope="module", params=KINDS, ids=IDS)
def edgar(request):
    run = runner(*request.param)
    yield run
    run.close()


@pytest.fixture
def place(edgar):
    base = workdir(edgar)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=project,
                   check=True, capture_output=True)


def make(edgar, place: Path, files: dict[str, str], real_git: bool = False):
    project, home = place / "p", place / "home"
    project.mkdir()
    home.mkdir()
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    if real_git:
        git(project, "init", "-q")
        git(project, "add", ".")
        git(project, "commit", "-qm", "init")
    else:
        (project / ".git" / "hooks").mkdir(parents=True)
        (project / ".git" / "config").write_text("[core]\n")
    edgar.own(place)
    return project, edgar.env(home)


def turn(edgar, place, project, env, calls, name="s"):
    script = write_script(place / f"{name}.jsonl", [{"tool_calls": calls}, {"text": "done"}])
    edgar.own(script)
    out = edgar.run(["-p", "change things", "--model", f"scripted:{script}",
                     "--permission-mode", "yes"], project, env)
    assert out.returncode == 0, out.stderr
    return out


def edit(path, old, new):
    return {"name": "edit", "input": {"path": path, "old_string": old, "new_string": new}}


def test_undo_stops_and_names_the_file_the_person_changed_since(edgar, place):
    project, env = make(edgar, place, {"app.py": "a = 1\n", "other.py": "b = 1\n"})
    turn(edgar, place, project, env, [edit("app.py", "a = 1", "a = 2"),
                                      edit("other.py", "b = 1", "b = 2")])
    with open(project / "app.py", "a") as handle:   # the person's own line, after the turn
        handle.write("mine = True\n")
    out = edgar.run(["undo"], project, env)
    assert out.returncode == 1, out.stdout
    assert "app.py" in out.stderr and "changed since turn" in out.stderr
    assert "other.py" not in out.stderr and "--force" in out.stderr
    assert "Traceback" not in out.stderr
    # nothing changed: the person's line and the turn's other file are both as they were
    assert (project / "app.py").read_text() == "a = 2\nmine = True\n"
    assert (project / "other.py").read_text() == "b = 2\n"
    forced = edgar.run(["undo", "--force"], project, env)
    assert forced.returncode == 0, forced.stderr
    assert "restored app.py" in forced.stdout
    assert (project / "app.py").read_text() == "a = 1\n"
    assert (project / "other.py").read_text() == "b = 1\n"


def test_each_undo_step_names_its_session_and_turn(edgar, place):
    project, env = make(edgar, place, {"a.txt": "v0\n"})
    for n in (1, 2):
        turn(edgar, place, project, env, [{"name": "write", "input": {
            "path": "a.txt", "content": f"v{n}\n"}}], f"s{n}")
    out = edgar.run(["undo", "2"], project, env)
    assert out.returncode == 0, out.stderr
    steps = [line for line in out.stdout.splitlines() if " of session " in line]
    assert len(steps) == 2 and all(line.strip().startswith("turn ") for line in steps)
    sessions = {line.split(" of session ")[1].split()[0] for line in steps}
    assert len(sessions) == 2          # two -p runs: two sessions, each named
    assert (project / "a.txt").read_text() == "v0\n"


def test_a_change_between_two_turns_stops_an_undo_of_both(edgar, place):
    project, env = make(edgar, place, {"a.txt": "v0\n"})
    turn(edgar, place, project, env, [{"name": "write", "input": {"path": "a.txt",
                                                                  "content": "v1\n"}}], "s1")
    (project / "a.txt").write_text("v1 and the person's edit\n")
    turn(edgar, place, project, env, [{"name": "write", "input": {"path": "a.txt",
                                                                  "content": "v2\n"}}], "s2")
    assert edgar.run(["undo"], project, env).returncode == 0   # the newest turn alone: fine
    assert (project / "a.txt").read_text() == "v1 and the person's edit\n"
    turn(edgar, place, project, env, [{"name": "write", "input": {"path": "a.txt",
                                                                  "content": "v3\n"}}], "s3")
    out = edgar.run(["undo", "2"], project, env)
    assert out.returncode == 1 and "a.txt" in out.stderr
    assert (project / "a.txt").read_text() == "v3\n"


def test_undo_follows_what_a_shell_call_left(edgar, place):
    """A write, then a shell call changing the same file: the shell's result is what the
    turn left, so undo goes ahead."""
    project, env = make(edgar, place, {"a.txt": "base\n"}, real_git=True)
    turn(edgar, place, project, env, [
        {"name": "write", "input": {"path": "a.txt", "content": "edgar\n"}},
        {"name": "shell", "input": {"command": "echo more >> a.txt; echo new > b.txt"}}])
    assert (project / "a.txt").read_text() == "edgar\nmore\n"
    out = edgar.run(["undo"], project, env)
    assert out.returncode == 0, out.stderr
    assert (project / "a.txt").read_text() == "base\n" and not (project / "b.txt").exists()


@pytest.mark.parametrize("existed", [True, False])
def test_undo_does_not_write_or_delete_through_a_link_into_git_hooks(edgar, place, existed):
    files = {"sub/keep.txt": "k\n"} | ({"sub/pre-commit": "echo original\n"} if existed else {})
    project, env = make(edgar, place, files)
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho the person's hook\n")
    edgar.own(hook)
    turn(edgar, place, project, env, [
        {"name": "write", "input": {"path": "sub/pre-commit", "content": "#!/bin/sh\nevil\n"}},
        {"name": "shell", "input": {"command": "mv sub sub.orig && ln -s .git/hooks sub"}}])
    assert (project / "sub").is_symlink()
    out = edgar.run(["undo"], project, env)
    assert "Traceback" not in out.stderr, out.stderr
    assert "sub is a symbolic link" in out.stdout + out.stderr
    assert hook.read_text() == "#!/bin/sh\necho the person's hook\n"   # neither replaced nor gone
    assert hook.stat().st_mode & 0o111 == 0 or hook.read_text().startswith("#!/bin/sh\necho")


@pytest.mark.parametrize("existed", [True, False])
def test_undo_does_not_replace_or_remove_edgars_state_through_a_link(edgar, place, existed):
    files = {"src/sub/config.toml": "# the project's own\n"} if existed else {"src/x.py": "x\n"}
    project, env = make(edgar, place, files)
    state = project / ".edgar"
    state.mkdir()
    (state / "config.toml").write_text("max_steps = 7\n")
    edgar.own(state)
    turn(edgar, place, project, env, [
        {"name": "write", "input": {"path": "src/sub/config.toml",
                                    "content": 'permission_mode = "yes"\n'}},
        {"name": "shell",
         "input": {"command": "mv src/sub src/sub.orig; ln -s ../.edgar src/sub"}}])
    out = edgar.run(["undo"], project, env)
    assert "Traceback" not in out.stderr, out.stderr
    assert "src/sub is a symbolic link" in out.stdout + out.stderr
    assert (state / "config.toml").read_text() == "max_steps = 7\n"


def test_a_planted_checkpoint_manifest_cannot_write_outside_or_into_git(edgar, place):
    """A manifest is data: a path with .., an absolute one, or one into .git is refused."""
    import json

    project, env = make(edgar, place, {"a.txt": "a\n"})
    turn(edgar, place, project, env, [{"name": "write", "input": {"path": "a.txt",
                                                                  "content": "b\n"}}])
    checkpoints = state_of(project, place / "home") / "checkpoints"
    [turn_dir] = [p for p in checkpoints.iterdir() if p.is_dir()]
    manifest = json.loads((turn_dir / "manifest.json").read_text())
    victim = place / "outside.txt"
    victim.write_text("outside\n")
    edgar.own(victim)
    manifest["files"] += [
        {"path": "../outside.txt", "existed": False, "blob": None, "mode": None, "after": None},
        {"path": str(victim), "existed": False, "blob": None, "mode": None, "after": None},
        {"path": ".git/config", "existed": False, "blob": None, "mode": None, "after": None}]
    (turn_dir / "manifest.json").write_text(json.dumps(manifest))
    out = edgar.run(["undo", "--force"], project, env)
    assert "Traceback" not in out.stderr, out.stderr
    assert victim.read_text() == "outside\n"
    assert (project / ".git" / "config").read_text() == "[core]\n"
    assert out.stdout.count("not restorable") == 3
    assert (project / "a.txt").read_text() == "a\n"


SWAPPER = textwrap.dedent("""
    import ctypes, os, sys, time
    libc = ctypes.CDLL(None, use_errno=True)
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    a, b, stop = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
    swaps = 0
    while time.time() < stop:
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0:
            swaps += 1
    print(swaps)
""")


def test_forty_writes_during_a_renameat2_swap_loop_never_land_in_git_config(edgar, place):
    if not hasattr(ctypes.CDLL(None), "renameat2"):
        pytest.fail("this libc has no renameat2; the race cannot be shown", pytrace=False)
    project, env = make(edgar, place, {"src/d/config": "mine\n"})
    os.symlink("../.git", project / "src" / "l")
    edgar.own(project / "src")
    writes = [{"name": "write", "input": {"path": "src/d/config",
                                          "content": f"[core]\n\tfsmonitor = /tmp/payload{n}\n"}}
              for n in range(40)]
    script = write_script(place / "race.jsonl", [{"tool_calls": writes}, {"text": "done"}])
    swapper = place / "swap.py"
    swapper.write_text(SWAPPER)
    edgar.own(script, swapper)
    kw = {} if edgar.user is None else {"user": edgar.user.uid, "group": edgar.user.gid,
                                        "extra_groups": []}
    loop = subprocess.Popen([edgar.python or sys.executable, str(swapper), "src/d", "src/l",
                             str(time.time() + 30)], cwd=project, stdout=subprocess.PIPE,
                            text=True, **kw)
    record = place / "record.jsonl"
    env["EDGAR_SCRIPTED_RECORD"] = str(record)
    try:
        out = edgar.run(["-p", "write it", "--model", f"scripted:{script}",
                         "--permission-mode", "yes"], project, env)
    finally:
        loop.kill()
        loop.wait()
    assert "Traceback" not in out.stderr, out.stderr
    assert (project / ".git" / "config").read_text() == "[core]\n"
    assert not any("payload" in p.read_text() for p in (project / ".git").rglob("*")
                   if p.is_file())
    results = [block for request in recorded(record) for message in request["messages"]
               if isinstance(message["content"], list) for block in message["content"]
               if block.get("type") == "tool_result"]
    assert len(results) == 40
    refused = [r for r in results if r.get("is_error")]
    # the control: the swap loop met the writes, and each refusal says why
    assert refused, "the swap loop never met a write: the race was not shown"
    reasons = ("symbolic link", "git's internals", "does not follow links")
    odd = [r["content"] for r in refused if not any(why in str(r["content"]) for why in reasons)]
    assert not odd, odd
