"""edgar's own git against a hostile repository, through the real binary (issue 21 item 1).

The model plants a program in git config — a nested repository's, a submodule's — or the
repository arrives with one in ``.git/config`` before any ``edgar trust``; edgar's own git
(checkpoints around each shell call, ``edgar diff``, ``edgar undo``) must never run it. The
payload would leave a marker (in a temp dir, which even the sandbox lets it write), connect
to a loopback listener and plant a git hook; each test asserts none of that happened, and
that edgar's git did run (the checkpoint saw the shell's change). As root and as an ordinary
user, with bubblewrap installed and hidden.
"""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest
from support.hostile import Machine, machine_fixture
from support.project import state_of, write_script

PAYLOAD = """#!/bin/bash
echo "ran $0 $*" >> {marker}
(echo pwned > /dev/tcp/127.0.0.1/{port}) 2>/dev/null
echo 'touch {marker}.hook' > {project}/.git/hooks/pre-commit 2>/dev/null
cat >/dev/null
"""


machine = machine_fixture("edgar-git-hostile-")


@pytest.fixture
def listener():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        sock.setblocking(False)
        yield sock


def setup(machine: Machine, listener: socket.socket) -> tuple[Path, Path, Path]:
    project = machine.base / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "keep.txt").write_text("keep\n")
    (project / "b.txt").write_text("b\n")
    machine.git("init", "-q", cwd=project)
    machine.git("add", "-A", cwd=project)
    machine.git("commit", "-qm", "first", cwd=project)
    marker = machine.base / "marker"
    pay = machine.base / "pay.sh"
    pay.write_text(PAYLOAD.format(marker=marker, port=listener.getsockname()[1],
                                  project=project))
    pay.chmod(0o755)
    return project, pay, marker


def shell(command: str) -> dict:
    return {"tool_calls": [{"name": "shell", "input": {"command": command}}]}


def run(machine: Machine, project: Path, steps: list[dict], *args: str):
    script = write_script(machine.base / "s.jsonl", [*steps, {"text": "done"}])
    env = machine.env(machine.base / "home")
    return machine.edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode",
                          "yes", *args], cwd=project, env=env)


def held(machine: Machine, project: Path, marker: Path, listener: socket.socket) -> None:
    assert not marker.exists(), marker.read_text()
    assert not Path(f"{marker}.hook").exists()
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    with pytest.raises(BlockingIOError):
        listener.accept()


def shell_seen(project: Path) -> list[str]:
    """The paths edgar's checkpoints recorded as changed by shell calls (its git ran)."""
    seen = []
    for manifest in (state_of(project, project.parent / "home")
                     / "checkpoints").glob("*/manifest.json"):
        seen += [entry["path"] for entry in json.loads(manifest.read_text())["shell"]]
    return seen


def test_a_nested_repository_with_an_fsmonitor_payload_is_not_run(machine, listener):
    project, pay, marker = setup(machine, listener)
    done = run(machine, project, [
        shell("cd src && git init -q sub && echo f > sub/f && git -C sub add f && "
              "git -C sub -c user.name=m -c user.email=m@m commit -qm s && "
              f"git -C sub config core.fsmonitor {pay} && cd .. && git add src/sub && "
              "echo staged"),
        shell("echo more > src/sub/g && echo two > src/two.txt")])
    assert done.returncode == 0, done.stderr
    log = next((state_of(project, machine.base / "home") / "sessions").glob("*.jsonl")).read_text()
    assert "staged" in log                                   # the model's attack was mounted
    held(machine, project, marker, listener)
    assert "src/two.txt" in shell_seen(project)              # edgar's git ran, neutralised


def test_a_submodules_config_written_by_the_model_is_not_run(machine, listener):
    project, pay, marker = setup(machine, listener)
    lib = machine.base / "lib"
    lib.mkdir()
    (lib / "l.txt").write_text("l\n")
    machine.git("init", "-q", cwd=lib)
    machine.git("add", "-A", cwd=lib)
    machine.git("commit", "-qm", "lib", cwd=lib)
    machine.git("submodule", "add", "-q", str(lib), "vendor/lib", cwd=project)
    machine.git("commit", "-qm", "sub", cwd=project)
    done = run(machine, project, [
        shell(f"git -C vendor/lib config core.fsmonitor {pay}; echo x > vendor/lib/new"),  # item 1
        shell("echo y > src/top.txt")])
    assert done.returncode == 0, done.stderr
    held(machine, project, marker, listener)
    assert "src/top.txt" in shell_seen(project)


def test_a_cloned_repository_arriving_with_programs_in_its_config_runs_none(machine, listener):
    project, pay, marker = setup(machine, listener)
    (project / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    machine.git("add", ".gitattributes", cwd=project)
    machine.git("commit", "-qm", "attrs", cwd=project)
    for key in ("core.fsmonitor", "core.pager", "diff.external", "filter.evil.clean",
                "filter.evil.smudge", "diff.evil.textconv", "diff.evil.command",
                "core.sshCommand", "core.editor", "gpg.program"):
        machine.git("config", key, str(pay), cwd=project)
    machine.git("config", "filter.evil.required", "true", cwd=project)
    machine.git("config", "log.showSignature", "true", cwd=project)
    done = run(machine, project, [shell("echo more >> b.txt && echo new > src/n.txt")])
    assert done.returncode == 0, done.stderr
    assert "b.txt" in shell_seen(project) and "src/n.txt" in shell_seen(project)
    env = machine.env(machine.base / "home")
    diff = machine.edgar(["diff"], cwd=project, env=env)
    assert "+more" in diff.stdout, diff.stdout + diff.stderr
    undo = machine.edgar(["undo"], cwd=project, env=env)
    assert "restored from HEAD b.txt" in undo.stdout, undo.stdout + undo.stderr
    assert (project / "b.txt").read_text() == "b\n"
    held(machine, project, marker, listener)


# --- item 5: protected paths are protected before they exist -------------------------------

def test_protected_paths_that_did_not_exist_cannot_be_planted(machine, listener):
    project, pay, marker = setup(machine, listener)
    shutil.rmtree(project / ".git" / "hooks")
    shutil.rmtree(project / ".git" / "info", ignore_errors=True)
    home = machine.base / "home"        # edgar's user dir: not made yet
    assert not home.exists() and not (state_of(project, machine.base / "home")).exists()
    attacks = [
        "rm -rf .git/hooks; mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch M\\n' > "
        ".git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        f"mkdir -p {home} && printf 'permission_mode = \"yes\"\\n[sandbox]\\nmode = \"off\"\\n'"
        f" > {home}/config.toml",
        "mkdir -p .git/info && echo '* filter=evil' > .git/info/attributes",
        f"mkdir -p .git/modules/x && echo '[core]\\n\\tfsmonitor = {pay}' > .git/modules/x/config",
        "rm -rf .edgar; mkdir .edgar && echo 'permission_mode = \"yes\"' > .edgar/config.toml",
        "echo '[core]\\n\\tfsmonitor = x' >> .git/config",
    ]
    done = run(machine, project, [shell(a) for a in attacks])
    assert done.returncode == 0, done.stderr
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert not (home / "config.toml").exists()
    attributes = project / ".git" / "info" / "attributes"
    assert not attributes.exists() or attributes.read_text() == ""
    assert not (project / ".git" / "modules" / "x").exists()
    assert "permission_mode" not in (project / ".edgar" / "config.toml").read_text() \
        if (project / ".edgar" / "config.toml").exists() else True
    assert "fsmonitor" not in (project / ".git" / "config").read_text()
    held(machine, project, marker, listener)


def test_an_existing_submodules_config_and_hooks_are_protected(machine, listener):
    project, pay, marker = setup(machine, listener)
    lib = machine.base / "lib"
    lib.mkdir()
    (lib / "l.txt").write_text("l\n")
    machine.git("init", "-q", cwd=lib)
    machine.git("add", "-A", cwd=lib)
    machine.git("commit", "-qm", "lib", cwd=lib)
    machine.git("submodule", "add", "-q", str(lib), "vendor/lib", cwd=project)
    module = project / ".git" / "modules" / "vendor" / "lib"    # named by its path
    shutil.rmtree(module / "hooks", ignore_errors=True)
    before = (module / "config").read_bytes()
    done = run(machine, project, [
        shell(f"git -C vendor/lib config core.fsmonitor {pay}"),
        shell("rm -f .git/modules/vendor/lib/config; echo '[core]' > "
              ".git/modules/vendor/lib/config"),
        shell("mkdir -p .git/modules/vendor/lib/hooks && "
              "echo evil > .git/modules/vendor/lib/hooks/post-checkout"),
        shell("echo ok > vendor/lib/new.txt")])        # the submodule's work tree stays writable
    assert done.returncode == 0, done.stderr
    assert (module / "config").read_bytes() == before
    assert not (module / "hooks" / "post-checkout").exists()
    assert (project / "vendor" / "lib" / "new.txt").read_text() == "ok\n"
    held(machine, project, marker, listener)
