"""The sandbox every command edgar runs goes through: shell, verify, hooks, stdio MCP servers.

Use it like this::

    from edgar.sandbox import Policy, Sandbox, run, spawn, wrap

    box = Sandbox(Policy.for_project(root, mode="workspace-write", network=False))
    done = await run(["bash", "-c", "make test"], sandbox=box, cwd=root, env=env,
                     timeout=120)                  # -> Completed(exit_code, output, …)
    proc = await spawn(argv, sandbox=box, cwd=root, env=env,
                       stdin=PIPE, stdout=PIPE, stderr=PIPE)   # -> Sandboxed handle
    await proc.wait(); await proc.kill()           # kill: every descendant, setsid or not
    argv2 = wrap(argv, box)    # for code that spawns processes itself (the mcp SDK's
                               # stdio_client): a command line that confines argv the same way

Guarantees (each has a test against real processes; see docs/sandbox.md):
- ``workspace-write`` (default): writes only beneath the project root and the temp dirs;
  ``.edgar/``, ``.git/hooks``, ``.git/config`` and edgar's user dir stay read-only even
  there. ``read-only``: writes only in the temp dirs. ``off``: nothing is confined.
- No network unless ``Policy.network``; a refused write or connection is an ordinary
  error from the command (EACCES, EROFS, ENETUNREACH), never a hang — ``explain()`` turns
  its output into ``sandbox: …`` lines for the model.
- The command cannot read edgar's environment or memory: a fresh ``/proc`` in a PID
  namespace, no capability outside its user namespace, and ``harden_self()`` (call it once
  in edgar) makes edgar non-dumpable for ordinary users' processes besides.
- Every descendant dies with the command (its PID namespace), when it is killed
  (timeout, Ctrl-C) and when edgar dies (PR_SET_PDEATHSIG).
- Where a layer is missing, ``Sandbox.layers()`` says which and ``Sandbox.warning()`` gives
  the one line a session prints before its first command; only mode ``off`` is silent.
- Importing this package costs nothing: the submodules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edgar.sandbox.core import Layer, Sandbox
    from edgar.sandbox.launch import wrap
    from edgar.sandbox.policy import MODES, Mode, Policy
    from edgar.sandbox.process import Completed, Sandboxed, run, spawn
    from edgar.sandbox.refusals import explain

__all__ = [
    "MODES",
    "Completed",
    "Layer",
    "Mode",
    "Policy",
    "Sandbox",
    "Sandboxed",
    "explain",
    "harden_self",
    "run",
    "spawn",
    "wrap",
]

_LAZY = {
    "MODES": "edgar.sandbox.policy", "Mode": "edgar.sandbox.policy",
    "Policy": "edgar.sandbox.policy",
    "Sandbox": "edgar.sandbox.core", "Layer": "edgar.sandbox.core",
    "Completed": "edgar.sandbox.process", "Sandboxed": "edgar.sandbox.process",
    "run": "edgar.sandbox.process", "spawn": "edgar.sandbox.process",
    "wrap": "edgar.sandbox.launch", "explain": "edgar.sandbox.refusals",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'edgar.sandbox' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def harden_self() -> None:
    """Make edgar's own process non-dumpable (PR_SET_DUMPABLE 0): an ordinary user's
    process can then not read ``/proc/<edgar>/environ`` or its memory at all."""
    import sys

    if sys.platform.startswith("linux"):
        from edgar.sandbox.ns import set_undumpable

        set_undumpable()
