"""How edgar starts a program named in config (hooks, stdio MCP servers): one function.

Guarantees:
- ``spawn`` is the only door: every hook and every stdio MCP server process starts here, in
  its own session (process group), at the directory it is given.
- The child's environment is built, not inherited: the sandbox's one allow-list
  (``edgar.sandbox.env``, shared with shell, verify and edgar's own git), the variables the
  person passes with ``[sandbox] env``, plus exactly the variables the config entry names.
  edgar's own environment — API keys, tokens — never reaches it unless one of those names it.
- ``kill_tree`` ends the whole process group (SIGTERM, then SIGKILL), so no grandchild
  outlives the call or the session.
- ``read_bounded`` keeps at most ``limit`` bytes of a stream and drains the rest, so a
  program printing 10 MB costs edgar a fixed amount of memory and never blocks on a pipe.

- With a sandbox (``edgar/sandbox``), the program runs confined exactly like a shell call:
  writes only in the project (never ``.edgar/``, ``.git/hooks``), no network unless the policy
  allows it, its own PID namespace so every descendant dies with it. ``wrap`` gives the
  confining command line because edgar keeps the pipes as asyncio streams here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from edgar.sandbox.core import Sandbox


class Confinement(Protocol):
    """Where the sandbox comes from: ``SessionSandbox`` (built at first use)."""

    def get(self) -> Sandbox: ...

def child_env(extra: Mapping[str, str] | None = None,
              environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a configured program: the one allow-list plus ``extra``."""
    from edgar.sandbox.env import command_env

    env = command_env(environ)
    env.update(extra or {})
    return env


def settings_env(sandbox: Confinement | None) -> dict[str, str]:
    """The variables the person's settings files set for what ``sandbox`` confines (Claude
    Code's ``env``, ADR-0079): they replace what edgar's environment gave, and a program's
    own values (an MCP entry's ``env``, ``CLAUDE_PROJECT_DIR``) replace them."""
    return dict(sandbox.get().policy.set_env) if sandbox is not None else {}


async def spawn(argv: list[str], *, cwd: Path, env: Mapping[str, str],
                sandbox: Confinement | None = None,
                stdin: int | None = asyncio.subprocess.PIPE,
                stdout: int | None = asyncio.subprocess.PIPE,
                stderr: int | None = asyncio.subprocess.PIPE) -> asyncio.subprocess.Process:
    """Start ``argv`` in its own process group, confined by ``sandbox`` when given. Raises
    OSError when it cannot start (confined, a missing program is exit 127 instead)."""
    if not argv or not argv[0]:
        raise FileNotFoundError("no command given")
    if sandbox is not None:
        from edgar.sandbox import wrap
        from edgar.sandbox.env import passed

        box = sandbox.get()
        env = {**passed(box.policy.env), **env}   # the entry's own values win
        argv = wrap(list(argv), box, str(cwd))
    return await asyncio.create_subprocess_exec(
        *argv, cwd=str(cwd), env=dict(env), stdin=stdin, stdout=stdout, stderr=stderr,
        start_new_session=True, limit=1 << 20)


async def kill_tree(proc: asyncio.subprocess.Process, grace: float = 2.0) -> None:
    """End ``proc`` and everything in its process group; waits at most about 2 × grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), grace)
            break
        except TimeoutError:
            continue
    if proc.returncode is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)


async def read_bounded(stream: asyncio.StreamReader | None, limit: int) -> tuple[bytes, int]:
    """(first ``limit`` bytes, total bytes seen) of ``stream``, read to its end."""
    if stream is None:
        return b"", 0
    kept = bytearray()
    total = 0
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return bytes(kept), total
        total += len(chunk)
        room = limit - len(kept)
        if room > 0:
            kept += chunk[:room]


def one_line(text: str, limit: int = 300) -> str:
    """``text`` as one printable line of at most ``limit`` characters (for notices)."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
