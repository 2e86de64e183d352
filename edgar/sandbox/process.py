"""Running a command in a ``Sandbox``: ``spawn`` for a handle, ``run`` for a finished result.

Guarantees:
- The command starts in its own session and process group, with the environment it is
  given (no more), at ``cwd``, confined by the sandbox's layers.
- ``Sandboxed.wait()`` returns when the command itself exits (a pidfd), never waiting for
  pipes a descendant may still hold open.
- ``Sandboxed.kill()`` kills every descendant: in a PID namespace by killing its init;
  otherwise the process group. It is idempotent and safe after exit.
- ``run()`` returns the command's output once it has exited, even if a child still holds
  the pipe (that child is then killed); at ``timeout`` everything is killed and the result
  says so; on cancellation (Ctrl-C) everything is killed before the cancellation goes on.
  Output is bounded: past ``limit`` bytes the middle is dropped and counted.
- No asyncio subprocess transport is used, so nothing warns "Event loop is closed" at exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from edgar.sandbox.core import Sandbox
from edgar.sandbox.ns import MARK, SETUP_FAILED

LIMIT = 8 * 1024 * 1024
DRAIN_AFTER_EXIT = 0.2   # seconds for buffered output once the command has exited
GRACE = 1.0              # seconds between SIGTERM and SIGKILL


class Sandboxed:
    """A running command. ``stdin``/``stdout``/``stderr`` are the Popen's pipes (or None)."""

    def __init__(self, popen: subprocess.Popen[bytes], sandbox: Sandbox):
        self.popen = popen
        self.sandbox = sandbox
        self.pid = popen.pid

    @property
    def stdin(self) -> IO[bytes] | None:
        return self.popen.stdin

    @property
    def stdout(self) -> IO[bytes] | None:
        return self.popen.stdout

    @property
    def stderr(self) -> IO[bytes] | None:
        return self.popen.stderr

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def wait(self) -> int:
        """The exit code of the command itself (negative: killed by that signal)."""
        code = self.popen.poll()
        if code is not None:
            return code
        loop = asyncio.get_running_loop()
        try:
            fd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            while self.popen.poll() is None:  # no pidfd (old kernel): poll
                await asyncio.sleep(0.02)
            return self.popen.returncode
        done: asyncio.Future[None] = loop.create_future()

        def exited() -> None:
            if not done.done():
                done.set_result(None)

        loop.add_reader(fd, exited)
        try:
            await done
        finally:
            loop.remove_reader(fd)
            os.close(fd)
        return self.popen.wait()

    async def kill(self, grace: float = GRACE) -> None:
        """Kill the command and every descendant; returns once the command is reaped."""
        if self.popen.poll() is None:
            _signal_group(self.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wait(), grace)
        _signal_group(self.pid, signal.SIGKILL)  # the group outlives its leader
        if self.popen.poll() is None:
            self.popen.kill()
            await self.wait()


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def spawn(argv: Sequence[str], *, sandbox: Sandbox, cwd: str | os.PathLike[str],
                env: Mapping[str, str], stdin: int | None = subprocess.DEVNULL,
                stdout: int | None = subprocess.PIPE,
                stderr: int | None = subprocess.STDOUT) -> Sandboxed:
    """Start ``argv`` confined by ``sandbox``. Raises OSError when it cannot be started
    (program not found, cwd missing)."""
    folder = os.fspath(cwd)
    popen = subprocess.Popen(
        sandbox.argv(list(argv), folder), cwd=folder, env=dict(env), stdin=stdin, stdout=stdout,
        stderr=stderr, start_new_session=True, preexec_fn=sandbox.preexec(), close_fds=True)
    return Sandboxed(popen, sandbox)


@dataclass(frozen=True, slots=True, kw_only=True)
class Completed:
    """How a command ended. ``exit_code`` None: killed at the timeout (``timed_out``)."""

    exit_code: int | None
    output: str
    stderr: str = ""
    timed_out: bool = False
    dropped: int = 0                 # bytes of output dropped from the middle
    setup_error: str | None = None   # the sandbox could not be set up; the command never ran
    lingered: bool = False           # a descendant still held the pipe and was killed


class _Collector:
    """Reads one pipe on the event loop into a bounded head + tail."""

    def __init__(self, pipe: IO[bytes], limit: int,
                 on_data: Callable[[bytes], None] | None = None):
        self.on_data = on_data   # each piece as it arrives (the REPL's live tail), or None
        self.fd = pipe.fileno()
        self.pipe = pipe
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.loop = asyncio.get_running_loop()
        self.eof = self.loop.create_future()
        os.set_blocking(self.fd, False)
        self.loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.close()
            return
        if self.on_data is not None:
            try:
                self.on_data(data)
            except Exception:  # noqa: BLE001 — showing output must never break collecting it
                self.on_data = None
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        extra = len(self.tail) - self.half
        if extra > 0:
            del self.tail[:extra]
            self.dropped += extra

    def close(self) -> None:
        if not self.eof.done():
            self.loop.remove_reader(self.fd)
            self.pipe.close()
            self.eof.set_result(None)

    def text(self) -> str:
        data = bytes(self.head)
        if self.dropped:
            data += f"\n… [{self.dropped} bytes of output omitted] …\n".encode()
        return (data + bytes(self.tail)).decode("utf-8", "replace")


async def run(argv: Sequence[str], *, sandbox: Sandbox, cwd: str | os.PathLike[str],
              env: Mapping[str, str], timeout: float, input: bytes | None = None,
              merge_stderr: bool = True, limit: int = LIMIT,
              on_output: Callable[[bytes], None] | None = None) -> Completed:
    """Run ``argv`` to completion (or ``timeout``) and collect its output (``on_output``
    also sees each piece of stdout as it arrives)."""
    proc = await spawn(argv, sandbox=sandbox, cwd=cwd, env=env,
                       stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
                       stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE)
    assert proc.stdout is not None
    out = _Collector(proc.stdout, limit, on_output)
    err = None if merge_stderr or proc.stderr is None else _Collector(proc.stderr, limit)
    collectors = [c for c in (out, err) if c is not None]
    feeder = None
    if input is not None and proc.stdin is not None:
        feeder = asyncio.ensure_future(asyncio.to_thread(_feed, proc.stdin, input))
    timed_out = lingered = False
    try:
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            timed_out = True
            await proc.kill()
        if not await _drained(collectors, DRAIN_AFTER_EXIT):
            lingered = True  # exited, but a descendant holds the pipe: it dies now
            await proc.kill(grace=0)
            await _drained(collectors, 0.5)
    except asyncio.CancelledError:
        await asyncio.shield(proc.kill(grace=0.5))
        raise
    finally:
        for collector in collectors:
            collector.close()
        if feeder is not None:
            feeder.cancel()
    code = None if timed_out else proc.popen.returncode
    text = out.text()
    setup = None
    if code == SETUP_FAILED and text.startswith(MARK.decode()):
        setup = text[len(MARK):].strip()
    return Completed(exit_code=code, output=text, stderr=err.text() if err else "",
                     timed_out=timed_out, dropped=out.dropped, setup_error=setup,
                     lingered=lingered and not timed_out)


async def _drained(collectors: list[_Collector], seconds: float) -> bool:
    pending = [c.eof for c in collectors if not c.eof.done()]
    if not pending:
        return True
    done, _ = await asyncio.wait(pending, timeout=seconds)
    return len(done) == len(pending)


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except (BrokenPipeError, OSError, ValueError):
        pass
