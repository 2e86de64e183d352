"""The sandbox against real attacks: real files, real processes, a real loopback listener,
a real /proc read — as root and as an ordinary user.

Tests needing Landlock or namespaces skip only where this kernel or user lacks them, and say
which (``capabilities().why_not``)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from support.processes import alive, sleeper
from support.users import as_user, ordinary_user

from edgar.sandbox import Policy, Sandbox, explain, run, wrap
from edgar.sandbox.policy import temp_dirs
from edgar.sandbox.probe import Capabilities, capabilities

# sleeps that only this run has: finding them alive means a kill missed them
S300 = sleeper(300)
S317 = sleeper(317)
S318 = sleeper(318)
S319 = sleeper(319)
S320 = sleeper(320)
S321 = sleeper(321)
S322 = sleeper(322)
S323 = sleeper(323)

REPO = Path(__file__).resolve().parents[2]
CAPS = capabilities()
needs_ns = pytest.mark.skipif(CAPS.namespaces is None,
                              reason=f"no namespaces here: {'; '.join(CAPS.why_not)}")
needs_landlock = pytest.mark.skipif(CAPS.landlock_abi < 1, reason="no Landlock in this kernel")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".edgar").mkdir()
    (root / ".edgar" / "config.toml").write_text("model = 'x'\n")
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    return root, home, outside


def project_only(root: Path, home: Path, **kw) -> Sandbox:
    """The default policy minus the temp dirs (the test's own tree lives in /tmp)."""
    policy = Policy.for_project(root, user_dir=home, **kw)
    keep = tuple(w for w in policy.writable if w not in temp_dirs())
    return Sandbox(dataclasses.replace(policy, writable=keep))


def sh(box: Sandbox, root: Path, command: str, timeout: float = 20):
    return asyncio.run(run(["bash", "-c", command], sandbox=box, cwd=root,
                           env=dict(os.environ), timeout=timeout))


@needs_landlock
def test_writes_land_in_the_project_and_nowhere_else(project):
    root, home, outside = project
    box = project_only(root, home)
    done = sh(box, root, f"echo ok > made.txt && echo evil > {outside}/x")
    assert (root / "made.txt").read_text() == "ok\n"
    assert not (outside / "x").exists()
    assert done.exit_code != 0 and "Permission denied" in done.output
    lines = explain(done.output, done.exit_code, box.policy)
    assert any(line.startswith("sandbox: write outside the project refused") for line in lines)


@needs_landlock
def test_read_only_mode_refuses_the_project_too(project):
    root, home, _ = project
    box = project_only(root, home, mode="read-only")
    done = sh(box, root, "echo evil > made.txt")
    assert done.exit_code != 0 and not (root / "made.txt").exists()


@needs_ns
def test_read_only_mode_holds_for_a_project_inside_a_temp_dir(project):
    root, home, _ = project
    (root / ".git" / "objects").mkdir()
    box = Sandbox(Policy.for_project(root, mode="read-only", user_dir=home))
    for command in ("echo evil > made.txt", "echo evil > .git/objects/x", "echo ok > /tmp/.x$$"):
        done = sh(box, root, command)
        assert (done.exit_code == 0) == command.endswith("$$"), (command, done.output)
    assert not (root / "made.txt").exists() and not (root / ".git" / "objects" / "x").exists()


ATTACKS = {
    "overwrite config": "echo 'permission_mode = \"yes\"' > .edgar/config.toml",
    "replace config": "rm -f .edgar/config.toml; echo 'x = 1' > .edgar/config.toml",
    "remove state": "rm -rf .edgar",
    "move state away": "mv .edgar e2 && mkdir .edgar && echo evil > .edgar/config.toml",
    "plant hook":
        "echo 'touch /tmp/pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
    "move hooks away": "mv .git/hooks h2 && mkdir .git/hooks && echo evil > .git/hooks/pre-commit",
    "git config": "echo '[core] hooksPath = /tmp' >> .git/config",
    "move .git away": "mv .git g2 && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
    "symlink swap": "rm -f .edgar/config.toml; ln -s /tmp/evil.toml .edgar/config.toml",
}


@needs_ns
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_edgar_state_and_git_internals_stay_read_only(project, attack):
    root, home, _ = project
    guarded = (root / ".edgar" / "config.toml", root / ".git" / "config")
    before = {p: p.read_bytes() for p in guarded}
    box = Sandbox(Policy.for_project(root, user_dir=home))  # temp dirs writable: the default
    done = sh(box, root, ATTACKS[attack])
    assert done.exit_code != 0, done.output
    for path, data in before.items():
        assert path.read_bytes() == data
    assert sorted(os.listdir(root / ".git" / "hooks")) == []
    assert (root / ".edgar").is_dir() and (root / ".git" / "hooks").is_dir()
    assert not (root / ".edgar" / "config.toml").is_symlink()


@needs_ns
def test_user_dir_is_read_only_even_inside_a_writable_temp_dir(project):
    root, home, _ = project
    box = Sandbox(Policy.for_project(root, user_dir=home))
    done = sh(box, root, f"echo 'permission_mode = \"yes\"' > {home}/config.toml")
    assert done.exit_code != 0 and not (home / "config.toml").exists()
    assert any("edgar's state refused" in line
               for line in explain(done.output, done.exit_code, box.policy))


# A stand-in for edgar: a process with a secret in its environment that runs a command
# through edgar.sandbox; the command hunts for the secret in every /proc/*/environ.
HUNTER = textwrap.dedent("""
    import asyncio, os, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from edgar.sandbox import Policy, Sandbox, harden_self, run
    mode, harden, root, home = sys.argv[2], sys.argv[3] == "1", Path(sys.argv[4]), Path(sys.argv[5])
    if harden:
        harden_self()
    box = Sandbox(Policy.for_project(root, mode=mode, user_dir=home))
    hunt = ("cat /proc/$EDGAR_PID/environ 2>/dev/null | tr '\\\\0' '\\\\n' "
            "| grep -c CANARY_VALUE_77; "
            "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\\\0' '\\\\n' "
            "| grep -c CANARY_VALUE_77")
    env = {"PATH": os.environ["PATH"], "EDGAR_PID": str(os.getpid())}
    done = asyncio.run(run(["bash", "-c", hunt], sandbox=box, cwd=root, env=env, timeout=20))
    print(done.output)
""")


def hunt(project, mode: str, harden: bool, user=None, src: Path = REPO) -> str:
    root, home, _ = project
    kw = {}
    python = sys.executable
    if user is not None:
        python, kw = user.python, as_user(user)
    env = {"PATH": os.environ["PATH"], "SECRET_TOKEN": "CANARY_VALUE_77"}
    done = subprocess.run([python, "-c", HUNTER, str(src), mode, "1" if harden else "0",
                           str(root), str(home)], env=env, capture_output=True, text=True,
                          timeout=60, **kw)
    assert done.returncode == 0, done.stderr
    return done.stdout


@needs_ns
def test_a_command_cannot_read_edgars_environment(project):
    assert "CANARY_VALUE_77" not in hunt(project, "workspace-write", harden=True)
    counts = hunt(project, "workspace-write", harden=False).split()
    assert counts and all(c == "0" for c in counts)
    if os.geteuid() == 0:  # the control: unconfined, root reads it — the test can fail
        assert hunt(project, "off", harden=True).split()[0] == "1"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_DUMPABLE is Linux")
def test_an_ordinary_users_commands_cannot_read_edgars_environment(tmp_path):
    user = ordinary_user()
    base = Path(tempfile.mkdtemp(prefix="edgar-sbx-user-"))
    try:
        root, home, outside = base / "proj", base / "home", base / "outside"
        for path in (root / ".git", root / ".edgar", home, outside):
            path.mkdir(parents=True)
        # the checkout may sit in a directory only its owner can enter (a clone under /root):
        # the user runs a copy of the package, in a place it can read
        src = base / "src"
        shutil.copytree(REPO / "edgar", src / "edgar", ignore=shutil.ignore_patterns("__pycache__"))
        for path in (base, *base.rglob("*")):
            os.chown(path, user.uid, user.gid)
        project = (root, home, outside)
        # unconfined but with edgar non-dumpable: refused; without it: read (the control)
        assert hunt(project, "off", harden=True, user=user, src=src).split()[0] == "0"
        assert hunt(project, "off", harden=False, user=user, src=src).split()[0] == "1"
        if CAPS.namespaces is not None:
            counts = hunt(project, "workspace-write", harden=False, user=user, src=src).split()
            assert counts and all(c == "0" for c in counts)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@needs_ns
@pytest.mark.timing   # asserts how long it took
def test_no_network_a_loopback_listener_is_not_reached(project):
    root, home, _ = project
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        started = time.monotonic()
        done = sh(project_only(root, home), root, probe)
        assert done.exit_code != 0 and "connected" not in done.output
        assert time.monotonic() - started < 10  # refused, not hung
        with pytest.raises(BlockingIOError):
            listener.accept()
        opened = sh(project_only(root, home, network=True), root, probe)  # the control
        assert opened.exit_code == 0 and "connected" in opened.output
        listener.accept()[0].close()


@needs_ns
@pytest.mark.timing   # asserts how long it took
def test_setsid_children_die_with_the_command(project):
    root, home, _ = project
    started = time.monotonic()
    done = sh(project_only(root, home), root, f"setsid {S317} & {S318} & echo started")
    assert done.exit_code == 0 and done.output.strip() == "started"
    assert time.monotonic() - started < 5
    assert alive(S317) == [] and alive(S318) == []


@needs_ns
@pytest.mark.timing   # a timeout
def test_timeout_kills_every_descendant(project):
    root, home, _ = project
    done = sh(project_only(root, home), root, f"setsid {S319} & echo begun; {S300}",
              timeout=1)
    assert done.timed_out and done.exit_code is None and "begun" in done.output
    assert alive(S319) == [] and alive(S300) == []


@pytest.mark.timing   # asserts how long it took
def test_output_comes_back_when_a_child_keeps_the_pipe_even_unconfined(project):
    root, home, _ = project
    box = Sandbox(Policy.for_project(root, mode="off", user_dir=home))
    started = time.monotonic()
    done = sh(box, root, f"{S320} & echo done")
    assert done.exit_code == 0 and done.output.strip() == "done" and not done.timed_out
    assert time.monotonic() - started < 5
    assert alive(S320) == []


@needs_ns
def test_cancelling_kills_everything(project):
    root, home, _ = project
    box = project_only(root, home)

    async def cancel_soon():
        task = asyncio.ensure_future(run(["bash", "-c", f"setsid {S321} & {S322}"],
                                         sandbox=box, cwd=root, env=dict(os.environ),
                                         timeout=60))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_soon())
    assert alive(S321) == [] and alive(S322) == []


@needs_ns
def test_wrap_confines_a_process_started_by_other_code(project):
    root, home, _ = project
    box = Sandbox(Policy.for_project(root, user_dir=home))
    argv = wrap(["bash", "-c", "echo ok > made.txt; echo evil > .edgar/config.toml; ls /proc"],
                box)
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=60)
    assert (root / "made.txt").read_text() == "ok\n"
    assert (root / ".edgar" / "config.toml").read_text() == "model = 'x'\n"
    assert "Read-only file system" in done.stderr
    pids = [p for p in done.stdout.split() if p.isdigit()]
    assert str(os.getpid()) not in pids and len(pids) < 5


def test_without_any_layer_it_says_so_and_only_off_is_silent(project):
    root, home, _ = project
    policy = Policy.for_project(root, user_dir=home)
    bare = Sandbox(policy, caps=Capabilities(why_not=("namespaces: unavailable (test)",)))
    assert not bare.active
    assert "nothing confines commands" in bare.warning()
    assert any("NOTHING confines" in layer.detail for layer in bare.layers())
    off = Sandbox(dataclasses.replace(policy, mode="off"))
    assert off.warning() is None and not off.active


# The fallbacks, chosen as a machine without namespaces would choose them: the capabilities
# are passed in (what the probe would have found there), the enforcement is real.
BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(BWRAP is None or CAPS.namespaces is None,
                                 reason="bubblewrap is not installed (apt-get install bubblewrap)"
                                 if BWRAP is None else "no namespaces here for bwrap")


@needs_bwrap
def test_bubblewrap_fallback_holds_the_same_line(project):
    root, home, outside = project
    from edgar.sandbox.probe import _bwrap

    assert _bwrap() == BWRAP  # the probe itself finds it working
    policy = dataclasses.replace(Policy.for_project(root, user_dir=home),
                                 writable=(os.path.realpath(root),))
    box = Sandbox(policy, caps=Capabilities(landlock_abi=CAPS.landlock_abi, bwrap=BWRAP))
    assert box.backend == "bwrap" and box.kills_all
    for attack in ("echo x > .edgar/config.toml", "echo x > .git/hooks/pre-commit",
                   f"echo x > {outside}/x", "exec 3<>/dev/tcp/1.1.1.1/80"):
        done = sh(box, root, attack, timeout=10)
        assert done.exit_code != 0, (attack, done.output)
    assert (root / ".edgar" / "config.toml").read_text() == "model = 'x'\n"
    assert not (outside / "x").exists()
    done = sh(box, root, f"echo ok > made.txt; setsid {S323} & echo bg")
    assert done.exit_code == 0 and (root / "made.txt").exists()
    assert alive(S323) == []
    assert [layer.name for layer in box.layers() if layer.active][0] == "bubblewrap"


@needs_landlock
def test_landlock_alone_still_keeps_state_read_only(project):
    root, home, outside = project
    (root / "src").mkdir()
    policy = dataclasses.replace(Policy.for_project(root, user_dir=home),
                                 writable=(os.path.realpath(root),))
    box = Sandbox(policy, caps=Capabilities(landlock_abi=CAPS.landlock_abi))
    assert box.backend == "landlock" and not box.kills_all and box.carved
    assert sh(box, root, "echo ok > src/a.py").exit_code == 0
    for attack in ("echo x > .edgar/config.toml", "rm -f .edgar/config.toml",
                   "ln -s /tmp/x .edgar/evil", "echo x > .git/hooks/pre-commit",
                   "echo x >> .git/config", "mv .git g2", "touch new-at-root",
                   f"echo x > {outside}/x"):
        done = sh(box, root, attack)
        assert done.exit_code != 0, (attack, done.output)
    assert (root / ".edgar" / "config.toml").read_text() == "model = 'x'\n"
    assert sorted(os.listdir(root / ".edgar")) == ["config.toml"]
    assert "no new entries directly in the project root" in " ".join(
        layer.detail for layer in box.layers())
    assert "partial" in box.warning()
