"""One session's sandbox, built at its first command and announced once.

Guarantees:
- ``get()`` builds the ``Sandbox`` on first use only (the probe forks; most sessions run no
  command), and makes edgar non-dumpable (``harden_self``) before any command can run.
- Before it builds the sandbox it creates the protected paths that are missing
  (``prepare``), then computes the policy again, so they are bound read-only from the first
  command on.
- The first ``get()`` calls ``announce`` once with one line: the layers in force, or — as a
  warning — what is missing; nothing at all in mode ``off``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the enforcement modules load at the first command, not at start
    from edgar.sandbox.core import Sandbox
    from edgar.sandbox.policy import Policy

Announce = Callable[[Literal["info", "warning"], str], None]


class SessionSandbox:
    def __init__(self, policy: Callable[[], Policy], announce: Announce | None = None):
        self._policy = policy
        self._announce = announce
        self._box: Sandbox | None = None

    def get(self) -> Sandbox:
        if self._box is None:
            from edgar.sandbox import harden_self
            from edgar.sandbox.core import Sandbox
            from edgar.sandbox.prepare import prepare

            harden_self()
            prepare(self._policy())
            self._box = Sandbox(self._policy())   # again: it now sees what prepare made
            if self._announce is not None:
                warning = self._box.warning()
                if warning:
                    self._announce("warning", warning)
                elif self._box.policy.confined:
                    self._announce("info", summary(self._box))
        return self._box

    def close(self) -> None:
        if self._box is not None:
            self._box.close()


def summary(box: Sandbox) -> str:
    """``sandbox: workspace-write, no network (landlock, user, pid, mount, network namespaces)``"""
    active = [layer.name.removesuffix(" namespace") for layer in box.layers() if layer.active]
    net = "network on" if box.policy.network else "no network"
    return f"sandbox: {box.policy.mode}, {net} ({', '.join(active)})"
