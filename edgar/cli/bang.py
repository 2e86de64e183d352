"""``!cmd`` in the REPL and ``edgar -p "!cmd"``: a command the person runs without a model call.

Guarantees:
- The command runs exactly as the model's ``shell`` does: in the session's sandbox, at the
  root, with the environment stripped of secret-named variables and the shell timeout. It is
  the person's own command, so no permission question is asked (deny rules still hold: a
  command a ``deny`` rule covers is refused, as it would be from the model).
- What the person sees: the output (escape sequences removed, at most ``SHOWN`` lines) and the
  exit code. What the model gets, with the next prompt: the command and its output (clipped to
  ``KEPT`` characters) as one attachment, ``<bash-input>``/``<bash-stdout>`` as Claude Code
  records them — never as text the person typed, so nothing in it is learned.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from edgar.conversation import Attachment

if TYPE_CHECKING:
    from edgar.core.session import Session

SHOWN = 200                 # lines of output shown
KEPT = 20_000               # characters of output the next request carries
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*(?:\x07|\x1b\\)"
                      r"|[\x00-\x08\x0b-\x1f\x7f]")


async def run_bang(session: Session, command: str) -> tuple[list[str], Attachment]:
    """(lines to show, the attachment for the next request) for ``command``."""
    from edgar.tools.base import ToolContext, ToolFailure, clip
    from edgar.tools.rules import first_match
    from edgar.tools.shell import run_command

    denied = first_match(session.gate.deny, "shell", command, deny=True)
    if denied is not None:
        why = f"refused by the deny rule `{denied.text}`"
        return [f"! {command}: {why}"], (f"!{command}", _body(command, f"[not run: {why}]"))
    ctx = ToolContext(root=session.root, sandbox=session.sandbox,
                      shell_timeout=session.settings.tools.shell_timeout)
    try:
        done = await run_command(command, ctx, ctx.shell_timeout)
    except ToolFailure as exc:
        return [f"! {command}: {exc.message}"], (f"!{command}", _body(command, exc.message))
    output = _ESCAPES.sub("", done.output).rstrip("\n")
    code = "timed out" if done.timed_out else f"exit {done.exit_code}"
    rows = output.splitlines()
    shown = rows[:SHOWN] + ([f"… {len(rows) - SHOWN} more lines (the model gets them)"]
                            if len(rows) > SHOWN else [])
    return ([f"$ {command}", *shown, f"({code})"],
            (f"!{command}", _body(command, f"{clip(output, KEPT)}\n[{code}]")))


def _body(command: str, output: str) -> str:
    return f"<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>"
