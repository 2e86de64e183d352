"""shell: run a command at the project root, inside the sandbox.

Guarantees:
- The command runs through ``edgar.sandbox`` (the session's, or the default confined policy
  for the root when none is given): writes only where the policy allows, no network unless
  enabled, edgar's environment out of reach, and every descendant killed at the timeout,
  on cancellation, and when the command exits while a child still holds its output (the
  output is returned all the same).
- Its environment is the sandbox's one allow-list (``edgar.sandbox.env``: what a build
  needs, never a secret-named variable or a URL password) plus the variables the person
  passes with ``[sandbox] env``.
- A write or connection the sandbox refused comes back as a failed call with a
  ``sandbox: …`` line saying so; a sandbox that could not be set up is an ``internal``
  failure and the command did not run.
- ``program`` in the error record is the basename of the command's first word only when
  the harness can vouch for it (``command_shape.vouched_program``), else None; never text
  the command printed. An exit code that is an answer (``command_shape.ANSWERS``: grep found
  nothing, diff found a difference) is kind ``exit_answer``, not ``exit_nonzero``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgar.declared import Field
from edgar.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome
from edgar.tools.command_shape import is_answer, vouched_program

if TYPE_CHECKING:
    from edgar.sandbox import Completed, Sandbox


class ShellArgs(ToolArgs):
    """Arguments of ``shell``."""

    command: str = Field(description="A shell command (bash -c)")
    timeout: float | None = Field(None, description="Seconds before it is killed", gt=0)


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


_DEFAULT: dict[Path, Sandbox] = {}


def sandbox_for(ctx: ToolContext) -> Sandbox:
    if ctx.sandbox is not None:
        return ctx.sandbox.get()
    box = _DEFAULT.get(ctx.root)
    if box is None:  # no session sandbox given: confined by default, never open
        from edgar.sandbox import Policy, Sandbox

        box = _DEFAULT[ctx.root] = Sandbox(Policy.for_project(ctx.root))
    return box


async def run_command(command: str, ctx: ToolContext, timeout: float) -> Completed:
    """Run ``bash -c command`` in the sandbox; raises ToolFailure if it cannot be set up."""
    from edgar.sandbox import run

    if "\0" in command:
        raise ToolFailure("validation", "the command contains a NUL character")
    from edgar.sandbox.env import passed

    box = sandbox_for(ctx)
    env = {**ctx.env, **passed(box.policy.env), **dict(box.policy.set_env)}
    done = await run(["bash", "-c", command], sandbox=box, cwd=ctx.root,
                     env=env, timeout=timeout, on_output=_shown(ctx.output))
    if done.setup_error:
        raise ToolFailure("internal", f"sandbox: the command could not be started: "
                          f"{done.setup_error}")
    return done


def _shown(show: Callable[[str], None] | None) -> Callable[[bytes], None] | None:
    """``show`` for text, fed bytes as they arrive (UTF-8 split across pieces is kept whole)."""
    if show is None:
        return None
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    return lambda data: show(decoder.decode(data))


class Shell(Tool):
    name = "shell"
    description = ("Run a shell command at the project root and return its output "
                   "(stdout and stderr together) and exit code. Commands run in a sandbox: "
                   "writes outside the project and temp dirs are refused, and so is the "
                   "network unless the person enabled it.")
    Args = ShellArgs
    access = "shell"

    def summary(self, args: dict[str, Any]) -> str:
        return f"$ {args.get('command', '')}"

    async def run(self, args: ShellArgs, ctx: ToolContext) -> ToolOutcome:
        from edgar.sandbox import explain

        timeout = args.timeout or ctx.shell_timeout
        done = await run_command(args.command, ctx, timeout)
        code = None if done.timed_out else done.exit_code
        program = vouched_program(args.command, ctx.root, ctx.env, sandbox_for(ctx),
                                  ctx.baseline) if code != 0 else None
        if done.timed_out:
            partial = f"\n{done.output.rstrip()}" if done.output.strip() else ""
            raise ToolFailure("timeout", f"command timed out after {timeout:g}s and was killed "
                              f"with everything it started{partial}", program=program)
        body = done.output or "(no output)"
        if done.lingered:
            body += "\n[the command exited; a background process it left holding the output " \
                    "was stopped]"
        notes = explain(done.output, code, sandbox_for(ctx).policy)
        if notes:
            body += "\n" + "\n".join(notes)
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
