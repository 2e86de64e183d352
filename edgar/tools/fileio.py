"""Reading the project's files the careful way: the helpers read, grep and glob share.

Guarantees:
- ``open_regular`` never blocks and never reads anything but a regular file: it opens with
  O_NONBLOCK and checks the opened descriptor (not the name, which may have been swapped),
  so a FIFO, socket or device is refused with a message saying what it is.
- ``lines`` streams a file line by line, each line cut at ``MAX_LINE`` bytes: memory stays
  bounded whatever the file holds (one 4 GB line included).
- ``inside(root, path)`` is False for a symlink whose target leaves the root.
- ``shown(name)`` is printable text for any file name (invalid UTF-8 becomes U+FFFD).
- ``off_loop`` runs blocking work in a thread; when the awaiting task is cancelled (Ctrl-C)
  it returns at once and the work sees ``stop`` set and ends at its next check.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import IO, TypeVar

from edgar.tools.base import ToolFailure

MAX_LINE = 64 * 1024       # bytes of one line kept (the rest of the line is skipped)
SNIFF = 8192               # bytes looked at to tell binary from text
T = TypeVar("T")


def kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path, shown_as: str) -> IO[bytes]:
    """A binary handle on ``path`` if it is a regular file; ToolFailure otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ToolFailure("not_found", f"{shown_as} does not exist") from None
    except IsADirectoryError:
        raise ToolFailure("not_found", f"{shown_as} is a directory; use glob to list it") from None
    except OSError:  # a socket cannot be opened at all (ENXIO): say what it is
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode):
            raise
        raise ToolFailure("validation", f"{shown_as} is {kind_of(mode)}; only regular files "
                          "are read") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = kind_of(mode)
            hint = ("; use glob to list it" if stat.S_ISDIR(mode)
                    else "; only regular files are read")
            raise ToolFailure("not_found" if stat.S_ISDIR(mode) else "validation",
                              f"{shown_as} is {what}{hint}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_binary(head: bytes) -> bool:
    return b"\0" in head


def lines(handle: IO[bytes], stop: threading.Event | None = None) -> Iterator[bytes]:
    """Each line (without its newline), at most ``MAX_LINE`` bytes of it."""
    while True:
        if stop is not None and stop.is_set():
            return
        line = handle.readline(MAX_LINE)
        if not line:
            return
        if not line.endswith(b"\n"):
            rest = line
            while rest and not rest.endswith(b"\n"):  # skip the remainder of a long line
                rest = handle.readline(MAX_LINE)
        yield line.rstrip(b"\r\n")


def text(line: bytes) -> str:
    return line.decode("utf-8", "replace")


def shown(name: str) -> str:
    """A path as printable text, whatever bytes the file system gave."""
    return os.fsencode(name).decode("utf-8", "replace")


def inside(root: Path, path: Path) -> bool:
    """Whether ``path`` (a symlink is followed) resolves inside ``root`` (resolved)."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):
        return False
    return real == root or root in real.parents


async def off_loop(work: Callable[[threading.Event], T]) -> T:
    """Run ``work(stop)`` in a thread; on cancellation set ``stop`` and re-raise at once.

    The thread is a daemon of its own, not the loop's default executor: a regular expression
    that backtracks catastrophically cannot be interrupted in Python, and an executor thread
    would make ``asyncio.run`` (and so edgar's exit) wait for it forever.
    """
    stop = threading.Event()
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not done.done():
            outcome()

    def runner() -> None:
        outcome: Callable[[], None]
        try:
            outcome = partial(done.set_result, work(stop))
        except BaseException as exc:  # handed to the awaiting task, never lost
            outcome = partial(done.set_exception, exc)
        # the loop may have closed: nobody waits for this any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, outcome)

    threading.Thread(target=runner, name="edgar-file-io", daemon=True).start()
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        stop.set()
        raise
