"""Permission modes and rules: what may run without asking.

Guarantees:
- ``deny`` rules win over everything, in every mode (``yes`` and ``-p`` included).
- ``read-only`` and ``plan`` refuse writes and shell, except the built-in read-only commands
  (``rules.READ_ONLY``: ``git status``, ``git diff``, ``ls``, ``cat``, ``rg`` …), and says which.
- ``allow`` rules (config, a custom command's ``allowed-tools``, "always" answers) let a
  call run without asking in ``ask`` and ``auto-edit`` and in ``-p``; they never lift
  ``read-only``.
- ``ask`` rules (Claude Code's ``permissions.ask``) and a PreToolUse hook's ``ask`` confirm
  the call in every mode (``yes`` too), and refuse it where nobody can confirm; a hook's
  ``allow`` runs it unasked, except where a deny or ask rule or ``read-only`` says otherwise.
- ``ask`` confirms writes and shell; ``auto-edit`` confirms shell only; ``yes`` asks nothing.
  ``web_fetch`` (access ``web``) is confirmed in every mode but ``yes``, ``read-only`` included
  (it changes nothing here); its rules name the host: ``web_fetch(domain:docs.python.org)``.
  Reads and subagents never need confirmation. With no ``confirm`` callback (``edgar -p``)
  anything that needs a confirmation is refused, never silently allowed.
- "always" for a shell command adds a rule for its program and subcommand (``git status*``)
  and hands it to ``save`` (the user config); for other tools it holds for that tool for the
  rest of the session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from edgar.tools.modes import AFTER_PLAN, MODES, PLAN, READING
from edgar.tools.rules import (
    Rule,
    first_match,
    parse_rule,
    read_only_command,
    read_only_names,
    suggest,
)

Answer = Literal["yes", "no", "always"]
# (tool, one-line summary, what "always" would allow, or None for the whole tool) -> answer
Confirm = Callable[[str, str, "str | None"], Awaitable[Answer]]
SUBJECT_KEYS = {"shell": "command", "read": "path", "write": "path", "edit": "path",
                "glob": "pattern", "grep": "path", "web_fetch": "url"}


def allowing_mode(access: str) -> str:
    """The least permissive mode that runs a call of this access without asking."""
    return "auto-edit" if access == "write" else "yes"


class PermissionGate:
    def __init__(self, mode: str, confirm: Confirm | None = None, *,
                 allow: Iterable[Rule] = (), deny: Iterable[Rule] = (), ask: Iterable[Rule] = (),
                 root: Path | None = None, save: Callable[[str], str | None] | None = None):
        if mode not in MODES:
            raise ValueError(f"unknown permission mode {mode!r} (one of {', '.join(MODES)})")
        self.mode: str = mode
        self.before_plan: str | None = None   # the mode /plan left, for an approved plan
        self.confirm = confirm
        self.always: set[str] = set()
        self.allow = list(allow)
        self.deny = list(deny)
        self.ask = list(ask)             # Claude Code's permissions.ask: always confirm these
        self.extra: list[Rule] = []      # for the running turn only (a command's allowed-tools)
        self.root = root.resolve() if root is not None else None
        self.save = save                 # rule text -> None, or why it could not be saved

    def enter_plan(self) -> None:
        """Plan mode now; the mode it leaves is where an approved plan goes on."""
        if self.mode != PLAN:
            self.before_plan, self.mode = self.mode, PLAN

    def leave_plan(self) -> str:
        """Back to the mode before plan mode (``AFTER_PLAN`` if edgar started in it)."""
        self.mode, self.before_plan = self.before_plan or AFTER_PLAN, None
        return self.mode

    def needs(self, access: str) -> Literal["allow", "ask", "deny"]:
        if access in ("read", "task") or self.mode == "yes":
            return "allow"
        if access == "web":
            return "ask"
        if self.mode in READING:
            return "deny"
        if self.mode == "auto-edit" and access == "write":
            return "allow"
        return "ask"

    def subject(self, tool: str, args: Mapping[str, Any] | None) -> str | None:
        """What a rule's pattern is matched against: the command, or the root-relative path."""
        value = (args or {}).get(SUBJECT_KEYS.get(tool, ""), None)
        if not isinstance(value, str):
            return None
        if tool == "shell" or tool == "glob":
            return value
        if tool == "web_fetch":
            from edgar.web.fetch import host_of

            return host_of(value) or None
        if self.root is None:
            return value
        try:
            full = (self.root / Path(value).expanduser()).resolve()
            return full.relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None  # outside the project (or a link swapped under it): no rule allows it

    async def check(self, tool: str, access: str, summary: str,
                    args: Mapping[str, Any] | None = None,
                    hook: Literal["allow", "ask"] | None = None) -> str | None:
        """None when allowed, else the reason it was refused (for the model).

        ``hook`` is what a PreToolUse hook decided: ``allow`` skips the question (deny and
        ask rules and ``read-only`` still hold), ``ask`` forces one in every mode, ``yes``
        included, and is refused where nobody can answer (Claude Code's contract)."""
        subject = self.subject(tool, args)
        denied = first_match(self.deny, tool, subject, deny=True)
        if denied is not None:
            return f"{tool} is refused by the deny rule `{denied.text}`"
        asked = first_match(self.ask, tool, subject, deny=True)
        if hook == "ask" or asked is not None:
            why = f"the ask rule `{asked.text}`" if asked is not None else "a PreToolUse hook"
            if self.mode in READING and self.needs(access) == "deny":
                return (f"{tool} is not allowed in read-only mode (--permission-mode "
                        f"{allowing_mode(access)} allows it)")
            return await self._confirm_anyway(tool, summary, why)
        verdict = self.needs(access)
        if verdict == "allow" or tool in self.always:
            return None
        allows = allowing_mode(access)
        if hook == "allow" and verdict != "deny":
            return None
        if verdict == "deny":
            if tool == "shell" and subject is not None and read_only_command(subject):
                return None
            extra = (f"; only read-only commands run here ({read_only_names()})"
                     if tool == "shell" else "")
            if self.mode == PLAN:
                return (f"{tool} is not allowed in plan mode: nothing is written or run while "
                        f"planning{extra}. Finish the plan and call exit_plan_mode with it")
            return (f"{tool} is not allowed in read-only mode (--permission-mode {allows} "
                    f"allows it){extra}")
        if first_match(self.extra + self.allow, tool, subject) is not None:
            return None
        if self.confirm is None:
            return (f"{tool} needs confirmation in {self.mode} mode and nobody can confirm "
                    f"here; add an allow rule ([permissions] allow) or rerun with "
                    f"--permission-mode {allows} to allow it")
        offer = suggest(tool, subject)
        answer = await self.confirm(tool, summary, offer)
        if answer == "always":
            if offer is None:
                self.always.add(tool)
            else:
                self.allow.append(parse_rule(offer))
                if self.save is not None:
                    self.save(offer)
            return None
        return None if answer == "yes" else f"the user declined this {tool} call"

    async def _confirm_anyway(self, tool: str, summary: str, why: str) -> str | None:
        """A question nothing may skip (an ask rule, a hook's ``ask``): asked every time,
        and an "always" answer holds for this call only."""
        if self.confirm is None:
            return (f"{tool} needs confirmation ({why} asks for it) and nobody can confirm "
                    "here, so it was not run")
        answer = await self.confirm(tool, f"{summary}  [{why} asks]", None)
        return None if answer in ("yes", "always") else f"the user declined this {tool} call"
