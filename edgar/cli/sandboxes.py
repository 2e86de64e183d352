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
- ``session_policy(root, settings)`` is the one way a session's policy is made from
  ``[sandbox]`` (mode, network, writable dirs, passed variables) and the directories the
  person added (``--add-dir``, ``tools.add_dirs``: writable roots with their own protected
  paths): the session, its git,
  ``edgar undo``/``diff`` and ``edgar doctor`` all ask it, so doctor reports what commands get.
  It protects, beside the policy's own paths, every project file the trust record says trusted
  config runs (``trust.covered``), so the model's commands cannot rewrite a trusted script.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from edgar.sandbox.session import SessionSandbox

if TYPE_CHECKING:
    from edgar.config import Settings
    from edgar.sandbox.policy import Policy

Say = Callable[[Literal["info", "warning"], str], None]


def session_policy(root: Path, settings: Settings, *, network: bool = False,
                   writable: tuple[str, ...] = (),
                   set_env: tuple[tuple[str, str], ...] = ()) -> Policy:
    """The session's policy, widened by ``network``/``writable`` opt-ins (never narrowed),
    with the variables the person's settings files set (``set_env``, ADR-0079)."""
    from edgar.config.trust import covered
    from edgar.sandbox import Policy

    box = settings.sandbox
    extra = tuple(os.path.expanduser(p) for p in (*box.writable, *writable))
    runs = tuple(str(root / name) for name in covered(root))   # ADR-0073: read-only too
    added = tuple(os.path.expanduser(p) for p in settings.tools.add_dirs)   # ADR-0113
    return Policy.for_project(root, mode=box.mode, network=box.network or network,
                              extra_writable=extra, env=tuple(box.env), extra_protected=runs,
                              set_env=set_env, extra_roots=added)


class Sandboxes:
    def __init__(self, root: Path, settings: Settings, say: Say | None = None,
                 set_env: tuple[tuple[str, str], ...] = ()):
        self.root, self.settings, self.say = root, settings, say
        self.set_env = set_env
        self._made: dict[tuple[bool, tuple[str, ...]], SessionSandbox] = {}

    def __call__(self, network: bool, writable: tuple[str, ...]) -> SessionSandbox:
        key = (bool(network), tuple(sorted(set(writable))))
        box = self._made.get(key)
        if box is None:
            def policy() -> Policy:
                return session_policy(self.root, self.settings, network=key[0],
                                      writable=key[1], set_env=self.set_env)

            def announce(level: Literal["info", "warning"], message: str) -> None:
                if level == "warning" and self.say is not None:  # the layers are said once
                    self.say(level, message)

            box = self._made[key] = SessionSandbox(policy, announce)
        return box

    def close(self) -> None:
        for box in self._made.values():
            box.close()
