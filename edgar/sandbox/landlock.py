"""Landlock through ctypes: which ABI the kernel offers, a ruleset built in edgar, applied in
the child just before it runs the command.

Guarantees:
- ``abi()`` is 0 where Landlock is missing (another OS, an old kernel, disabled at boot);
  nothing here raises for that.
- ``Ruleset.build`` handles every *write* right the kernel knows (reads and execution stay
  open everywhere) and grants them only beneath the writable roots; with ``network=False`` on
  ABI ≥ 4 it also handles TCP connect and bind and grants neither. On ABI ≥ 6 it scopes
  signals (the command cannot signal edgar) and, without network, abstract unix sockets.
- ``restrict(fd)`` sets no_new_privs and enforces the ruleset on the calling thread and
  every process it starts; it is async-signal-safe enough for a forked child (plain
  syscalls, no allocation beyond ctypes' own).
- A Landlock domain forbids mount and umount, so it is applied after every mount.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from dataclasses import dataclass

# x86_64, aarch64 and every other arch since 5.13 share these numbers
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38

FS_WRITE_FILE = 1 << 1
FS_REMOVE_DIR, FS_REMOVE_FILE = 1 << 4, 1 << 5
FS_MAKE_CHAR, FS_MAKE_DIR, FS_MAKE_REG, FS_MAKE_SOCK = 1 << 6, 1 << 7, 1 << 8, 1 << 9
FS_MAKE_FIFO, FS_MAKE_BLOCK, FS_MAKE_SYM = 1 << 10, 1 << 11, 1 << 12
FS_REFER, FS_TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

WRITE_V1 = (FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR
            | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM)
# rights that make sense on a single file (not a directory) beneath which nothing lives
FILE_RIGHTS = FS_WRITE_FILE | FS_TRUNCATE


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc: ctypes.CDLL | None = None
_abi: int | None = None


def libc() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    return _libc


def abi() -> int:
    """The Landlock ABI version of this kernel, 0 when there is none."""
    global _abi
    if _abi is None:
        try:
            found = libc().syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                                   ctypes.c_uint32(CREATE_RULESET_VERSION))
        except (OSError, AttributeError):
            found = -1
        _abi = max(int(found), 0) if os.uname().sysname == "Linux" else 0
    return _abi


def _fs_rights(version: int) -> int:
    rights = WRITE_V1
    if version >= 2:
        rights |= FS_REFER
    if version >= 3:
        rights |= FS_TRUNCATE
    return rights


@dataclass(frozen=True, slots=True)
class Ruleset:
    """An enforced-on-demand Landlock ruleset: ``fd`` stays open in edgar until ``close``."""

    fd: int
    version: int
    network_handled: bool

    @classmethod
    def build(cls, writable: list[str], writable_files: list[str], *,
              network: bool) -> Ruleset:
        """Writes only beneath ``writable`` (directories) and to ``writable_files``."""
        version = abi()
        if version < 1:
            raise OSError("Landlock is not available")
        fs = _fs_rights(version)
        handle_net = not network and version >= 4
        scoped = 0
        if version >= 6:
            scoped = SCOPE_SIGNAL | (0 if network else SCOPE_ABSTRACT_UNIX)
        attr = _RulesetAttr(fs, (NET_BIND_TCP | NET_CONNECT_TCP) if handle_net else 0, scoped)
        size = ctypes.sizeof(_RulesetAttr) if version >= 6 else (
            16 if version >= 4 else 8)
        fd = libc().syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                            ctypes.c_uint32(0))
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_create_ruleset: {os.strerror(err)}")
        try:
            for path in writable:
                _allow(fd, path, fs)
            for path in writable_files:
                _allow(fd, path, fs & FILE_RIGHTS)
        except BaseException:
            os.close(fd)
            raise
        return cls(int(fd), version, handle_net)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


def _allow(ruleset_fd: int, path: str, rights: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a root that does not exist grants nothing; not an error
    try:
        rule = _PathBeneath(rights, target)
        if libc().syscall(SYS_ADD_RULE, ctypes.c_int(ruleset_fd), ctypes.c_int(RULE_PATH_BENEATH),
                          ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
            err = ctypes.get_errno()
            if err != 22:  # EINVAL: a directory-only right on a file; grant what fits
                raise OSError(err, f"landlock_add_rule {path}: {os.strerror(err)}")
            rule = _PathBeneath(rights & FILE_RIGHTS, target)
            libc().syscall(SYS_ADD_RULE, ctypes.c_int(ruleset_fd),
                           ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0))
    finally:
        os.close(target)


def restrict(ruleset_fd: int) -> None:
    """Enforce the ruleset on this process (in the child, after its last mount)."""
    c = libc()
    if c.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if c.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock_restrict_self: {os.strerror(err)}")
