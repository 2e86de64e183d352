"""The session's sandboxes beyond its own: one per set of opt-ins a hook or an MCP server's
entry asked for (``network``, ``writable``).

Guarantees:
- ``Sandboxes(network, writable)`` is the session's policy (``[sandbox]`` mode, network and
  writable dirs) widened by exactly those opt-ins; the same opt-ins share one sandbox, built
  at its first use like the session's own.
- The opt-ins only ever widen what ``[sandbox]`` allows, never narrow or switch it off; a
  project entry has them only once the project is trusted (its hooks and servers do not run
  before), so a cloned repository cannot grant itself the network this way.
- ``close`` releases every sandbox made here (not the session's own).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from edgar.sandbox.session import SessionSandbox

if TYPE_CHECKING:
    from edgar.config import Settings

Say = Callable[[Literal["info", "warning"], str], None]


class Sandboxes:
    def __init__(self, root: Path, settings: Settings, say: Say | None = None):
        self.root, self.settings, self.say = root, settings, say
        self._made: dict[tuple[bool, tuple[str, ...]], SessionSandbox] = {}

    def __call__(self, network: bool, writable: tuple[str, ...]) -> SessionSandbox:
        key = (bool(network), tuple(sorted(set(writable))))
        box = self._made.get(key)
        if box is None:
            from edgar.sandbox import Policy

            base = self.settings.sandbox
            extra = tuple(os.path.expanduser(p) for p in (*base.writable, *key[1]))

            def policy() -> Policy:
                return Policy.for_project(self.root, mode=base.mode,
                                          network=base.network or key[0], extra_writable=extra)

            def announce(level: Literal["info", "warning"], message: str) -> None:
                if level == "warning" and self.say is not None:  # the layers are said once
                    self.say(level, message)

            box = self._made[key] = SessionSandbox(policy, announce)
        return box

    def close(self) -> None:
        for box in self._made.values():
            box.close()
