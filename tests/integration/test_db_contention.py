"""Many processes opening one brand-new database at once: none fails, the schema is
migrated once, every write lands (design §3.9; issue 11)."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest

from edgar.storage.db import DB

pytestmark = pytest.mark.timing   # processes racing for one database

PROCESSES = 8
TRIALS = 30   # 240 openings of a fresh file: before the retry, ~1 % of them failed


class Store(DB):
    SCHEMA = ["CREATE TABLE a(x INTEGER); CREATE TABLE b(y TEXT)",
              "ALTER TABLE a ADD COLUMN z TEXT",
              "CREATE INDEX ai ON a(x)"]


def _open_and_write(path: str, barrier, results) -> None:
    barrier.wait()
    try:
        with Store(path) as db, db.write() as conn:
            conn.execute("INSERT INTO a(x) VALUES (1)")
        results.put("ok")
    except Exception as exc:  # reported to the test, which names it
        results.put(f"{type(exc).__name__}: {exc}")


def test_a_new_database_opened_by_many_processes_at_once_never_fails(tmp_path):
    fork = multiprocessing.get_context("fork")
    failures: list[str] = []
    for trial in range(TRIALS):
        path = str(tmp_path / f"t{trial}.db")
        barrier, results = fork.Barrier(PROCESSES), fork.Queue()
        procs = [fork.Process(target=_open_and_write, args=(path, barrier, results))
                 for _ in range(PROCESSES)]
        for proc in procs:
            proc.start()
        outcomes = [results.get(timeout=60) for _ in procs]
        for proc in procs:
            proc.join(60)
        failures += [o for o in outcomes if o != "ok"]
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        assert conn.execute("SELECT count(*) FROM a").fetchone()[0] == outcomes.count("ok")
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.close()
    assert failures == []
