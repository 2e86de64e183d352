"""``edgar doctor --repair``: every state file of this project that edgar cannot read back,
moved aside (issue 21 item 10).

Guarantees:
- ``broken(root)`` finds, changing nothing: each state database that SQLite cannot read
  (``memory.db``, ``experience.db``, ``imports.db``, any ``*.db`` in the state dir; opened
  read-only), an input history that is not a usable file, each checkpoint turn whose
  ``manifest.json`` cannot be believed (``core/manifest.py``), a trust record in the user dir
  that is not one (``config/trust.damage``), and a ``.edgar`` in the project that is not a
  directory; the project's state dir, or its ``sessions``/``checkpoints``, that is not a
  directory. Each with the one phrase that says why.
- ``repair(root)`` renames each to ``NAME.broken-TIMESTAMP`` beside it (a database with its
  -wal and -shm, as ``NAME-wal.broken-TIMESTAMP``; a checkpoint turn as its whole directory, which
  undo and diff then pass
  over), says one line per file, and deletes nothing. A name already taken gets ``-2``,
  ``-3`` …, so nothing moved aside earlier is replaced. Nothing broken: one line saying so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

DATABASES = ("memory.db", "experience.db", "imports.db")


@dataclass(frozen=True)
class Broken:
    path: Path                    # what is moved aside
    why: str
    with_it: tuple[str, ...] = ()  # suffixes moved along (a database's -wal, -shm)


def database_damage(path: Path) -> str | None:
    """Why ``path`` is not a database SQLite can read (opened read-only: never changed)."""
    import sqlite3

    if path.is_symlink() or not path.is_file():
        return "is not a database (not a file)"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("PRAGMA quick_check").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return "is not a database"
    return None if row is not None and row[0] == "ok" else "is a damaged database"


def broken(root: Path) -> list[Broken]:
    """Every state file of ``root`` that edgar cannot read back, and why."""
    from edgar.cli.input_history import damage as history_damage
    from edgar.config import trust
    from edgar.core.checkpoints import Checkpoints
    from edgar.core.project import STATE_DIRS, shared_dir, state_dir

    found: list[Broken] = []
    state = state_dir(root)
    if os.path.lexists(state) and not state.is_dir():
        found.append(Broken(state, "is not a directory"))
    if state.is_dir():
        for name in STATE_DIRS:
            folder = state / name
            if os.path.lexists(folder) and not folder.is_dir():
                found.append(Broken(folder, "is not a directory"))
        names = sorted({*DATABASES, *(p.name for p in state.glob("*.db"))})
        for name in names:
            path = state / name
            why = database_damage(path) if os.path.lexists(path) else None
            if why is not None:
                found.append(Broken(path, why, ("-wal", "-shm")))
        history = state / "input_history"
        why = history_damage(history)
        if why is not None:
            found.append(Broken(history, why))
        for turn, why in Checkpoints(root, state, "").damaged():
            found.append(Broken(turn, f"holds a damaged manifest.json: {why}"))
    record = trust.user_dir() / trust.RECORD
    why = trust.damage(record)
    if why is not None:
        found.append(Broken(record, why))
    shared = shared_dir(root)
    if os.path.lexists(shared) and not shared.is_dir():
        found.append(Broken(shared, "is not a directory"))
    return found


def _aside(path: Path, stamp: str) -> Path:
    aside = Path(f"{path}.broken-{stamp}")
    n = 2
    while os.path.lexists(aside):
        aside = Path(f"{path}.broken-{stamp}-{n}")
        n += 1
    return aside


def repair(root: Path) -> int:
    """Move each broken state file of ``root`` aside; say one line each; exit code 0."""
    from edgar.core.project import state_dir

    stamp = time.strftime("%Y%m%dT%H%M%S")
    items = broken(root)
    for item in items:
        aside = _aside(item.path, stamp)
        os.rename(item.path, aside)
        for suffix in item.with_it:   # memory.db-wal → memory.db-wal.broken-STAMP, as before
            part = Path(f"{item.path}{suffix}")
            if os.path.lexists(part):
                os.rename(part, Path(f"{part}{aside.name[len(item.path.name):]}"))
        print(f"edgar doctor: moved {item.path} aside to {aside.name} (it {item.why})")
    if not items:
        print(f"edgar doctor: no broken state file in {state_dir(root)}")
    return 0
