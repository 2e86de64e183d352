"""Which confinement layers work on this machine, found by trying them once per process.

Guarantees:
- ``capabilities()`` never raises and is computed at most once per process: it forks a child
  that enters the full namespace plan and runs ``true``, then falls back step by step
  (without the user namespace — root only —, then without the network namespace). That the
  full plan worked is kept for the boot (``edgar.sandbox.probe_cache``, ADR-0115): a later
  start with the same key skips the fork; any other answer is probed every time.
- Each answer says *why* a layer is missing, for ``edgar doctor`` and the session notice.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from functools import partial

from edgar.sandbox import landlock, probe_cache
from edgar.sandbox.ns import Plan, enter


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What this kernel and user can enforce."""

    landlock_abi: int = 0
    namespaces: Plan | None = None   # the richest namespace plan that worked (no paths)
    bwrap: str | None = None         # path of a working bubblewrap
    why_not: tuple[str, ...] = ()    # one line per missing layer


_cached: Capabilities | None = None


def _true() -> str:
    return shutil.which("true") or "/bin/true"


def _works(plan: Plan) -> str | None:
    """None when ``plan`` ran ``true`` here, else what went wrong."""
    try:
        done = subprocess.run([_true()], preexec_fn=partial(enter, plan),
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    return done.stderr.decode("utf-8", "replace").strip().removeprefix("edgar sandbox: ") or (
        f"exit {done.returncode}")


def _bwrap() -> str | None:
    path = shutil.which("bwrap")
    if path is None:
        return None
    try:
        done = subprocess.run([path, "--ro-bind", "/", "/", "--unshare-pid", "--proc", "/proc",
                               "--dev", "/dev", _true()], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if done.returncode == 0 else None


def capabilities() -> Capabilities:
    global _cached
    if _cached is None:
        _cached = _probe()
    return _cached


def _probe() -> Capabilities:
    if not sys.platform.startswith("linux"):
        return Capabilities(why_not=(f"no sandbox on {sys.platform}: edgar confines "
                                     f"commands on Linux only",))
    why: list[str] = []
    version = landlock.abi()
    if version < 1:
        why.append("Landlock: not offered by this kernel (needs Linux 5.13+ with landlock "
                   "in the LSM list)")
    full = Plan(user=True, pid=True, mount=True, net=True, uid=os.getuid(), gid=os.getgid())
    found: Plan | None = None
    key = probe_cache.key(_true())
    if key is not None and probe_cache.seen(key):
        return Capabilities(landlock_abi=version, namespaces=full, why_not=tuple(why))
    tries = [full, replace(full, net=False)]
    if os.geteuid() == 0:
        tries[1:1] = [replace(full, user=False)]
        tries.append(replace(full, user=False, net=False))
    errors: list[str] = []
    for plan in tries:
        error = _works(plan)
        if error is None:
            found = plan
            break
        errors.append(error)
    if found is full and key is not None:
        probe_cache.remember(key)
    if found is None:
        why.append(f"namespaces: unavailable ({errors[0]})")
    elif not found.net:
        why.append("network namespace: unavailable (network is cut by Landlock TCP rules only)")
    bwrap = _bwrap() if found is None else None
    return Capabilities(landlock_abi=version, namespaces=found, bwrap=bwrap, why_not=tuple(why))
