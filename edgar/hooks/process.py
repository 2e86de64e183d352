"""Running one hook command: JSON on stdin, exit code and bounded output back.

Guarantees:
- The command runs through ``edgar.spawn`` (``bash -c`` as in Claude Code, ``/bin/sh -c``
  where there is no bash, or Claude Code's exec form with
  ``args``; sandboxed like a shell call, own
  process group, built environment with ``CLAUDE_PROJECT_DIR``/``EDGAR_PROJECT_DIR`` set) at
  the project root.
- At most ``OUTPUT_LIMIT`` bytes of stdout and of stderr are kept; the rest is read and
  dropped, so a hook printing 10 MB neither blocks nor fills memory.
- A hook that outlives its timeout is killed with its whole process group and reported
  as ``timed_out``; a command that cannot start is exit code 127, never an exception.
- What the hook's exit code and output mean is ``hooks/output.py``'s to say.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgar.spawn import Confinement, child_env, kill_tree, read_bounded, settings_env, spawn

OUTPUT_LIMIT = 64 * 1024
_BASH = shutil.which("bash")


@dataclass(frozen=True)
class HookRun:
    exit_code: int | None        # None: timed out and killed
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    error: str = ""              # it did not answer (an HTTP hook's failure): non-blocking


async def run_hook(command: str, payload: dict[str, Any], root: Path, timeout: float,
                   sandbox: Confinement | None = None,
                   args: tuple[str, ...] | None = None) -> HookRun:
    """Run one hook: shell form (``/bin/sh -c command``), or exec form when ``args`` is given
    (``command`` is the program, ``${CLAUDE_PROJECT_DIR}`` filled in as plain text, no shell)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    env = child_env({**settings_env(sandbox), "CLAUDE_PROJECT_DIR": str(root),
                     "EDGAR_PROJECT_DIR": str(root)})
    if args is None:   # Claude Code runs a hook's command with bash ("shell" defaults to it)
        argv = [_BASH or "/bin/sh", "-c", command]
    else:
        argv = [a.replace("${CLAUDE_PROJECT_DIR}", str(root)) for a in (command, *args)]
    try:
        proc = await spawn(argv, cwd=root, env=env, sandbox=sandbox)
    except OSError as exc:
        return HookRun(127, "", f"cannot start the hook: {exc.strerror or exc}", 0.0)
    data = json.dumps(payload, ensure_ascii=False, default=str).encode()

    async def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(data)
            await proc.stdin.drain()
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # a hook need not read its input

    async def talk() -> tuple[tuple[bytes, int], tuple[bytes, int], int]:
        out, err, _ = await asyncio.gather(read_bounded(proc.stdout, OUTPUT_LIMIT),
                                           read_bounded(proc.stderr, OUTPUT_LIMIT), feed())
        return out, err, await proc.wait()

    try:
        (out, _), (err, _), code = await asyncio.wait_for(talk(), timeout)
    except TimeoutError:
        await kill_tree(proc)
        return HookRun(None, "", "", loop.time() - start, timed_out=True)
    except asyncio.CancelledError:
        await kill_tree(proc)
        raise
    return HookRun(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                   loop.time() - start)
