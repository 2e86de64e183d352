"""The sandbox probe's answer kept for this boot: a start that runs a command skips the forked
probe when this machine, this user and this edgar were seen to run the full namespace plan
before (ADR-0115).

Guarantees:
- Only one answer is ever kept: "the full plan (user, PID, mount and network namespaces for
  this uid and gid) ran ``true``". A degraded answer (no user namespace, no network namespace,
  none at all, bubblewrap) is probed again on every start. So whatever the file says, the
  sandbox is never weaker than the probe would make it: a false "it works" makes commands fail
  to start (``edgar sandbox: …``, never unconfined), it cannot switch a layer off. Landlock's
  ABI is asked of the kernel on every start, never read from here.
- The key (``key()``) is SHA-256 of what decides whether that plan works: the boot id, the
  real and effective uid and gid, this process's user, PID, mount and network namespaces,
  its seccomp mode and filters, no_new_privs and capability sets, the kernel settings that
  gate user namespaces (``unprivileged_userns_clone``, ``max_*_namespaces``, AppArmor's
  ``apparmor_restrict_unprivileged_userns``), the identity (path, device, inode, mtime, size)
  of the ``true`` the probe runs and of ``bwrap``, and edgar's version and the probe's own
  sources. No boot id (no ``/proc``): no key, nothing read or written.
- The file is ``<user dir>/sandbox-probe.json``: ``{"format": 1, "key": "<hex>"}``. It is
  believed only when it is a regular file (not a link), owned by this effective uid, with no
  permission for group or others (0600), and holds exactly that. It is written whole (a
  temporary file, renamed), 0600, only into a user dir that exists; the user dir is
  read-only to every sandboxed command and refused to every tool (ADR-0025, ADR-0071), so
  the model cannot write it. A failure to read or write is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

FORMAT = 1
NAME = "sandbox-probe.json"

_KERNEL = ("/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces",
           "/proc/sys/user/max_pid_namespaces", "/proc/sys/user/max_mnt_namespaces",
           "/proc/sys/user/max_net_namespaces",
           "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
           "/proc/sys/kernel/apparmor_restrict_unprivileged_unconfined")
_STATUS = ("Seccomp:", "Seccomp_filters:", "NoNewPrivs:", "CapInh:", "CapPrm:", "CapEff:",
           "CapBnd:", "CapAmb:")
_SOURCES = ("probe.py", "ns.py", "landlock.py", "probe_cache.py")


def _read(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(4096).decode("ascii", "replace").strip()
    except OSError:
        return "-"


def _identity(path: str | None) -> str:
    if path is None:
        return "none"
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{os.path.realpath(path)}:{st.st_dev}:{st.st_ino}:{st.st_mtime_ns}:{st.st_size}"


def key(true: str) -> str | None:
    """The key of this boot, user, process context and edgar, or None (no boot id)."""
    boot = _read("/proc/sys/kernel/random/boot_id")
    if boot == "-" or not boot:
        return None
    from edgar import __version__

    parts = [f"boot {boot}", f"edgar {__version__}",
             f"ids {os.getuid()} {os.geteuid()} {os.getgid()} {os.getegid()}"]
    for ns in ("user", "pid", "mnt", "net"):
        try:
            parts.append(f"ns {os.readlink(f'/proc/self/ns/{ns}')}")
        except OSError:
            parts.append(f"ns {ns}:-")
    status = _read("/proc/self/status").splitlines()
    parts += [line for line in status if line.startswith(_STATUS)]
    parts += [f"{path} {_read(path)}" for path in _KERNEL]
    parts += [f"true {_identity(true)}", f"bwrap {_identity(shutil.which('bwrap'))}"]
    here = Path(__file__).parent
    parts += [f"src {_identity(str(here / name))}" for name in _SOURCES]
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def _path() -> Path | None:
    """The file, or None where no user dir can be named (a program that uses edgar.sandbox
    without edgar's dependencies): a miss."""
    try:
        from edgar.paths import user_dir

        return user_dir() / NAME
    except ImportError:
        return None


def seen(found: str) -> bool:
    """True when the file says the full plan worked under key ``found``."""
    path = _path()
    if path is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NOCTTY)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid()
                or st.st_mode & 0o077 or st.st_size > 4096):
            return False
        data = json.loads(os.read(fd, 4096))
    except (OSError, ValueError):
        return False
    finally:
        os.close(fd)
    return data == {"format": FORMAT, "key": found}


def remember(found: str) -> bool:
    """Record that the full plan worked under key ``found``; True when written."""
    path = _path()
    # the user dir is made by what needs it, not here
    if path is None or not path.parent.is_dir():
        return False
    tmp = path.with_name(f".{NAME}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(json.dumps({"format": FORMAT, "key": found}))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        return False
    return True
