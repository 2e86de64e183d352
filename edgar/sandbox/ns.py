"""Linux namespaces for one sandboxed command, entered in the forked child before it execs.

Guarantees (for a ``Plan`` the probe found working on this machine):
- ``user``: a new user namespace where edgar's uid and gid map to themselves, so the command
  holds no capability outside it (root included: it cannot ptrace, mount or load anything
  on the host, nor read a non-dumpable edgar's ``/proc/<pid>/environ``).
- ``pid``: a new PID namespace with a fresh ``/proc``: edgar and every other host process are
  invisible. The command is its init, so when it exits the kernel kills every process left
  in the namespace (``setsid`` or not), and the reaper above it exits with its status.
- ``mount``: a private mount namespace; each ``ro_binds`` path is bound read-only onto
  itself and each ``self_binds`` path made a mount point, so none of them can be written,
  removed or renamed away from inside.
- ``net``: a new network namespace holding only a loopback interface (up): no route out.
- The Landlock ruleset (``landlock_fd``) is enforced last, after every mount (a Landlock
  domain forbids mounting), and binds the command and all its descendants.
- Every process this creates gets PR_SET_PDEATHSIG(SIGKILL): when edgar dies, they die.
- The child is made dumpable again only while it writes its own ``uid_map``/``gid_map``
  (a non-dumpable process's ``/proc/self`` files belong to root, so an ordinary user's child
  of a hardened edgar could not write them), and non-dumpable again before anything else.
- ``nproc``: RLIMIT_NPROC set right after the user namespace is entered, where the kernel
  counts the processes of that namespace only (Linux 5.14+); ``cgroup``: the command joins
  that pids cgroup before anything else. Either caps how many processes one command can
  start (a fork bomb gets EAGAIN).
- A failure here writes ``edgar sandbox: …`` to the command's stderr and exits with
  ``SETUP_FAILED``; it never runs the command unconfined.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import resource
import signal
import socket
import struct
from dataclasses import dataclass

from edgar.sandbox import landlock

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
ST_RELATIME = 4096
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
SIOCSIFFLAGS = 0x8914
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40
SETUP_FAILED = 125
MARK = b"edgar sandbox: "


@dataclass(frozen=True, slots=True)
class Plan:
    """What the child does before exec; computed in edgar, executed after fork."""

    user: bool = False
    pid: bool = False
    mount: bool = False
    net: bool = False
    self_binds: tuple[str, ...] = ()
    ro_binds: tuple[str, ...] = ()
    landlock_fd: int = -1
    uid: int = 0
    gid: int = 0
    nproc: int = 0                   # RLIMIT_NPROC inside the user namespace (0: none)
    cgroup: str = ""                 # cgroup.procs of a pids cgroup to join first ("": none)

    @property
    def flags(self) -> int:
        return ((CLONE_NEWUSER if self.user else 0) | (CLONE_NEWNS if self.mount else 0)
                | (CLONE_NEWPID if self.pid else 0) | (CLONE_NEWNET if self.net else 0))


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter(plan: Plan) -> None:
    """Apply ``plan`` to this (forked) process. With ``plan.pid`` this process becomes the
    reaper and never returns; its child, the namespace's init, returns and execs."""
    try:
        _enter(plan)
    except BaseException as exc:  # never run the command unconfined
        try:
            os.write(2, MARK + f"setup failed: {exc}\n".encode("utf-8", "replace"))
        finally:
            os._exit(SETUP_FAILED)


def _enter(plan: Plan) -> None:
    c = landlock.libc()
    _check(c.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PDEATHSIG)")
    if plan.cgroup:
        _write(plan.cgroup, "0")   # this process, and so everything it starts
    if plan.flags:
        _check(c.unshare(plan.flags), "unshare")
    if plan.user:
        # edgar is non-dumpable (harden_self): its /proc/self files would be root's here
        _check(c.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl(DUMPABLE)")
        try:
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{plan.uid} {plan.uid} 1")
            _write("/proc/self/gid_map", f"{plan.gid} {plan.gid} 1")
        finally:
            c.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        if plan.nproc > 0:
            resource.setrlimit(resource.RLIMIT_NPROC, (plan.nproc, plan.nproc))
    if plan.pid:
        child = os.fork()
        if child:
            _reap(child)
        _check(c.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PDEATHSIG)")
    if plan.mount:
        _check(c.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
        for path in plan.self_binds:
            _bind(c, path, readonly=False)
        for path in plan.ro_binds:
            _bind(c, path, readonly=True)
        if plan.pid:
            _check(c.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None),
                   "mount /proc")
        # the working directory still points into the mounts as they were before the binds:
        # enter it again by name, or ./.edgar would reach the writable original underneath
        os.chdir(os.getcwd())
    if plan.net:
        _loopback_up()
    if plan.landlock_fd >= 0:
        landlock.restrict(plan.landlock_fd)


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1


def _bind(c: ctypes.CDLL, path: str, *, readonly: bool) -> None:
    raw = os.fsencode(path)
    _check(c.mount(raw, raw, None, MS_BIND | MS_REC, None), f"bind {path}")
    if not readonly:
        return
    # read-only recursively: mounts beneath the path (an anchor, say) must not stay writable
    attr = _MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
    if c.syscall(SYS_MOUNT_SETATTR, ctypes.c_int(AT_FDCWD), raw, ctypes.c_uint(AT_RECURSIVE),
                 ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr))) == 0:
        return
    # before Linux 5.12: remount the top mount, keeping the flags a user namespace locked
    have = os.statvfs(path).f_flag
    keep = have & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    keep |= MS_RELATIME if have & ST_RELATIME else 0
    _check(c.mount(None, raw, None, MS_REMOUNT | MS_BIND | MS_RDONLY | keep, None),
           f"remount {path} read-only")


def _loopback_up() -> None:
    # a new network namespace starts with lo down; tests that serve on 127.0.0.1 need it
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING)
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, request)


def _reap(child: int) -> None:
    """Outside the new PID namespace: hold nothing open, wait for init, exit with its status."""
    os.closerange(0, 1 << 16)  # the pipes and Python's exec-error pipe are the command's now
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(SETUP_FAILED)
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def set_undumpable() -> None:
    """PR_SET_DUMPABLE(0) on edgar itself: an ordinary user's process (sandboxed or not) can
    no longer read ``/proc/<edgar>/environ`` or memory; root needs the namespaces for that."""
    with contextlib.suppress(OSError, AttributeError):
        landlock.libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
