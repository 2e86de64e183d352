"""edgar's own git for auto-commit, until ``edgar.sandbox.git`` (issue 21 item 1) is on main:
the same call shape (``git(args, root=, sandbox=, input=)`` → ``GitResult``), so switching is
one import.

Guarantees:
- git runs inside the session's sandbox (the same layers as the model's commands: no write
  to ``.git/hooks``, ``.git/config`` or ``.edgar``, no network) and neutralised: hooks off
  (``core.hooksPath=/dev/null``), no fsmonitor, pager, external diff, textconv, signing,
  transport, credential helper or auto gc; system and global config not read.
- Its environment is built, not inherited: PATH, HOME, TMPDIR and the locale only, so no
  ``GIT_*`` variable or secret of edgar's own environment reaches it.
- It never raises for git's failures: a missing git or a timeout is a ``GitResult`` with
  ``ok`` False and ``problem`` saying why.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgar.sandbox.core import Sandbox

TIMEOUT = 30.0
NEUTRAL = (
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat",
    "core.sshCommand=", "core.askPass=", "credential.helper=", "diff.external=",
    "protocol.allow=never", "submodule.recurse=false", "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false", "commit.gpgSign=false", "gc.auto=0",
    "maintenance.auto=false", "core.untrackedCache=false",
)


@dataclass(frozen=True, slots=True)
class GitResult:
    """How one git command ended. ``exit_code`` None: it did not run to its end."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes = b""
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def command(args: Sequence[str], root: Path | str) -> list[str]:
    argv = ["git", "--no-pager", "--no-optional-locks"]
    for setting in (*NEUTRAL, f"safe.directory={os.path.realpath(root)}"):
        argv += ["-c", setting]
    return argv + list(args)


def environment(root: Path | str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k in ("PATH", "HOME", "TMPDIR", "LANG", "TZ") or k.startswith("LC_")}
    env["PATH"] = env.get("PATH") or os.defpath
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
                "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "GIT_EDITOR": ":",
                "GIT_CEILING_DIRECTORIES": os.path.dirname(os.path.realpath(root))})
    return env


async def git(args: Sequence[str], *, root: Path, sandbox: Sandbox, input: bytes | None = None,
              timeout: float = TIMEOUT) -> GitResult:
    folder = os.fspath(root)
    try:
        proc = subprocess.Popen(
            sandbox.argv(command(args, folder), folder), cwd=folder, env=environment(folder),
            stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            preexec_fn=sandbox.preexec(), close_fds=True)
    except OSError as exc:
        return GitResult(None, b"", b"", f"git could not be started: {exc.strerror or exc}")
    try:
        out, err = await asyncio.wait_for(asyncio.to_thread(proc.communicate, input), timeout)
    except (TimeoutError, asyncio.CancelledError) as exc:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if isinstance(exc, asyncio.CancelledError):
            raise
        return GitResult(None, b"", b"", f"git timed out after {timeout:g}s and was killed")
    return GitResult(proc.returncode, out, err)
