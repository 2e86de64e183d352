"""shell: run a command at the project root.

Guarantees:
- The command runs in its own process group; on timeout or cancellation the whole group
  is killed (SIGTERM, then SIGKILL), so no grandchild outlives the call.
- Its environment has no variable whose name contains KEY, SECRET, TOKEN or PASSWORD.
- ``program`` in the error record is the basename of the command's first word only when
  the harness can vouch for it (``command_shape.vouched_program``), else None; never text
  the command printed. An exit code that is an answer (``command_shape.ANSWERS``: grep found
  nothing, diff found a difference) is kind ``exit_answer``, not ``exit_nonzero``.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
from dataclasses import dataclass, field

from edgar.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome, doc
from edgar.tools.command_shape import is_answer, vouched_program


@dataclass(slots=True)
class ShellArgs(ToolArgs):
    """Arguments of ``shell``."""

    command: str = field(metadata=doc("A shell command (bash -c)"))
    timeout: float | None = field(default=None, metadata=doc("Seconds before it is killed", gt=0))


def program_of(command: str) -> str:
    """Basename of the first word that is not an environment assignment."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for word in words:
        if "=" in word.split("/")[0] and not word.startswith("="):
            continue  # FOO=bar cmd
        return os.path.basename(word) or word
    return ""


async def kill_group(proc: asyncio.subprocess.Process) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), 2.0)
            return
        except asyncio.TimeoutError:
            continue


async def run_command(command: str, ctx: ToolContext, timeout: float) -> tuple[int | None, str]:
    """(exit code, combined output); exit code None means it timed out and was killed."""
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", command, cwd=str(ctx.root), env=ctx.env, start_new_session=True,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        await kill_group(proc)
        return None, ""
    except asyncio.CancelledError:
        await kill_group(proc)
        raise
    return proc.returncode, out.decode("utf-8", "replace")


class Shell(Tool):
    name = "shell"
    description = ("Run a shell command at the project root and return its output "
                   "(stdout and stderr together) and exit code.")
    Args = ShellArgs
    access = "shell"

    def summary(self, args: dict) -> str:
        return f"$ {args.get('command', '')}"

    async def run(self, args: ShellArgs, ctx: ToolContext) -> ToolOutcome:
        timeout = args.timeout or ctx.shell_timeout
        code, out = await run_command(args.command, ctx, timeout)
        program = vouched_program(args.command, ctx.root, ctx.env) if code != 0 else None
        if code is None:
            raise ToolFailure("timeout", f"command timed out after {timeout:g}s and was killed",
                              program=program)
        body = out or "(no output)"
        if code == 127:
            raise ToolFailure("not_found", f"{body}\n[exit code 127: command not found]",
                              exit_code=code, program=program)
        if is_answer(args.command, code):
            raise ToolFailure("exit_answer", f"{body}\n[exit code {code}]", exit_code=code,
                              program=program)
        if code != 0:
            raise ToolFailure("exit_nonzero", f"{body}\n[exit code {code}]", exit_code=code,
                              program=program)
        return ToolOutcome(body)
