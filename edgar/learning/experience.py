"""Telemetry as just another subscriber: one ``Run`` per turn, written on ``TurnFinished``.

Guarantees (seed 004, stop 2):
- The ``Recorder`` needs no hook in the loop: it only reads bus events.
- One row per depth-0 turn. Events at depth > 0 (subagents) never make a row of their
  own; their tools, files, tokens and cost roll up into the parent's run.
- A run opens on a depth-0 ``PromptTyped`` that starts a turn (lines typed while no turn
  runs are held until the next depth-0 ``TurnStarted``; a queued line typed during a turn
  joins that run when ``QueueDelivered`` says it was delivered, else the next turn).
- ``said`` keeps at most ``SAID`` characters of the depth-0 answer; ``asked``, ``said`` and
  ``files`` are stored redacted. Nothing here is ever read back into a prompt.
- ``shape`` is pure: sorted unique tool names joined with ``+``, or ``answer``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from edgar.events import (
    Event,
    ModelResponded,
    PromptTyped,
    QueueDelivered,
    SkillsActivated,
    TextDelta,
    ToolFinished,
    ToolProposed,
    TurnFinished,
    TurnStarted,
    VerifyFinished,
)
from edgar.learning import rollup
from edgar.learning.redaction import redact as default_redact
from edgar.storage.db import DB

SAID = 400


def shape(tools: Iterable[str]) -> str:
    """``read+edit+shell`` for a run that used those tools (any order, any count), else
    ``answer``."""
    names = sorted({t for t in tools if t})
    return "+".join(names) if names else "answer"


@dataclass
class Run:
    """One turn as it is being built up, step by step.

    Mutable on purpose, for the same reason as the loop's ``_Turn``: it is shared state
    filled in by a dozen events, and setters would not make it any less shared.
    """

    session_id: str = ""
    turn_id: str = ""
    started: float = field(default_factory=time.time)
    asked: list[str] = field(default_factory=list)
    said: str = ""
    tools: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cost: float | None = 0.0
    duration: float | None = 0.0   # None: not known (an imported exchange without times)
    outcome: str = "ok"
    verify_runs: int = 0
    verify_passed: bool | None = None
    source: str = "edgar"
    project: str = ""              # the Claude Code folder an imported run came from

    @property
    def shape(self) -> str:
        return shape(self.tools)

    @property
    def prompt(self) -> str:
        return "\n".join(self.asked)

    @property
    def tokens(self) -> int:
        return (self.input_tokens + self.output_tokens + self.cache_write_tokens
                + self.cache_read_tokens)


class Recorder:
    """Subscriber: builds a ``Run`` per depth-0 turn and hands it to each sink when it ends."""

    def __init__(self, sinks: Iterable[Callable[[Run], object]],   # what a sink returns is unused
                 redact: Callable[[str], str] = default_redact) -> None:
        self.sinks = list(sinks)
        self.redact = redact
        self.started_model = ""        # the model the open turn started on (TurnStarted)
        self.run: Run | None = None
        self.waiting: list[str] = []     # typed lines not yet part of a run
        self._step: list[str] = []       # depth-0 text of the current model step
        self._step_len = 0

    def __call__(self, event: Event) -> None:
        match event:
            case PromptTyped(depth=0, remember=True):
                return                   # "# text" starts no run: it is memory, not a task
            case PromptTyped(depth=0):
                self.waiting.append(event.text)
                return
            case PromptTyped():
                return
            case TurnStarted(depth=0):
                self._open(event)
                # a turn cancelled before any response still ran on this model: group it there
                self.started_model = event.model.split(":", 1)[-1]
                return
        run = self.run
        if run is None:
            if not (isinstance(event, TurnFinished) and event.depth == 0):
                return
            run = self._open(event)   # attached mid-turn: still one row per turn
        match event:
            case ToolProposed():
                run.tools.append(event.tool)
            case ToolFinished():
                for path in event.files:
                    if path not in run.files:
                        run.files.append(path)
            case ModelResponded():
                self._model(run, event)
            case TextDelta(depth=0) if self._step_len < 2 * SAID:
                self._step.append(event.text)
                self._step_len += len(event.text)
            case SkillsActivated():
                run.skills.extend(n for n in event.names if n not in run.skills)
            case VerifyFinished():
                run.verify_runs += 1
                run.verify_passed = event.passed     # the last check decides how the run ended
            case QueueDelivered(depth=0):
                count = max(0, event.count)
                run.asked.extend(self.waiting[:count])
                del self.waiting[:count]
            case TurnFinished(depth=0):
                self._finish(run, event)

    def _open(self, event: Event) -> Run:
        unfinished = self.run
        run = Run(session_id=event.session_id, turn_id=event.turn_id, asked=self.waiting)
        self.waiting = []
        self._step, self._step_len = [], 0
        self.run = run
        if unfinished is not None:        # a turn that never finished: keep what we know
            unfinished.outcome = "error"
            # (after the new run is open: a failing sink can't stop it)
            self._flush(unfinished)
        return run

    def _model(self, run: Run, event: ModelResponded) -> None:
        usage = event.usage
        run.input_tokens += usage.input_tokens
        run.output_tokens += usage.output_tokens
        run.cache_write_tokens += usage.cache_write_tokens
        run.cache_read_tokens += usage.cache_read_tokens
        run.cost = None if event.cost is None or run.cost is None else run.cost + event.cost
        if event.depth == 0:
            if not run.model:
                run.model = event.model
            self._end_step(run)

    def _end_step(self, run: Run) -> None:
        # The answer is the last depth-0 step that said something (what the loop keeps too).
        # Twice SAID is kept until now so that a secret across the cut is still recognised.
        if self._step:
            run.said = self.redact("".join(self._step)[:2 * SAID])[:SAID]
        self._step, self._step_len = [], 0

    def _finish(self, run: Run, event: TurnFinished) -> None:
        self._end_step(run)
        if not run.model:
            run.model = self.started_model
        run.duration = event.duration
        run.outcome = event.outcome
        if not run.turn_id:
            run.turn_id = event.turn_id
        self.run = None
        self._flush(run)

    def _flush(self, run: Run) -> None:
        failure: Exception | None = None
        for sink in self.sinks:
            try:
                sink(run)
            except Exception as exc:   # one broken sink must not cost the others their copy
                failure = failure or exc
        if failure is not None:
            raise failure


@dataclass(frozen=True, slots=True)
class Stats:
    """What ``edgar stats`` prints for one group of runs: counts, durations, tokens, costs."""

    key: str
    runs: int
    share: float                 # of all selected runs, 0..1
    duration: float              # seconds, summed over the runs whose duration is known
    median: float | None         # seconds; None when no run here has a known duration
    input_tokens: int
    output_tokens: int
    cache_tokens: int
    cost: float                  # summed over the runs whose cost is known
    cost_runs: int               # how many runs that is
    verify_runs: int             # runs in which verify ran at least once
    verify_passed: int           # … and whose last check passed
    timed: int = 0               # runs whose duration is known

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_tokens

    @property
    def cost_each(self) -> float | None:
        return self.cost / self.cost_runs if self.cost_runs else None

    @property
    def verify_rate(self) -> float | None:
        return self.verify_passed / self.verify_runs if self.verify_runs else None


class Experience(DB):
    """The telemetry store (``.edgar/experience.db``): runs, their daily rollups, and the
    distinct-session counter ``ErrorFacts`` leans on (``seen``/``mark_saved``)."""

    SCHEMA = rollup.SCHEMA

    def __init__(self, path, redact: Callable[[str], str] = default_redact) -> None:
        super().__init__(path)
        self.redact = redact

    def record(self, run: Run) -> bool:
        """Store a finished run (redacted); False when the same (source, session, turn) exists."""
        return self.insert([run]) == 1

    def insert(self, runs: Sequence[Run], replace: bool = False) -> int:
        """Store runs and their rollups in one transaction; returns how many were new.

        The Claude Code importer uses this too (``source='claude-code'``), so every row
        reaches the rollups ``edgar stats`` reads. ``replace=True`` swaps a stored run with
        the same (source, session, turn) for the new one (an imported exchange that was
        still open when an earlier import read it); it does not count as new.
        """
        added = 0
        with self.write() as conn:
            for run in runs:
                known = replace and rollup.remove(conn, run.source, run.session_id, run.turn_id)
                added += rollup.add(conn, rollup.row(run, self.redact, SAID)) and not known
        return added

    # -- the error learner's counter (seed 004, stop 3) ------------------------------------
    def seen(self, key: str, session_id: str) -> int:
        """Note that ``key`` failed in ``session_id``; how many distinct sessions it failed in."""
        with self.write() as conn:
            conn.execute("INSERT OR IGNORE INTO seen(key, session_id, at) VALUES (?, ?, ?)",
                         (key, session_id, time.time()))
            return conn.execute("SELECT count(*) FROM seen WHERE key = ?", (key,)).fetchone()[0]

    def is_saved(self, key: str) -> bool:
        return bool(self.query("SELECT 1 FROM saved WHERE key = ?", (key,)))

    def mark_saved(self, key: str) -> bool:
        """Remember forever that ``key`` has its fact; False if it already had one."""
        with self.write() as conn:
            cur = conn.execute("INSERT OR IGNORE INTO saved(key, at) VALUES (?, ?)",
                               (key, time.time()))
            return cur.rowcount == 1

    # -- what edgar stats prints -----------------------------------------------------------
    def stats(self, by: str = "shape", since: str | None = None, source: str | None = None,
              project: str | None = None) -> tuple[list[Stats], Stats]:
        """Groups (largest first) and the total, over runs on or after day ``since``
        (and, given ``project``, of that Claude Code folder only)."""
        with self._lock:
            if self._snapshot(rollup.stale):   # rows added behind our back: recount once
                self.rebuild_rollups()
            rows, total = self._snapshot(
                lambda conn: rollup.select(conn, by, since, source, project))
        return [Stats(**r) for r in rows], Stats(**total)

    def _snapshot(self, read):
        with self._lock:
            self.conn.execute("BEGIN")         # one read snapshot: sums and medians agree
            try:
                return read(self.conn)
            finally:
                self.conn.execute("COMMIT")

    def rebuild_rollups(self) -> None:
        """Recompute the rollups from the runs (after rows were inserted behind our back)."""
        with self.write() as conn:
            rollup.rebuild(conn)


day_of = rollup.day_of
