"""Permission modes: what may run without asking.

Guarantees:
- ``read-only`` refuses writes and shell; ``ask`` confirms writes and shell; ``auto-edit``
  confirms shell only; ``yes`` asks nothing. Reads and subagents never need confirmation.
- With no ``confirm`` callback (``edgar -p``) anything that needs a confirmation is refused,
  never silently allowed.
- "always" answers hold for that tool for the rest of the session.
"""

from __future__ import annotations

from typing import Awaitable, Callable, Literal

MODES = ("ask", "auto-edit", "yes", "read-only")
Answer = Literal["yes", "no", "always"]
Confirm = Callable[[str, str], Awaitable[Answer]]  # (tool, one-line summary) -> answer


def allowing_mode(access: str) -> str:
    """The least permissive mode that runs a call of this access without asking."""
    return "auto-edit" if access == "write" else "yes"


class PermissionGate:
    def __init__(self, mode: str, confirm: Confirm | None = None):
        if mode not in MODES:
            raise ValueError(f"unknown permission mode {mode!r} (one of {', '.join(MODES)})")
        self.mode = mode
        self.confirm = confirm
        self.always: set[str] = set()

    def needs(self, access: str) -> Literal["allow", "ask", "deny"]:
        if access in ("read", "task") or self.mode == "yes":
            return "allow"
        if self.mode == "read-only":
            return "deny"
        if self.mode == "auto-edit" and access == "write":
            return "allow"
        return "ask"

    async def check(self, tool: str, access: str, summary: str) -> str | None:
        """None when allowed, else the reason it was refused (for the model)."""
        verdict = self.needs(access)
        if verdict == "allow" or tool in self.always:
            return None
        allows = allowing_mode(access)
        if verdict == "deny":
            return (f"{tool} is not allowed in {self.mode} mode (--permission-mode {allows} "
                    "allows it)")
        if self.confirm is None:
            return (f"{tool} needs confirmation in {self.mode} mode and nobody can confirm "
                    f"here; rerun with --permission-mode {allows} to allow it")
        answer = await self.confirm(tool, summary)
        if answer == "always":
            self.always.add(tool)
            return None
        return None if answer == "yes" else f"the user declined this {tool} call"
