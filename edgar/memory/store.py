"""Facts edgar remembers, with where each one came from.

Guarantees:
- A fact's status on creation is decided by its provenance alone: ``active`` iff the
  provenance is in ``ACTIVE_FROM``, otherwise ``pending``.
- ``approve`` is the only way from pending to active; it succeeds only when the caller
  presents the sha256 of the exact text that is stored (the text the reviewer saw), and it
  re-labels the fact ``reviewed``.
- Text is stored as one redacted line; the same text, compared as ``subjects.key`` (case,
  punctuation, emphasis and whitespace aside), is never stored twice (ADR-0080). A store
  written before that rule is re-keyed when opened: of facts that are now one, the newest
  keeps the key and the older ones, if active, are forgotten.
- ``add(..., replacing=ids)`` and ``approve(..., replacing=ids)`` make the new fact active and
  forget the facts it supersedes in one transaction: both or neither.
"""

from __future__ import annotations

import builtins
import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from edgar.memory.subjects import key as match_key
from edgar.storage.db import DB

Provenance = Literal["user-prompt", "error-template", "manual", "reviewed", "distilled", "imported",
                     "user-prompt-implicit"]
Status = Literal["active", "pending", "rejected", "forgotten"]

# The four doors to an active fact. Anything else waits for a person in `edgar memory review`.
ACTIVE_FROM: frozenset[str] = frozenset({"user-prompt", "error-template", "manual", "reviewed"})
# "user-prompt-implicit": a typed standing instruction without the directive form (issue 22),
# proposed to the person, never active on its own.
PROVENANCES: frozenset[str] = ACTIVE_FROM | {"distilled", "imported", "user-prompt-implicit"}


def normalise(text: str) -> str:
    """One line of plain text: whitespace runs folded to one space, ends trimmed."""
    return re.sub(r"\s+", " ", text).strip()


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Fact:
    id: int
    text: str
    provenance: str
    status: str
    created: float
    source: str
    sha256: str

    def to_json(self) -> dict:
        return {"id": self.id, "text": self.text, "provenance": self.provenance,
                "status": self.status, "created": self.created, "source": self.source,
                "sha256": self.sha256}


class ReviewError(Exception):
    """A review action was refused (unknown id, not pending, stale hash)."""


class MemoryStore(DB):
    SCHEMA = [
        """
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            key TEXT NOT NULL UNIQUE,
            provenance TEXT NOT NULL,
            status TEXT NOT NULL,
            created REAL NOT NULL,
            source TEXT NOT NULL DEFAULT '',
            sha256 TEXT NOT NULL
        );
        CREATE INDEX facts_status ON facts(status, created)
        """,
    ]

    def __init__(self, path: str | Path, redact: Callable[[str], str] | None = None):
        super().__init__(path)
        self._redact = redact or _default_redact()
        self._rekey()

    def _rekey(self) -> None:
        # Keys written before ADR-0080 were the casefolded text; one pass makes them match
        # keys, newest first, so the newest of facts that are now one keeps the key.
        rows = self.query("SELECT id, text, key, status FROM facts ORDER BY id DESC")
        if all(row["key"] == match_key(row["text"]) or "#" in row["key"] for row in rows):
            return
        with self.write() as conn:
            taken: set[str] = set()
            for row in conn.execute("SELECT id, text, key, status FROM facts ORDER BY id DESC"
                                    ).fetchall():
                want = match_key(row["text"])
                if want in taken:
                    conn.execute("UPDATE facts SET key = ?, status = CASE WHEN status = 'active'"
                                 " THEN 'forgotten' ELSE status END WHERE id = ?",
                                 (f"{want} #{row['id']}", row["id"]))
                    continue
                taken.add(want)
                if row["key"] != want:
                    conn.execute("UPDATE facts SET key = ? || ' #' || id WHERE key = ? AND id != ?",
                                 (want, want, row["id"]))
                    conn.execute("UPDATE facts SET key = ? WHERE id = ?", (want, row["id"]))

    def clean(self, text: str) -> str:
        """The form ``text`` is stored in (one redacted line): what a reviewer must be shown."""
        return normalise(self._redact(normalise(text)))

    def add(self, text: str, provenance: str, source: str = "",
            replacing: Sequence[int] = ()) -> Fact | None:
        """Store a fact; returns it, or None when the same text is already known.

        ``replacing``: active facts the new one supersedes; they are forgotten in the same
        transaction (only when the new fact is stored, and only when it is active).
        """
        if provenance not in PROVENANCES:
            raise ValueError(f"unknown provenance {provenance!r}")
        clean = self.clean(text)
        if not clean:
            return None
        source = self._redact(source)  # a path or a reference: it may hold a token too
        status = "active" if provenance in ACTIVE_FROM else "pending"
        with self.write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO facts(text, key, provenance, status, created, source,"
                " sha256)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (clean, match_key(clean), provenance, status, time.time(), source, digest(clean)),
            )
            if cur.rowcount == 0:
                return None
            if status == "active":
                _forget(conn, replacing)
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (cur.lastrowid,)).fetchone()
        return _fact(row)

    def reactivate(self, text: str, provenance: str, source: str = "") -> Fact | None:
        """Make the stored, not active fact with this text active again, as ``provenance``.

        For a person typing a rule that waits in review, was rejected or was forgotten: an
        explicit act. Returns the fact, or None when no such inactive fact exists.
        """
        if provenance not in ACTIVE_FROM:
            raise ValueError(f"{provenance!r} cannot make a fact active")
        clean = self.clean(text)
        with self.write() as conn:
            row = conn.execute("SELECT * FROM facts WHERE key = ?", (match_key(clean),)).fetchone()
            if row is None or row["status"] == "active":
                return None
            conn.execute(
                "UPDATE facts SET text = ?, sha256 = ?, status = 'active', provenance = ?,"
                " source = ?, created = ? WHERE id = ?",
                (clean, digest(clean), provenance, self._redact(source), time.time(), row["id"]))
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (row["id"],)).fetchone()
        return _fact(row)

    def edit(self, fact_id: int, text: str, source: str = "edgar memory edit") -> Fact:
        """Replace active fact ``fact_id`` by a new active ``manual`` fact holding ``text``.

        The old fact is kept, forgotten, so the change can be seen (``memory list --all``)
        and undone; typing the old rule again re-activates it. Returns the new fact.
        """
        clean = self.clean(text)
        if not clean:
            raise ReviewError("the new text is empty")
        source = self._redact(source)
        with self.write() as conn:
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (fact_id,)).fetchone()
            if row is None:
                raise ReviewError(f"no fact with id {fact_id}")
            if row["status"] != "active":
                raise ReviewError(f"fact {fact_id} is {row['status']}, not active")
            if clean == row["text"]:
                raise ReviewError(f"fact {fact_id} already says that")
            clash = conn.execute("SELECT id, status FROM facts WHERE key = ? AND id != ?",
                                 (match_key(clean), fact_id)).fetchone()
            if clash is not None:
                raise ReviewError(f"the same text is already fact {clash['id']} "
                                  f"({clash['status']})")
            if match_key(clean) == row["key"]:          # only case or punctuation changed
                conn.execute("UPDATE facts SET text = ?, sha256 = ?, provenance = 'manual',"
                             " source = ? WHERE id = ?", (clean, digest(clean), source, fact_id))
                new_id: int | None = fact_id   # lastrowid's type, below
            else:
                conn.execute("UPDATE facts SET status = 'forgotten' WHERE id = ?", (fact_id,))
                cur = conn.execute(
                    "INSERT INTO facts(text, key, provenance, status, created, source, sha256)"
                    " VALUES (?, ?, 'manual', 'active', ?, ?, ?)",
                    (clean, match_key(clean), time.time(), f"{source} of fact {fact_id}",
                     digest(clean)))
                new_id = cur.lastrowid
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (new_id,)).fetchone()
        return _fact(row)

    def get(self, fact_id: int) -> Fact | None:
        rows = self.query("SELECT * FROM facts WHERE id = ?", (fact_id,))
        return _fact(rows[0]) if rows else None

    def list(self, status: str | None = "active") -> list[Fact]:
        if status is None:
            rows = self.query("SELECT * FROM facts ORDER BY created DESC, id DESC")
        else:
            rows = self.query("SELECT * FROM facts WHERE status = ? ORDER BY created DESC, id DESC",
                              (status,))
        return [_fact(r) for r in rows]

    # ``list`` below is the method above: the builtin is spelt ``builtins.list``
    def active_texts(self, budget_chars: int) -> builtins.list[str]:
        """Active facts, newest first, as many as fit in ``budget_chars``."""
        return [fact.text for fact in self.active(budget_chars)]

    def active(self, budget_chars: int) -> builtins.list[Fact]:
        """Active facts (with their provenance), newest first, within ``budget_chars``."""
        out: builtins.list[Fact] = []
        used = 0
        for fact in self.list("active"):
            if used + len(fact.text) > budget_chars:
                break
            out.append(fact)
            used += len(fact.text) + 1
        return out

    def approve(self, fact_id: int, shown_sha256: str, text: str | None = None,
                replacing: Sequence[int] = ()) -> Fact:
        """Make a pending fact active as ``reviewed``, only if ``shown_sha256`` matches.

        ``text`` is an edit made by the reviewer: the hash then must match the edited text
        the reviewer saw last, and that text is what becomes active. ``replacing``: active
        facts it supersedes, forgotten in the same transaction.
        """
        with self.write() as conn:
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (fact_id,)).fetchone()
            if row is None:
                raise ReviewError(f"no fact with id {fact_id}")
            if row["status"] != "pending":
                raise ReviewError(f"fact {fact_id} is {row['status']}, not pending")
            final = row["text"] if text is None else self.clean(text)
            if digest(final) != shown_sha256:
                raise ReviewError(
                    f"fact {fact_id} changed since it was shown (hash mismatch); review it again")
            clash = conn.execute("SELECT id FROM facts WHERE key = ? AND id != ?",
                                 (match_key(final), fact_id)).fetchone()
            if clash is not None:
                raise ReviewError(f"the same text is already fact {clash['id']}")
            conn.execute(
                "UPDATE facts SET text = ?, key = ?, sha256 = ?, status = 'active',"
                " provenance = 'reviewed' WHERE id = ?",
                (final, match_key(final), digest(final), fact_id))
            _forget(conn, [i for i in replacing if i != fact_id])
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return _fact(row)

    def set_status(self, fact_id: int, status: Status, only_from: tuple[str, ...] = ()) -> Fact:
        with self.write() as conn:
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (fact_id,)).fetchone()
            if row is None:
                raise ReviewError(f"no fact with id {fact_id}")
            if only_from and row["status"] not in only_from:
                raise ReviewError(f"fact {fact_id} is {row['status']}")
            conn.execute("UPDATE facts SET status = ? WHERE id = ?", (status, fact_id))
            row = conn.execute("SELECT * FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return _fact(row)

    def reject(self, fact_id: int) -> Fact:
        return self.set_status(fact_id, "rejected", only_from=("pending",))

    def forget(self, fact_id: int) -> Fact:
        return self.set_status(fact_id, "forgotten", only_from=("active", "pending"))


def _forget(conn, ids: Sequence[int]) -> None:
    for fact_id in ids:
        conn.execute("UPDATE facts SET status = 'forgotten' WHERE id = ? AND status = 'active'",
                     (fact_id,))


def _fact(row) -> Fact:
    return Fact(row["id"], row["text"], row["provenance"], row["status"], row["created"],
                row["source"], row["sha256"])


def _default_redact() -> Callable[[str], str]:
    from edgar.redact import Redactor

    return Redactor.from_environ()
