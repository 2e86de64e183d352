"""bubblewrap as the confinement layer where edgar cannot create namespaces itself (for
instance where unprivileged user namespaces are reserved to programs with an AppArmor
profile, as Ubuntu does, and bwrap has one).

Guarantee: the command line binds ``/`` read-only, then each writable root read-write, then
each protected path read-only again (later binds win), with a fresh ``/proc`` and ``/dev``,
a new PID namespace (``--die-with-parent``; every descendant dies with it) and, when the
network is off, a new network namespace.
"""

from __future__ import annotations

import os

from edgar.sandbox.policy import Policy


def command(bwrap: str, policy: Policy, argv: list[str], cwd: str) -> list[str]:
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--unshare-pid", "--die-with-parent", "--new-session"]
    if not policy.network:
        args.append("--unshare-net")
    for root in policy.writable:
        if os.path.isdir(root) and not root.startswith(("/dev/", "/proc")):
            args += ["--bind", root, root]
    for path in policy.protected:
        if os.path.lexists(path):
            args += ["--ro-bind", path, path]
    args += ["--chdir", cwd, "--", *argv]
    return args
