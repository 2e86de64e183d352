"""A custom command's body made ready for the model: ``!`cmd``` run, ``@path`` files attached.

Guarantees:
- ``prepare`` (before anything is published) finds the command's ``@path`` files exactly as
  ``@path`` in a typed prompt (``attach.at_paths``: real files inside the root; one outside
  raises ``AttachRefused``), only in the file's own text: never in a command's output, nor
  in the arguments (a typed ``@path`` is attached with the typed line, once).
- ``!`cmd``` (Claude Code's form) runs inside the turn, before the model is called, as an
  ordinary ``shell`` tool call through the harness (``RunCall``: permission gate and deny
  rules, hooks, sandbox, checkpoints, one ``ToolProposed``/``ToolFinished``, the output on
  the screen like any command's), and its output replaces it in the body. It runs only
  when the command is the person's own (the user dir) or the project is trusted
  (``trust.trusted``, whose digest covers the command folders), and a rule of the command's
  ``allowed-tools`` covers it (``rules.first_match``: a chained or piped command never
  matches). Otherwise it does not run, the body says so in its place, and a ``Notice``
  tells the person why.
- A project command's ``allowed-tools`` apply only in a trusted project: like
  ``permissions.allow`` they let calls run unasked (``prepare`` drops them and says so).
- All of it is text the client wrote: it is published as one ``Attached`` for the turn,
  never as a ``PromptTyped`` (the typed text is the ``/NAME ARGS`` line only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from edgar.cli.attach import as_event, at_paths
from edgar.cli.custom_commands import (
    OWN,
    CustomCommand,
    allowed_rules,
    discover,
    pieces,
    split_line,
)
from edgar.conversation import Attachment

if TYPE_CHECKING:
    from edgar.bus import Bus
    from edgar.core.loop import Expand, RunCall
    from edgar.tools.rules import Rule


def find(line: str, root: Path, user: Path | None,
         builtins: set[str] | frozenset[str] = frozenset()) -> tuple[CustomCommand, str] | None:
    """(command, argument text) when ``line`` calls a command file (not a built-in)."""
    parts = split_line(line.strip())
    if parts is None or parts[0] in builtins:
        return None
    command = discover(root, user)[0].get(parts[0])
    return None if command is None else (command, parts[1])


@dataclass
class Prepared:
    """A command about to run: its pieces, its ``@path`` files, the rules it may use."""

    command: CustomCommand
    pieces: list[tuple[str, str]]
    files: list[Attachment]
    rules: list[Rule]
    trusted: bool              # the person's own command, or a trusted project's
    warnings: list[str]        # for the person, now (broken rules, ignored allowed-tools)

    def for_turn(self, bus: Bus, session_id: str) -> Expand:
        """The ``expand`` argument of ``run_turn`` for this command."""
        async def expand(call: RunCall, turn_id: str) -> list[Attachment]:
            return await self.expand(call, bus, session_id, turn_id)
        return expand

    async def expand(self, call: RunCall, bus: Bus, session_id: str,
                     turn_id: str) -> list[Attachment]:
        """Run the ``!`` pieces and publish the result as ``Attached``; the attachments."""
        from edgar.events import Attached, Notice

        name = f"/{self.command.name}"
        body: list[str] = []
        for kind, text in self.pieces:
            if kind == "text":
                body.append(text)
                continue
            why = self._refusal(text)
            if why is None:
                body.append((await call("shell", {"command": text})).content.rstrip("\n"))
                continue
            body.append(f"[!`{text}` was not run: {why}]")
            bus.publish(Notice(level="warning", message=f"{name}: !`{text[:120]}` not run: {why}",
                               session_id=session_id, turn_id=turn_id))
        attached: list[Attachment] = [(name, "".join(body).strip()), *self.files]
        bodies, sources = as_event(attached)
        bus.publish(Attached(bodies=bodies, sources=sources, session_id=session_id,
                             turn_id=turn_id))
        return attached

    def _refusal(self, command: str) -> str | None:
        from edgar.tools.rules import CHAINING, first_match

        if not self.trusted:
            return "this project is not trusted (`edgar trust` allows its commands to run)"
        if first_match(self.rules, "shell", command) is not None:
            return None
        if CHAINING.search(command):
            return "allowed-tools never covers a command that chains, pipes or redirects"
        return "allowed-tools has no Bash/shell rule for it"


def prepare(command: CustomCommand, args: str, root: Path, cwd: Path) -> Prepared:
    """Everything decided before the turn starts. Raises ``AttachRefused``."""
    from edgar.config.trust import RUNS, trusted

    parts = pieces(command, args)
    # the file's own @paths: a typed argument's @path is attached with the typed line already
    files = at_paths(RUNS.sub(" ", command.body), cwd, root)
    own = command.where.split(":")[0] in OWN
    ok = own or trusted(root)
    rules, warnings = allowed_rules(command)
    if rules and not ok:
        warnings.append(f"/{command.name}: allowed-tools ignored "
                        f"({', '.join(command.allowed_tools)}): "
                        "this project is not trusted (`edgar trust`)")
        rules = []
    return Prepared(command, parts, files, rules, ok, warnings)
