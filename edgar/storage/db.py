"""The one SQLite base class every store subclasses.

Guarantees:
- ``SCHEMA`` is a list of migrations; migration *i* runs once, inside one transaction that
  also sets ``PRAGMA user_version = i + 1``, so a database is never half-migrated.
- WAL journal, a busy timeout, and ``BEGIN IMMEDIATE`` for every write: concurrent edgar
  processes on one project wait for each other instead of failing or corrupting the file.
- The database file and its -wal/-shm are 0600 (every store holds text from a session),
  created so and tightened when they existed before; SQLite gives -wal/-shm the file's mode.
- Opening never fails for contention: the WAL switch and the migrations of a brand-new file,
  opened by many processes at once, are retried (``retry_busy``) up to the busy timeout.
- A kill -9 at any point leaves the database consistent (SQLite's own guarantee under WAL
  with ``synchronous=NORMAL``; a committed write survives a process crash).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import ClassVar, Self, TypeVar

from edgar.storage.broken import BrokenState

T = TypeVar("T")


def private(path: Path) -> None:
    """Create ``path`` 0600 if missing; make it and its -wal/-shm 0600 if they exist."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with suppress(FileNotFoundError):
            os.chmod(p, 0o600)


class DB:
    SCHEMA: ClassVar[list[str]] = []
    BUSY_TIMEOUT_MS: ClassVar[int] = 30_000

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if str(path) != ":memory:":
            if os.path.lexists(self.path) and not self.path.is_file():
                raise BrokenState(self.path, "is not a database (a directory or device is there)")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            private(self.path)
        self._lock = threading.RLock()
        try:
            self.conn = sqlite3.connect(
                str(path), timeout=self.BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.DatabaseError as exc:
            raise BrokenState(self.path) from exc
        self.conn.row_factory = sqlite3.Row
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {self.BUSY_TIMEOUT_MS}")
            # Two connections switching a brand-new file to WAL (or migrating it) at once can
            # get SQLITE_BUSY at once, without the busy handler: SQLite refuses to wait where
            # waiting could deadlock. Retry the whole opening step, with backoff, up to the
            # busy timeout.
            retry_busy(self._open, self.BUSY_TIMEOUT_MS / 1000)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                self.conn.close()
                raise
            self.conn.close()
            raise BrokenState(self.path) from exc
        except sqlite3.DatabaseError as exc:   # not a database, malformed: never written over
            self.conn.close()
            raise BrokenState(self.path) from exc

    def _open(self) -> None:
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self._migrate()

    def _migrate(self) -> None:
        current = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if current >= len(self.SCHEMA):
            return
        with self.write() as conn:
            # re-read inside the write lock: another process may have migrated meanwhile
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            for number, script in enumerate(self.SCHEMA[current:], start=current + 1):
                for statement in _statements(script):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT), rolled back on any error."""
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:  # SQLite may have rolled back already
                    self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")

    def query(self, sql: str, params: tuple | dict = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self.conn.execute(sql, params).fetchall()

    def integrity_ok(self) -> bool:
        return self.query("PRAGMA integrity_check")[0][0] == "ok"

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc)
    return "locked" in text or "busy" in text


def retry_busy(step: Callable[[], T], seconds: float) -> T:
    """``step()``, retried while SQLite says busy or locked, for up to ``seconds``."""
    deadline = time.monotonic() + seconds
    pause = 0.002
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
        # a little jitter so the processes that collided do not collide again in step
        time.sleep(pause + (time.monotonic_ns() % 1000) / 1_000_000)
        pause = min(pause * 2, 0.05)


def _statements(script: str) -> list[str]:
    # executescript() would COMMIT our transaction; split on ';' instead (our SCHEMA has no
    # triggers or string literals containing ';').
    return [s.strip() for s in script.split(";") if s.strip()]
