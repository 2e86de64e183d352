"""The modes of what edgar writes, through the real binary (issue 21, smaller items): a file
the ``write`` tool creates follows the person's umask, like one their editor makes — inside the
project and outside it (``tools.allow_outside_root``); a file it replaces keeps its mode; the
checkpoint copies of the person's files stay 0600, whatever the umask."""

from __future__ import annotations

import os
import stat

import pytest
from support.project import edgar_env, make_project, run_edgar, state_of, write_script


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def run_with_umask(umask: int, args, project, env):
    old = os.umask(umask)   # inherited by the edgar process, as from the person's shell
    try:
        return run_edgar(args, project, env)
    finally:
        os.umask(old)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o027, 0o077])
def test_a_file_write_creates_follows_the_umask_and_checkpoints_stay_private(tmp_path, umask):
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "outside"
    (home / "config.toml").write_text("[tools]\nallow_outside_root = true\n")
    project = make_project(tmp_path / "p", {"tool.sh": "#!/bin/sh\necho old\n",
                                            "secret.txt": "mine\n"})
    os.chmod(project / "tool.sh", 0o755)
    os.chmod(project / "secret.txt", 0o640)
    script = write_script(tmp_path / "s.jsonl", [{"tool_calls": [
        {"name": "write", "input": {"path": "new.txt", "content": "fresh\n"}},
        {"name": "write", "input": {"path": "deep/er/new.py", "content": "x = 1\n"}},
        {"name": "write", "input": {"path": "tool.sh", "content": "#!/bin/sh\necho new\n"}},
        {"name": "write", "input": {"path": "secret.txt", "content": "changed\n"}},
        {"name": "write", "input": {"path": str(outside / "far.txt"), "content": "far\n"}},
    ]}, {"text": "done"}])
    env = edgar_env(home)
    done = run_with_umask(umask, ["-p", "write things", "--model", f"scripted:{script}",
                                  "--permission-mode", "yes"], project, env)
    assert done.returncode == 0, done.stderr
    assert (project / "new.txt").read_text() == "fresh\n"
    assert mode(project / "new.txt") == 0o666 & ~umask
    assert mode(project / "deep/er/new.py") == 0o666 & ~umask
    assert (outside / "far.txt").read_text() == "far\n"
    assert mode(outside / "far.txt") == 0o666 & ~umask
    assert mode(project / "tool.sh") == 0o755          # replaced: keeps its mode
    assert mode(project / "secret.txt") == 0o640
    copies = [p for p in (state_of(project, home) / "checkpoints").rglob("*")
              if p.is_file() and p.name != ".gitignore"]
    assert copies, "the turn's checkpoint was not written"
    assert all(mode(p) == 0o600 for p in copies), {str(p): oct(mode(p)) for p in copies}
