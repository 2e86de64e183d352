"""The SQL behind ``Experience``: the runs table, its daily rollups, and the stats query.

Guarantees:
- Every run inserted through ``Experience.insert`` updates ``rollups`` in the same
  transaction, so sums and counts are exact in every snapshot; ``rebuild`` recomputes
  them from ``runs`` when rows were added some other way.
- ``select`` reads sums from the rollups (one row per dimension, source, day and key) and
  exact medians from covering indexes: one read of every duration when the selection is
  at most ``SMALL`` runs, else ``ORDER BY duration LIMIT 2 OFFSET n/2`` per group, so
  ``edgar stats`` stays under half a second over a million runs (bench/stats.py).
  ``since`` is a day (``YYYY-MM-DD``, local time) and includes it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable

DIMENSIONS = ("shape", "model", "day", "outcome")

SCHEMA = [
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL DEFAULT 'edgar',
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        started REAL NOT NULL,
        day TEXT NOT NULL,
        asked TEXT NOT NULL DEFAULT '',
        said TEXT NOT NULL DEFAULT '',
        shape TEXT NOT NULL,
        tools TEXT NOT NULL DEFAULT '[]',
        files TEXT NOT NULL DEFAULT '[]',
        skills TEXT NOT NULL DEFAULT '[]',
        model TEXT NOT NULL DEFAULT '',
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cost REAL,
        duration REAL NOT NULL DEFAULT 0,
        outcome TEXT NOT NULL,
        verify_runs INTEGER NOT NULL DEFAULT 0,
        verify_passed INTEGER,
        UNIQUE (source, session_id, turn_id)
    );
    CREATE INDEX runs_by_shape ON runs(shape, duration, day, source);
    CREATE INDEX runs_by_model ON runs(model, duration, day, source);
    CREATE INDEX runs_by_outcome ON runs(outcome, duration, day, source);
    CREATE INDEX runs_by_duration ON runs(duration, day, source);
    CREATE INDEX runs_by_day ON runs(day, duration, source, shape, model, outcome);
    CREATE TABLE rollups (
        dim TEXT NOT NULL, source TEXT NOT NULL, day TEXT NOT NULL, key TEXT NOT NULL,
        runs INTEGER NOT NULL, duration REAL NOT NULL,
        input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
        cache_tokens INTEGER NOT NULL, cost REAL NOT NULL, cost_runs INTEGER NOT NULL,
        verify_runs INTEGER NOT NULL, verify_passed INTEGER NOT NULL,
        PRIMARY KEY (dim, source, day, key)
    ) WITHOUT ROWID;
    CREATE TABLE rolled (upto INTEGER NOT NULL);
    INSERT INTO rolled(upto) VALUES (0);
    CREATE TABLE seen (
        key TEXT NOT NULL, session_id TEXT NOT NULL, at REAL NOT NULL,
        PRIMARY KEY (key, session_id)
    ) WITHOUT ROWID;
    CREATE TABLE saved (key TEXT PRIMARY KEY, at REAL NOT NULL) WITHOUT ROWID
    """,
    # 2 (ADR 0053): a run's duration may be unknown (NULL: an imported exchange whose
    # transcript gives no time span; the 0 such runs were stored with before becomes NULL),
    # and a run names the project it came from ('' for edgar's own, a Claude Code folder
    # name for an imported one). SQLite cannot drop NOT NULL in place: the table is copied.
    """
    CREATE TABLE runs_v2 (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL DEFAULT 'edgar',
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        started REAL NOT NULL,
        day TEXT NOT NULL,
        asked TEXT NOT NULL DEFAULT '',
        said TEXT NOT NULL DEFAULT '',
        shape TEXT NOT NULL,
        tools TEXT NOT NULL DEFAULT '[]',
        files TEXT NOT NULL DEFAULT '[]',
        skills TEXT NOT NULL DEFAULT '[]',
        model TEXT NOT NULL DEFAULT '',
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cost REAL,
        duration REAL,
        outcome TEXT NOT NULL,
        verify_runs INTEGER NOT NULL DEFAULT 0,
        verify_passed INTEGER,
        project TEXT NOT NULL DEFAULT '',
        UNIQUE (source, session_id, turn_id)
    );
    INSERT INTO runs_v2 (id, source, session_id, turn_id, started, day, asked, said, shape,
        tools, files, skills, model, input_tokens, output_tokens, cache_write_tokens,
        cache_read_tokens, cost, duration, outcome, verify_runs, verify_passed)
    SELECT id, source, session_id, turn_id, started, day, asked, said, shape,
        tools, files, skills, model, input_tokens, output_tokens, cache_write_tokens,
        cache_read_tokens, cost,
        CASE WHEN source = 'claude-code' AND duration = 0 THEN NULL ELSE duration END,
        outcome, verify_runs, verify_passed FROM runs;
    DROP TABLE runs;
    ALTER TABLE runs_v2 RENAME TO runs;
    CREATE INDEX runs_by_shape ON runs(shape, duration, day, source);
    CREATE INDEX runs_by_model ON runs(model, duration, day, source);
    CREATE INDEX runs_by_outcome ON runs(outcome, duration, day, source);
    CREATE INDEX runs_by_duration ON runs(duration, day, source);
    CREATE INDEX runs_by_day ON runs(day, duration, source, shape, model, outcome);
    CREATE INDEX runs_by_project ON runs(project, source, day);
    ALTER TABLE rollups ADD COLUMN timed INTEGER NOT NULL DEFAULT 0;
    DELETE FROM rollups;
    """ + "".join(
        f"""INSERT INTO rollups(dim, source, day, key, runs, duration, input_tokens,
        output_tokens, cache_tokens, cost, cost_runs, verify_runs, verify_passed, timed)
    SELECT '{dim}', source, day, {dim}, count(*), total(duration), sum(input_tokens),
        sum(output_tokens), sum(cache_write_tokens + cache_read_tokens), total(cost),
        count(cost), sum(verify_runs > 0), sum(verify_runs > 0 AND verify_passed = 1),
        count(duration) FROM runs GROUP BY source, day, {dim};
    """ for dim in ("shape", "model", "outcome")),
]

COLUMNS = ("source", "session_id", "turn_id", "started", "day", "asked", "said", "shape",
           "tools", "files", "skills", "model", "input_tokens", "output_tokens",
           "cache_write_tokens", "cache_read_tokens", "cost", "duration", "outcome",
           "verify_runs", "verify_passed", "project")
INSERT_RUN = (f"INSERT OR IGNORE INTO runs({', '.join(COLUMNS)}) "
              f"VALUES ({', '.join(':' + c for c in COLUMNS)})")

SUMS = ("runs", "duration", "input_tokens", "output_tokens", "cache_tokens", "cost",
        "cost_runs", "verify_runs", "verify_passed", "timed")
ROLLED = ("shape", "model", "outcome")   # one rollup row per (dimension, source, day, key)
SMALL = 50_000       # selections up to this size get their medians in one indexed read
UPSERT = (
    "INSERT INTO rollups(dim, source, day, key, " + ", ".join(SUMS) + ")"
    " VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT(dim, source, day, key) DO UPDATE SET "
    + ", ".join(f"{c} = {c} + excluded.{c}" for c in SUMS)
)
REBUILD = (
    "INSERT INTO rollups(dim, source, day, key, " + ", ".join(SUMS) + ")"
    " SELECT '{dim}', source, day, {dim}, count(*), total(duration), sum(input_tokens),"
    " sum(output_tokens), sum(cache_write_tokens + cache_read_tokens), total(cost),"
    " count(cost), sum(verify_runs > 0), sum(verify_runs > 0 AND verify_passed = 1),"
    " count(duration)"
    " FROM runs GROUP BY source, day, {dim}"
)


def day_of(started: float) -> str:
    """The local calendar day of a unix time: what ``--by day`` and ``--since`` count in."""
    return time.strftime("%Y-%m-%d", time.localtime(started))


def row(run, redact: Callable[[str], str], said_max: int) -> dict:
    """A ``Run`` as a ``runs`` row; every text a person or a model wrote is redacted."""
    return {
        "source": run.source, "session_id": run.session_id, "turn_id": redact(run.turn_id),
        "started": run.started, "day": day_of(run.started),
        "asked": redact(run.prompt), "said": redact(run.said)[:said_max], "shape": run.shape,
        "tools": json.dumps(run.tools), "files": json.dumps([redact(f) for f in run.files]),
        "skills": json.dumps(run.skills), "model": run.model,
        "input_tokens": run.input_tokens, "output_tokens": run.output_tokens,
        "cache_write_tokens": run.cache_write_tokens,
        "cache_read_tokens": run.cache_read_tokens, "cost": run.cost,
        "duration": run.duration, "outcome": run.outcome, "verify_runs": run.verify_runs,
        "verify_passed": None if run.verify_passed is None else int(run.verify_passed),
        "project": redact(run.project) if run.project else run.project,  # a path: may hold a token
    }


def rollup_rows(values: dict) -> list[tuple]:
    verified = values["verify_runs"] > 0
    duration = values["duration"]
    sums = (duration or 0.0, values["input_tokens"], values["output_tokens"],
            values["cache_write_tokens"] + values["cache_read_tokens"], values["cost"] or 0.0,
            int(values["cost"] is not None), int(verified),
            int(verified and values["verify_passed"] == 1), int(duration is not None))
    return [(dim, values["source"], values["day"], values[dim], *sums) for dim in ROLLED]


def add(conn: sqlite3.Connection, values: dict) -> bool:
    """Insert one run and roll it up (inside the caller's write transaction)."""
    cur = conn.execute(INSERT_RUN, values)
    if cur.rowcount != 1:
        return False
    conn.executemany(UPSERT, rollup_rows(values))
    conn.execute("UPDATE rolled SET upto = ?", (cur.lastrowid,))
    return True


DOWN = ("UPDATE rollups SET " + ", ".join(f"{c} = {c} - ?" for c in SUMS)
        + " WHERE dim = ? AND source = ? AND day = ? AND key = ?")


def remove(conn: sqlite3.Connection, source: str, session_id: str, turn_id: str) -> bool:
    """Delete one run and take it out of its rollups (inside the caller's transaction).

    Why: the Claude Code importer stores an exchange still open at the end of a file and
    must replace it, not add a second row, once a later import sees it whole.
    """
    found = conn.execute("SELECT * FROM runs WHERE source = ? AND session_id = ? AND turn_id = ?",
                         (source, session_id, turn_id)).fetchone()
    if found is None:
        return False
    values = {k: found[k] for k in found.keys()}  # noqa: SIM118 — a sqlite3.Row iterates its values
    conn.execute("DELETE FROM runs WHERE id = ?", (values["id"],))
    for dim, src, day, key, *sums in rollup_rows(values):
        conn.execute(DOWN, (1, *sums, dim, src, day, key))
        conn.execute("DELETE FROM rollups WHERE dim = ? AND source = ? AND day = ? AND key = ?"
                     " AND runs <= 0", (dim, src, day, key))
    return True


def stale(conn: sqlite3.Connection) -> bool:
    """True when rows were added without their rollups (e.g. a bulk insert): O(log n)."""
    newest = conn.execute("SELECT coalesce(max(id), 0) FROM runs").fetchone()[0]
    return newest != conn.execute("SELECT upto FROM rolled").fetchone()[0]


def rebuild(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM rollups")
    for dim in ROLLED:
        conn.execute(REBUILD.format(dim=dim))
    conn.execute("UPDATE rolled SET upto = (SELECT coalesce(max(id), 0) FROM runs)")


def _where(since: str | None, source: str | None,
           project: str | None = None) -> tuple[list[str], list]:
    clauses, params = [], []
    if since:
        clauses.append("day >= ?")
        params.append(since)
    if source:
        clauses.append("source = ?")
        params.append(source)
    if project is not None:
        clauses.append("project = ?")
        params.append(project)
    return clauses, params


def _median_of(values: list[float]) -> float | None:
    if not values:
        return None   # no run here has a known duration
    values.sort()
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _walk_median(conn: sqlite3.Connection, dim: str | None, key: str | None, n: int,
                 clauses: list[str], params: list) -> float | None:
    # The index is ordered by (dim, duration): the median is n/2 entries in, no sort needed.
    # ``n`` counts the runs with a duration; the others (NULL) are skipped by the index.
    if n <= 0:
        return None
    where = ([f"{dim} = ?"] if dim else []) + ["duration IS NOT NULL"] + clauses
    sql = (f"SELECT duration FROM runs INDEXED BY runs_by_{dim or 'duration'}"
           f" WHERE {' AND '.join(where)} ORDER BY duration LIMIT 2 OFFSET ?")
    values = [r[0] for r in conn.execute(sql, ([key] if dim else []) + params + [(n - 1) // 2])]
    if not values:
        return None
    return values[0] if n % 2 or len(values) < 2 else (values[0] + values[1]) / 2


def _medians(conn, by: str, groups: dict[str, int], total: int, runs: int, clauses: list[str],
             params: list) -> tuple[dict[str, float | None], float | None]:
    if runs <= SMALL:               # few runs: read them all through one covering index
        sql = (f"SELECT {by}, duration FROM runs INDEXED BY runs_by_day"
               + (f" WHERE {' AND '.join(clauses)}" if clauses else ""))
        values: dict[str, list[float]] = {}
        everything: list[float] = []
        for key, duration in conn.execute(sql, params):
            values.setdefault(key, [])
            if duration is not None:
                values[key].append(duration)
                everything.append(duration)
        return {k: _median_of(v) for k, v in values.items()}, _median_of(everything)
    return ({k: _walk_median(conn, by, k, n, clauses, params) for k, n in groups.items()},
            _walk_median(conn, None, None, total, clauses, params))


BY_RUNS = (" count(*), total(duration), sum(input_tokens), sum(output_tokens),"
           " sum(cache_write_tokens + cache_read_tokens), total(cost), count(cost),"
           " sum(verify_runs > 0), sum(verify_runs > 0 AND verify_passed = 1), count(duration)")


def select(conn: sqlite3.Connection, by: str, since: str | None, source: str | None,
           project: str | None = None) -> tuple[list[dict], dict]:
    """Groups and total. With ``project``, summed from the runs themselves (the rollups
    do not split by project; an index on project keeps that read short)."""
    if by not in DIMENSIONS:
        raise ValueError(f"cannot group by {by!r}")
    clauses, params = _where(since, source, project)
    if project is not None:
        sql = (f"SELECT {by}, {BY_RUNS} FROM runs INDEXED BY runs_by_project"
               f" WHERE {' AND '.join(clauses)} GROUP BY {by}")
        rows = conn.execute(sql, params)
    else:
        dim = by if by in ROLLED else "outcome"      # every run is in each dimension once
        column = "day" if by == "day" else "key"
        sums = ", ".join(f"sum({c})" for c in SUMS)
        sql = (f"SELECT {column}, {sums} FROM rollups WHERE dim = ?"
               + "".join(f" AND {c}" for c in clauses) + f" GROUP BY {column}")
        rows = conn.execute(sql, [dim, *params])
    groups = {r[0]: dict(zip(SUMS, r[1:], strict=True)) for r in rows}
    total_runs = sum(g["runs"] for g in groups.values())
    timed = sum(g["timed"] for g in groups.values())
    medians, overall = _medians(conn, by, {k: g["timed"] for k, g in groups.items()},
                                timed, total_runs, clauses, params)
    out = []
    for key, item in groups.items():
        item.update(key=key, share=item["runs"] / total_runs if total_runs else 0.0,
                    median=medians.get(key))
        out.append(item)
    out.sort(key=lambda g: (-g["runs"], g["key"]) if by != "day" else g["key"])
    total = {c: sum(g[c] for g in out) for c in SUMS}
    total.update(key="all", share=1.0 if total_runs else 0.0, median=overall)
    return out, total
