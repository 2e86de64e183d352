"""Files beneath the project root, opened without following links: edgar's own writes (ADR-0076).

Guarantees:
- Every function takes the root and a path relative to it made of plain components (no empty
  part, no ``.``, no ``..``, no NUL). Each component is opened from the one before with
  ``openat`` and ``O_NOFOLLOW`` (``os.open`` with ``dir_fd``), so a symbolic link anywhere
  below the root — planted before the call, or swapped in (``renameat2(RENAME_EXCHANGE)``)
  between any check and the write — makes the call raise ``Refused`` naming that component
  and saying why; nothing is written, created or removed anywhere else. The root itself is
  opened as given (the person chose it, links included).
- ``write`` is atomic: a fresh temp file (``O_EXCL | O_NOFOLLOW``) in the target's directory,
  renamed over the target through the same directory descriptor. An existing file keeps its
  mode; a new one gets ``mode`` or, by default, 0666 less the umask (like any editor).
  Missing parent directories are made beneath the root (``mkdirat``), never through a link.
- ``read`` returns a regular file's bytes (``None`` when it is absent); ``remove`` unlinks
  only a regular file; ``lstat`` never follows the last component either.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Refused(Exception):
    """A path edgar will not write through; ``str()`` is the reason, for the person or model."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def parts_of(rel: str) -> list[str]:
    """The components of ``rel``; Refused for anything but plain names."""
    if "\0" in rel:
        raise Refused(rel, "the path contains a NUL character")
    if rel.startswith("/"):
        raise Refused(rel, "not a path beneath the project root")
    parts = rel.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            raise Refused(rel, f"not a plain path beneath the project root (component {part!r})")
    return parts


def _why(rel: str, upto: str, exc: OSError, dir_fd: int, name: str) -> Refused:
    try:
        mode = os.lstat(name, dir_fd=dir_fd).st_mode
    except OSError:
        mode = 0
    if stat.S_ISLNK(mode):
        return Refused(rel, f"{upto} is a symbolic link; edgar does not write through links "
                            "(it may have been swapped in since the path was checked)")
    if exc.errno in (errno.ELOOP, errno.ENOTDIR) and stat.S_ISDIR(mode):
        # O_NOFOLLOW met a link that is a directory again now: swapped while it was opened
        return Refused(rel, f"{upto} was a symbolic link when edgar opened it (swapped in and "
                            "out); edgar does not write through links")
    if exc.errno == errno.ENOTDIR or (mode and not stat.S_ISDIR(mode)):
        return Refused(rel, f"{upto} is not a directory")
    return Refused(rel, f"{upto}: {exc.strerror or exc}")


def _open_parent(root: Path, rel: str, create: bool) -> tuple[int, str]:
    """A descriptor on ``rel``'s directory (walked with O_NOFOLLOW) and the last name."""
    parts = parts_of(rel)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, name in enumerate(parts[:-1]):
            upto = "/".join(parts[:depth + 1])
            try:
                nxt = os.open(name, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                # made meanwhile? by whom is checked by the O_NOFOLLOW open below
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                try:
                    nxt = os.open(name, DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise _why(rel, upto, exc, fd, name) from None
            except OSError as exc:
                raise _why(rel, upto, exc, fd, name) from None
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd, parts[-1]


def lstat(root: Path, rel: str) -> os.stat_result | None:
    """``rel``'s own status (a link is a link), or None when it or a parent is absent."""
    try:
        fd, name = _open_parent(root, rel, create=False)
    except FileNotFoundError:
        return None
    try:
        return os.lstat(name, dir_fd=fd)
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)


def read(root: Path, rel: str, limit: int | None = None) -> bytes | None:
    """A regular file's bytes (at most ``limit``), or None when absent; Refused otherwise."""
    try:
        fd, name = _open_parent(root, rel, create=False)
    except FileNotFoundError:
        return None
    try:
        try:
            handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                             dir_fd=fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _why(rel, rel, exc, fd, name) from None
        with os.fdopen(handle, "rb") as opened:
            if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
                raise Refused(rel, "not a regular file")
            return opened.read() if limit is None else opened.read(limit)
    finally:
        os.close(fd)


def write(root: Path, rel: str, data: bytes, mode: int | None = None) -> None:
    """Replace (or create) ``rel`` with ``data``, atomically, beneath ``root``."""
    fd, name = _open_parent(root, rel, create=True)
    try:
        try:
            old = os.lstat(name, dir_fd=fd)
        except FileNotFoundError:
            old = None
        if old is not None and stat.S_ISLNK(old.st_mode):
            raise Refused(rel, "is a symbolic link; edgar does not write through links")
        if old is not None and not stat.S_ISREG(old.st_mode):
            raise Refused(rel, "is not a regular file")
        keep = old.st_mode & 0o7777 if old is not None else mode
        tmp = f".{name}.{os.urandom(4).hex()}.edgar-tmp"
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                      0o666, dir_fd=fd)
        try:
            with os.fdopen(out, "wb") as handle:
                handle.write(data)
                if keep is not None:
                    os.fchmod(handle.fileno(), keep)
            os.rename(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            raise
    finally:
        os.close(fd)


def remove(root: Path, rel: str) -> bool:
    """Unlink ``rel`` if it is a regular file; False when it was absent."""
    try:
        fd, name = _open_parent(root, rel, create=False)
    except FileNotFoundError:
        return False
    try:
        try:
            found = os.lstat(name, dir_fd=fd)
        except FileNotFoundError:
            return False
        if not stat.S_ISREG(found.st_mode):
            what = "a symbolic link" if stat.S_ISLNK(found.st_mode) else "not a regular file"
            raise Refused(rel, f"is {what}; edgar removes only files it made")
        os.unlink(name, dir_fd=fd)
        return True
    finally:
        os.close(fd)
