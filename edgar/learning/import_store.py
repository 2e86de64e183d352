"""What ``edgar import claude-code`` keeps: a scan mark per transcript file, and exchanges.

``StoreSink`` takes the reader's items and writes them (memory, telemetry, this store);
``DrySink`` takes the same items and only counts. Guarantees:
- ``.edgar/imports.db`` is a ``storage/db.py`` store (WAL, ``BEGIN IMMEDIATE``). ``files``
  holds the reader's ``ScanMark`` per file (by real path), so a re-run reads only what is
  new. ``exchanges`` holds one row per exchange keyed by (file, line): the file and line
  where its question was typed, so the original can always be consulted. An exchange seen
  again (it was still open when an earlier import ended) replaces its row.
- A stored exchange is a bounded, redacted summary, not a copy of the transcript: the
  question and follow-ups (what a person typed) up to ``QUESTION`` characters, the last
  answer up to ``ANSWER``, evidence as (kind, line) labels without its text, tool names.
  Every text passes the redactor before it is written.
- ``save`` writes a file's exchanges and its new mark in one transaction.
- ``to_run`` makes the same exchange one ``Experience`` row (source ``claude-code``, turn =
  the question record's uuid, else ``NAME:LINE``, so a turn found in two files or a moved
  projects tree maps onto the same row; the later one read wins): the typed
  words, the tools, the summed tokens and their cost from ``providers/prices.py`` (unknown
  when a reply's model has no price, as for edgar's own runs), outcome ``ok``.
- ``read_marks`` never writes and creates no file: ``DrySink`` (``--dry-run``) uses it and
  opens nothing else.
- ``dirs`` holds, per directory read to the end of every transcript in it, a digest of those
  transcripts' (real path, size, mtime): while it matches, the importer opens none of them
  (ADR 0054). It is saved after every file mark of the directory.
- ``StoreSink``: a typed message's ``extract()`` result is added as ``imported`` (pending);
  a file's mark is saved only after everything read from it, so a crash loses no row and
  the keyed writes (memory by text, runs by turn, exchanges by line) make the re-read add
  nothing twice.
- A mark that no longer parses (an older or newer reader) is dropped, not trusted: the
  file is read again from the start, which the importer's keyed writes make harmless.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from edgar.core.project import Project
from edgar.learning.redaction import redact as default_redact
from edgar.storage.db import DB
from edgar.transcripts.claude_code.projects import project_of
from edgar.transcripts.claude_code.values import Exchange, ScanMark, ScanResult, Typed

if TYPE_CHECKING:   # (imported where a run is written: a dry run or a re-run needs none of it)
    from edgar.learning.experience import Experience, Run
    from edgar.memory.store import MemoryStore

BATCH = 200       # exchanges buffered between writes: bounds memory, keeps transactions few
QUESTION = 4000   # a typed question longer than this is a paste; its start says what it is
ANSWER = 400      # as much of the answer as a history entry keeps (experience.SAID)
EVIDENCE = 100    # labels kept per exchange (a long session can gather thousands)

SCHEMA = [
    """
    CREATE TABLE files (
        path TEXT PRIMARY KEY, mark TEXT NOT NULL, updated REAL NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE exchanges (
        file TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL,
        session_id TEXT NOT NULL, timestamp TEXT, question TEXT NOT NULL,
        followups TEXT NOT NULL DEFAULT '[]', answer TEXT NOT NULL DEFAULT '',
        evidence TEXT NOT NULL DEFAULT '[]', tools TEXT NOT NULL DEFAULT '[]',
        replies INTEGER NOT NULL DEFAULT 0, tool_results INTEGER NOT NULL DEFAULT 0,
        open INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL,
        PRIMARY KEY (file, line)
    ) WITHOUT ROWID;
    CREATE INDEX exchanges_by_session ON exchanges(session_id, timestamp)
    """,
    # 2 (ADR 0054): a mark per directory, so a re-run over an unchanged tree opens no file.
    """
    CREATE TABLE dirs (
        path TEXT PRIMARY KEY, digest TEXT NOT NULL, updated REAL NOT NULL
    ) WITHOUT ROWID
    """,
]

COLUMNS = ("file", "line", "end_line", "session_id", "timestamp", "question", "followups",
           "answer", "evidence", "tools", "replies", "tool_results", "open", "updated")
UPSERT = (f"INSERT OR REPLACE INTO exchanges({', '.join(COLUMNS)}) "
          f"VALUES ({', '.join(':' + c for c in COLUMNS)})")


@lru_cache(maxsize=4096)
def extract(text: str) -> str | None:
    """``learner.extract``, remembered for the words typed most recently: a history repeats
    many messages ("continue", "yes", "/compact"), and the function is pure. (Imported
    here: its grammar is compiled only when there is a typed message to read.)"""
    from edgar.learning.learner import extract as learn

    return learn(text)


def _parse_mark(text: str) -> ScanMark | None:
    try:
        return ScanMark.from_json(text)
    except (TypeError, ValueError, KeyError):
        return None


def _epoch(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def _cut(text: str, limit: int, redact: Callable[[str], str]) -> str:
    # Cut after redacting (from twice the length), so a secret across the cut is still
    # recognised whole: the same rule as experience.SAID.
    return redact(text[:2 * limit])[:limit]


def to_run(ex: Exchange, fallback: float, redact: Callable[[str], str] = default_redact) -> Run:
    """An exchange as a telemetry row: the person's words, tools, tokens, cost."""
    from edgar.conversation import Usage
    from edgar.learning.experience import SAID, Run
    from edgar.providers.prices import cost

    replies = ex.replies
    started = _epoch(ex.question.timestamp)
    ended = _epoch(ex.ended)
    # First typed message to the last assistant record; unknown (None, "—" in stats) when
    # either time is missing or they run backwards (clock change, hand-edited file).
    duration = ended - started if started is not None and ended is not None \
        and ended >= started else None
    run = Run(source="claude-code", session_id=ex.session_id,
              # The question's record uuid when it has one: the same turn copied into another
              # file (a resumed session, a moved or backed-up tree) is still one row.
              turn_id=ex.question.uuid or f"{os.path.basename(ex.file)}:{ex.line}",
              started=fallback if started is None else started,
              asked=[_cut(t, QUESTION, redact) for t in
                     [ex.question.text] + [b.text for b in ex.followups]],
              said=next((r.text for r in reversed(replies) if r.text.strip()), "")[:2 * SAID],
              tools=[t for r in replies for t in r.tools],
              model=next((r.model for r in replies if r.model), "") or "",
              duration=duration, project=project_of(ex.file))
    for r in replies:
        u = r.usage
        run.input_tokens += u.input
        run.output_tokens += u.output
        run.cache_write_tokens += u.cache_write
        run.cache_read_tokens += u.cache_read
        if u.input or u.output or u.cache_write or u.cache_read:
            price = cost(r.model or "", Usage(u.input, u.output, u.cache_write, u.cache_read))
            run.cost = None if price is None or run.cost is None else run.cost + price
    return run


def exchange_row(ex: Exchange, redact: Callable[[str], str]) -> dict:
    """An exchange as an ``exchanges`` row: bounded and redacted."""
    def cut(text: str, limit: int) -> str:
        return _cut(text, limit, redact)

    answer = next((r.text for r in reversed(ex.replies) if r.text.strip()), "")
    return {
        "file": ex.file, "line": ex.line, "end_line": ex.end_line,
        "session_id": ex.session_id, "timestamp": ex.question.timestamp,
        "question": cut(ex.question.text, QUESTION),
        "followups": json.dumps([[b.line, cut(b.text, QUESTION)] for b in ex.followups]),
        "answer": cut(answer, ANSWER),
        "evidence": json.dumps([[e.kind, e.line] for e in ex.evidence[:EVIDENCE]]),
        "tools": json.dumps([t for r in ex.replies for t in r.tools]),
        "replies": len(ex.replies), "tool_results": ex.tool_results,
        "open": int(ex.open), "updated": time.time(),
    }


def _stored(path: str) -> str:
    """A path as the store keeps it: redacted, like every other text (a directory name can
    hold a token). Patterns only, no settings to load: a re-run stays cheap."""
    from edgar.redact import redact

    return redact(path)


V = TypeVar("V")


class _ByPath(Generic[V]):
    """Marks keyed by stored (redacted) path, looked up by the real one."""

    def __init__(self, by_stored: dict[str, V]) -> None:
        self._by_stored = by_stored

    def get(self, path: str) -> V | None:
        by_stored = self._by_stored
        if not by_stored:   # nothing stored (a first import, a dry run without a store)
            return None
        # A path without a secret is stored as it is: found without running the redactor.
        # (A hit is another path's only if that one redacts to this one; a directory's
        # digest and a file's head digest hold real paths and bytes, so they do not match.)
        hit = by_stored.get(path)
        return hit if hit is not None else by_stored.get(_stored(path))


class ImportStore(DB):
    """``.edgar/imports.db``: scan marks and exchanges of imported transcripts. Paths are
    stored redacted (``_stored``) and looked up the same way."""

    SCHEMA = SCHEMA

    def marks(self) -> dict[str, ScanMark]:
        rows = self.query("SELECT path, mark FROM files")
        return {r["path"]: m for r in rows if (m := _parse_mark(r["mark"])) is not None}

    def mark(self, path: str) -> ScanMark | None:
        """One file's mark (None: never read, or no longer parses)."""
        rows = self.query("SELECT mark FROM files WHERE path = ?", (_stored(path),))
        return _parse_mark(rows[0]["mark"]) if rows else None

    def dirs(self) -> dict[str, str]:
        """Directory -> digest of its transcripts' (path, size, mtime) when last read whole."""
        return {r["path"]: r["digest"] for r in self.query("SELECT path, digest FROM dirs")}

    def save_dir(self, path: str, digest: str) -> None:
        with self.write() as conn:
            conn.execute("INSERT OR REPLACE INTO dirs(path, digest, updated) VALUES (?, ?, ?)",
                         (_stored(path), digest, time.time()))

    def save(self, rows: Iterable[dict], file: str | None = None,
             mark: ScanMark | None = None) -> None:
        """Store exchange rows and, when given, ``file``'s new mark, in one transaction."""
        with self.write() as conn:
            conn.executemany(UPSERT, rows)
            if file is not None and mark is not None:
                conn.execute("INSERT OR REPLACE INTO files(path, mark, updated) VALUES (?, ?, ?)",
                             (_stored(file), mark.to_json(), time.time()))


def read_marks(path: Path) -> tuple[dict[str, ScanMark], dict[str, str]]:
    """File and directory marks in ``path`` without writing anything; empty without a store."""
    if not path.is_file():
        return {}, {}
    # Without a live -wal file the database file is complete, and ``immutable`` keeps SQLite
    # from creating -wal/-shm files just to read it; with one, a writer is at work and its
    # files exist already.
    live = Path(f"{path}-wal").exists()
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro{'' if live else '&immutable=1'}", uri=True)
    except sqlite3.Error:
        return {}, {}
    try:
        rows = conn.execute("SELECT path, mark FROM files").fetchall()
        try:
            dirs = dict(conn.execute("SELECT path, digest FROM dirs").fetchall())
        except sqlite3.Error:   # a store from before directory marks
            dirs = {}
    except sqlite3.Error:       # a store from before this table, or not ours
        return {}, {}
    finally:
        conn.close()
    return {p: m for p, text in rows if (m := _parse_mark(text)) is not None}, dirs


class _Marks:
    """File marks read one at a time (a re-run over an unchanged tree reads none)."""

    def __init__(self, store: ImportStore) -> None:
        self.store = store

    def get(self, path: str) -> ScanMark | None:
        return self.store.mark(path)


class DrySink:
    """Counts what an import would propose; writes nothing."""

    def __init__(self, state: Path) -> None:
        marks, dirs = read_marks(state / "imports.db")
        self.marks, self.dirs = _ByPath(marks), _ByPath(dirs)
        self.facts: set[str] = set()

    def typed(self, t: Typed) -> None:
        fact = extract(t.text)
        if fact is not None:
            self.facts.add(fact.casefold())

    def exchange(self, ex: Exchange) -> None:
        """Nothing to keep."""

    def done(self, file: str, result: ScanResult | None) -> None:
        """No mark to save."""

    def dir_done(self, path: str, digest: str) -> None:
        """No mark to save."""

    def close(self) -> None:
        """Nothing open."""

    @property
    def proposals(self) -> int:
        return len(self.facts)


class StoreSink:
    """Stores proposals, runs and exchanges; a file's mark only after its rows.

    The redactor and the memory and telemetry stores are opened on first use, and
    ``project`` (a function: opening it loads the settings, which costs) is called only then:
    a re-run that finds nothing new opens only ``imports.db``.
    """

    def __init__(self, root: Path, project: Callable[[], Project]) -> None:
        from edgar.core.project import ensure_state_dir

        self.state = ensure_state_dir(root)
        self.project = project
        self.store = ImportStore(self.state / "imports.db")
        self.marks = _Marks(self.store)
        self.dirs = _ByPath(self.store.dirs())
        self.proposals = 0
        self.runs: list[Run] = []
        self.rows: list[dict] = []
        self.fallback = time.time()
        self._redact: Callable[[str], str] | None = None
        self._memory: MemoryStore | None = None
        self._experience: Experience | None = None

    @property
    def redact(self) -> Callable[[str], str]:
        if self._redact is None:
            self._redact = self.project().redact   # the composition root's one Redactor
        return self._redact

    @property
    def memory(self) -> MemoryStore:
        if self._memory is None:
            from edgar.memory.store import MemoryStore

            self._memory = MemoryStore(self.state / "memory.db", redact=self.redact)
        return self._memory

    @property
    def experience(self) -> Experience:
        if self._experience is None:
            from edgar.learning.experience import Experience

            self._experience = Experience(self.state / "experience.db", redact=self.redact)
        return self._experience

    def typed(self, t: Typed) -> None:
        fact = extract(t.text)
        if fact is not None:
            added = self.memory.add(fact, "imported", source=f"claude-code {t.file}:{t.line}")
            self.proposals += added is not None

    def exchange(self, ex: Exchange) -> None:
        if not self.rows:   # the file's mtime stands in for a missing timestamp
            with contextlib.suppress(OSError):
                self.fallback = os.stat(ex.file).st_mtime
        self.runs.append(to_run(ex, self.fallback, self.redact))
        self.rows.append(exchange_row(ex, self.redact))
        if len(self.rows) >= BATCH:
            self._flush()

    def _flush(self, file: str | None = None, result: ScanResult | None = None) -> None:
        if self.runs:
            self.experience.insert(self.runs, replace=True)
        self.store.save(self.rows, file, result.mark if result else None)
        self.runs, self.rows = [], []

    def done(self, file: str, result: ScanResult | None) -> None:
        if result is None:      # the file failed part-way: keep its old mark, rescan later
            self.runs, self.rows = [], []
            return
        self._flush(file, result)

    def dir_done(self, path: str, digest: str) -> None:
        """Every transcript in ``path`` is read to its end: remember the directory as it was."""
        if self.dirs.get(path) != digest:
            self.store.save_dir(path, digest)

    def close(self) -> None:
        for db in (self._memory, self._experience, self.store):
            if db is not None:
                db.close()
