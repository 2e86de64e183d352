"""A pids cgroup for one session's commands, where this user may make one (root; a delegated
cgroup v2 subtree), so the process limit holds even where RLIMIT_NPROC does not (root's uid 0
maps to itself, and the kernel does not apply RLIMIT_NPROC to the host's root user).

Guarantees:
- ``make(limit)`` returns the ``cgroup.procs`` path of a fresh cgroup beneath this process's
  own pids cgroup (v1 ``pids`` hierarchy or v2 with the pids controller) with ``pids.max`` =
  ``limit``, or None — it never raises and makes nothing it cannot finish.
- ``remove(path)`` deletes it again once empty (at the session's end); never raises.
"""

from __future__ import annotations

import contextlib
import os

ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup", "/sys/fs/cgroup/unified")


def _own(controller: str | None) -> str | None:
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            for line in handle:
                _, names, path = line.rstrip("\n").split(":", 2)
                if (controller is None and names == "") or (
                        controller is not None and controller in names.split(",")):
                    return path
    except (OSError, ValueError):
        return None
    return None


def make(limit: int) -> str | None:
    candidates = []
    v1 = _own("pids")
    if v1 is not None:
        candidates.append(os.path.join(ROOTS[0], v1.lstrip("/")))
    v2 = _own(None)
    if v2 is not None:
        candidates += [os.path.join(r, v2.lstrip("/")) for r in ROOTS[1:]]
    for base in candidates:
        if not os.path.isfile(os.path.join(base, "cgroup.procs")):
            continue
        path = os.path.join(base, f"edgar-{os.getpid()}-{id(candidates):x}")
        try:
            os.mkdir(path)
        except OSError:
            continue
        try:
            with open(os.path.join(path, "pids.max"), "w", encoding="ascii") as handle:
                handle.write(str(limit))
            procs = os.path.join(path, "cgroup.procs")
            if os.access(procs, os.W_OK):
                return procs
        except OSError:
            pass
        remove(os.path.join(path, "cgroup.procs"))
    return None


def remove(procs: str | None) -> None:
    if procs:
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(procs))
