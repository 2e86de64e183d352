"""``--add-dir DIR`` (issue 23 item 4, ADR-0113), through the real binary and the scripted
provider, as root and as the ordinary user of ``support.users``, bubblewrap present and hidden:
the file tools and the sandboxed shell write inside DIR, a link planted in DIR that points out
is refused, DIR's ``.git`` hooks stay protected, a directory not added stays unwritable, and a
renameat2 swap loop inside DIR never redirects a write into its ``.git``.

Everything lives beneath a directory outside the temp dirs (which every sandbox may write), so
a refusal shown here is the sandbox's and not an accident of where the test ran.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from support.hostile import IDS, KINDS, Machine
from support.project import beyond_temp, recorded, write_script

from edgar.sandbox.probe import capabilities


def make_machine(who: str, bwrap: bool):
    base = beyond_temp() / "add-dir" / uuid.uuid4().hex
    machine = Machine(base, who, bwrap)
    project, added, out = base / "proj", base / "added", base / "out"
    (project / ".git").mkdir(parents=True)       # the project's own root, not the checkout's
    (added / ".git" / "hooks").mkdir(parents=True)
    (added / ".git" / "config").write_text("[core]\n")
    (added / "notes.txt").write_text("shared notes\n")
    out.mkdir()
    (added / "link").symlink_to("../out")
    return machine, project, added, out


@pytest.fixture(params=KINDS, ids=IDS)
def machine(request):
    who, bwrap = request.param
    made = make_machine(who, bwrap)
    try:
        yield made
    finally:
        shutil.rmtree(made[0].base, ignore_errors=True)


def results(record: Path) -> list[str]:
    """The text of every tool result the model was sent, in order (the last request has all)."""
    last = recorded(record)[-1]
    return [str(block["content"]) for message in last["messages"]
            if isinstance(message["content"], list) for block in message["content"]
            if block.get("type") == "tool_result"]


def run(machine: Machine, project: Path, calls: list[dict], extra: list[str], name: str):
    script = write_script(machine.base / f"{name}.jsonl",
                          [{"tool_calls": [c]} for c in calls] + [{"text": "done"}])
    record = machine.base / f"{name}-record.jsonl"
    env = machine.env(machine.base / "home", EDGAR_SCRIPTED_RECORD=str(record))
    done = machine.edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes",
                          *extra], cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done, record


@pytest.mark.skipif(capabilities().namespaces is None and capabilities().landlock_abi < 1,
                    reason="no namespaces or Landlock on this kernel: nothing is confined")
def test_tools_and_the_shell_write_in_an_added_dir_and_nowhere_else(machine):
    machine, project, added, out = machine
    shell = (f"touch {added}/by-shell && echo made-in-added; "
             f"touch {out}/by-shell || echo refused-outside; "
             f"touch {added}/.git/hooks/pre-push || echo refused-hooks; true")
    calls = [
        {"name": "write", "input": {"path": f"{added}/new.txt", "content": "hello\n"}},
        {"name": "edit", "input": {"path": f"{added}/notes.txt", "old_string": "shared",
                                   "new_string": "edited"}},
        {"name": "write", "input": {"path": f"{added}/link/evil.txt", "content": "x"}},
        {"name": "write", "input": {"path": f"{added}/.git/hooks/pre-commit", "content": "x"}},
        {"name": "shell", "input": {"command": shell}},
        {"name": "read", "input": {"path": f"{added}/new.txt"}},
        {"name": "glob", "input": {"pattern": "*.txt", "path": str(added)}},
        {"name": "grep", "input": {"pattern": "edited", "path": str(added)}},
    ]
    done, record = run(machine, project, calls, ["--add-dir", str(added)], "added")
    said = results(record)
    assert said[0].startswith("created"), said[0]
    assert (added / "new.txt").read_text() == "hello\n"
    assert (added / "notes.txt").read_text() == "edited notes\n", said[1]
    assert "outside" in said[2] and not (out / "evil.txt").exists(), said[2]
    assert "git's internals" in said[3] and not (added / ".git/hooks/pre-commit").exists()
    assert "made-in-added" in said[4] and (added / "by-shell").exists(), said[4]
    assert "refused-outside" in said[4] and not (out / "by-shell").exists(), said[4]
    assert "refused-hooks" in said[4] and not (added / ".git/hooks/pre-push").exists(), said[4]
    assert "hello" in said[5], said[5]
    assert f"{added}/new.txt" in said[6] and f"{added}/notes.txt" in said[6], said[6]
    assert f"{added}/notes.txt:1:edited notes" in said[7], said[7]
    assert str(added) in recorded(record)[0]["system"]   # the model is told where it may work

    # the control: without the flag the same directory is outside, for the tools and the shell
    calls = [{"name": "write", "input": {"path": f"{added}/again.txt", "content": "x"}},
             {"name": "shell", "input": {"command": f"touch {added}/again-shell || echo no"}}]
    done, record = run(machine, project, calls, [], "control")
    said = results(record)
    assert "outside the project root" in said[0] and "--add-dir" in said[0], said[0]
    assert not (added / "again.txt").exists() and not (added / "again-shell").exists(), said


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_an_added_dir_that_is_not_a_directory_is_a_located_usage_error(tmp_path, kind):
    machine = Machine(tmp_path / "m")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    target = tmp_path / "nope"
    if kind == "file":
        target.write_text("a file\n")
    done = machine.edgar(["-p", "go", "--model", "scripted:x", "--add-dir", str(target)],
                         cwd=project, env=machine.env(tmp_path / "home"))
    assert done.returncode == 2, done.stderr
    want = "no such directory" if kind == "missing" else "not a directory"
    assert done.stderr.strip() == (f"edgar: --add-dir {target}: {want}"
                                   + (" (give the directory that holds it)" if kind == "file"
                                      else "")), done.stderr


SWAPPER = textwrap.dedent("""
    import ctypes, os, sys, time
    libc = ctypes.CDLL(None, use_errno=True)
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    a, b, stop = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
    while time.time() < stop:
        libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
""")


@pytest.mark.parametrize("who", ["root", "user"])
def test_a_swap_loop_in_an_added_dir_never_lands_a_write_in_its_git_config(who):
    if not hasattr(ctypes.CDLL(None), "renameat2"):
        pytest.fail("this libc has no renameat2; the race cannot be shown", pytrace=False)
    machine, project, added, _ = make_machine(who, True)
    try:
        (added / "src" / "d").mkdir(parents=True)
        (added / "src" / "d" / "config").write_text("mine\n")
        (added / "src" / "l").symlink_to("../.git")
        swapper = machine.base / "swap.py"
        swapper.write_text(SWAPPER)
        writes = [{"name": "write", "input": {"path": f"{added}/src/d/config",
                                              "content": f"[core]\n\tfsmonitor = /x/pay{n}\n"}}
                  for n in range(40)]
        script = write_script(machine.base / "race.jsonl",
                              [{"tool_calls": writes}, {"text": "done"}])
        record = machine.base / "race-record.jsonl"
        env = machine.env(machine.base / "home", EDGAR_SCRIPTED_RECORD=str(record))
        machine.own()
        kw = {} if machine.user is None else {"user": machine.user.uid,
                                              "group": machine.user.gid, "extra_groups": []}
        loop = subprocess.Popen([machine.python, str(swapper), "src/d", "src/l",
                                 str(time.time() + 30)], cwd=added, **kw)
        try:
            done = machine.edgar(["-p", "go", "--model", f"scripted:{script}",
                                  "--permission-mode", "yes", "--add-dir", str(added)],
                                 cwd=project, env=env)
        finally:
            loop.kill()
            loop.wait()
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert (added / ".git" / "config").read_text() == "[core]\n"
        assert not any("pay" in p.read_text() for p in (added / ".git").rglob("*")
                       if p.is_file())
        said = results(record)
        assert len(said) == 40
        refused = [r for r in said if not r.startswith(("created", "overwrote"))]
        assert refused, "the swap loop never met a write: the race was not shown"
        reasons = ("symbolic link", "git's internals", "does not follow links", "outside")
        assert all(any(why in r for why in reasons) for r in refused), refused
    finally:
        shutil.rmtree(machine.base, ignore_errors=True)
