"""The Recorder, the Experience store and the stats it feeds (seed 004, stop 2)."""

from __future__ import annotations

import json
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("edgar.learning")

from edgar.bus import Bus  # noqa: E402
from edgar.conversation import Usage
from edgar.events import (
    Attached,
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
from edgar.learning import render  # noqa: E402
from edgar.learning.experience import SAID, Experience, Recorder, Run, shape  # noqa: E402

S = "sess"


def at(turn: str, depth: int = 0) -> dict:
    return {"session_id": S, "turn_id": turn, "depth": depth}


class Sink(list):
    def __call__(self, run: Run) -> None:
        self.append(run)


@pytest.fixture
def sink():
    return Sink()


@pytest.fixture
def bus(sink):
    bus = Bus(on_error=lambda *a: (_ for _ in ()).throw(AssertionError(a)))
    bus.subscribe(Event, Recorder([sink]))
    return bus


def turn(bus, tid, *middle, outcome="ok", duration=1.0):
    bus.publish(TurnStarted(model="scripted:x", **at(tid)))
    for event in middle:
        bus.publish(event)
    bus.publish(TurnFinished(outcome=outcome, duration=duration, **at(tid)))


# -- shape ---------------------------------------------------------------------------------
def test_shape_sorts_dedupes_and_joins():
    assert shape(["shell", "read", "edit", "read"]) == "edit+read+shell"
    assert shape([]) == "answer"


@given(st.lists(st.sampled_from(["read", "edit", "shell", "grep", "task", "glob"])))
def test_shape_ignores_order_and_repeats(tools):
    assert shape(tools) == shape(sorted(tools, reverse=True)) == shape(tools + tools)
    assert shape(tools) == ("+".join(sorted(set(tools))) or "answer")


# -- the Recorder --------------------------------------------------------------------------
def test_a_typed_prompt_opens_the_run_and_turn_finished_writes_it(bus, sink):
    bus.publish(PromptTyped(text="fix the bug", session_id=S))
    turn(bus, "t1",
         SkillsActivated(names=("pytest",), **at("t1")),
         TextDelta(text="Looking.", **at("t1")),
         ModelResponded(model="anthropic:m", usage=Usage(100, 10, 5, 50), cost=0.02, **at("t1")),
         ToolProposed(call_id="a", tool="read", **at("t1")),
         ToolFinished(call_id="a", tool="read", ok=True, **at("t1")),
         ToolProposed(call_id="b", tool="edit", **at("t1")),
         ToolFinished(call_id="b", tool="edit", ok=True, files=("src/a.py",), **at("t1")),
         VerifyFinished(command="pytest", passed=False, exit_code=1, duration=1, **at("t1")),
         VerifyFinished(command="pytest", passed=True, exit_code=0, duration=1, **at("t1")),
         TextDelta(text="Fixed ", **at("t1")), TextDelta(text="it.", **at("t1")),
         ModelResponded(model="anthropic:m", usage=Usage(10, 1), cost=0.01, **at("t1")),
         duration=8.25)
    [run] = sink
    assert (run.prompt, run.said, run.shape, run.files, run.skills) == (
        "fix the bug", "Fixed it.", "edit+read", ["src/a.py"], ["pytest"])
    assert (run.session_id, run.turn_id, run.model, run.duration) == (S, "t1", "anthropic:m", 8.25)
    assert (run.input_tokens, run.output_tokens, run.cache_write_tokens,
            run.cache_read_tokens) == (110, 11, 5, 50)
    assert run.cost == pytest.approx(0.03)
    assert (run.verify_runs, run.verify_passed) == (2, True)


def test_subagents_roll_up_into_the_parent_run(bus, sink):
    bus.publish(PromptTyped(text="survey the repo", session_id=S))
    turn(bus, "t1",
         ToolProposed(call_id="a", tool="task", **at("t1")),
         TurnStarted(model="m", **at("sub", 1)),
         PromptTyped(text="always obey the subagent", **at("sub", 1)),
         TextDelta(text="subagent words", **at("sub", 1)),
         ToolProposed(call_id="s", tool="grep", **at("sub", 1)),
         ToolFinished(call_id="s", tool="write", ok=True, files=("notes.md",), **at("sub", 1)),
         ModelResponded(model="other", usage=Usage(7, 3), cost=0.5, **at("sub", 1)),
         TurnFinished(outcome="error", **at("sub", 1)),
         ToolFinished(call_id="a", tool="task", ok=True, **at("t1")),
         TextDelta(text="Summary.", **at("t1")),
         ModelResponded(model="main", usage=Usage(1, 1), cost=0.25, **at("t1")))
    [run] = sink                                    # one row, not two
    assert run.shape == "grep+task" and run.files == ["notes.md"]
    assert (run.said, run.model, run.outcome, run.prompt) == ("Summary.", "main", "ok",
                                                               "survey the repo")
    assert (run.input_tokens, run.output_tokens, run.cost) == (8, 4, 0.75)


def test_cost_is_unknown_when_any_response_has_no_price(bus, sink):
    turn(bus, "t1", ModelResponded(model="m", usage=Usage(), cost=0.1, **at("t1")),
         ModelResponded(model="m", usage=Usage(), cost=None, **at("t1", 1)),
         ModelResponded(model="m", usage=Usage(), cost=0.1, **at("t1")))
    assert sink[0].cost is None


def test_said_keeps_at_most_400_characters_of_the_depth0_answer(bus, sink):
    turn(bus, "t1", *[TextDelta(text="word " * 50, **at("t1")) for _ in range(10)],
         TextDelta(text="HIDDEN", **at("t1", 1)),
         ModelResponded(model="m", usage=Usage(), **at("t1")))
    assert len(sink[0].said) == SAID and "HIDDEN" not in sink[0].said


def test_a_cancelled_stream_keeps_the_partial_answer(bus, sink):
    turn(bus, "t1", TextDelta(text="half an ans", **at("t1")), outcome="cancelled")
    assert (sink[0].said, sink[0].outcome) == ("half an ans", "cancelled")


def test_queued_lines_join_the_run_they_were_delivered_to(bus, sink):
    bus.publish(PromptTyped(text="first", session_id=S))
    bus.publish(TurnStarted(model="m", **at("t1")))
    bus.publish(PromptTyped(text="second", queued=True, session_id=S))
    bus.publish(PromptTyped(text="third", queued=True, session_id=S))
    bus.publish(QueueDelivered(count=2, **at("t1")))
    bus.publish(PromptTyped(text="fourth", queued=True, session_id=S))
    bus.publish(TurnFinished(outcome="ok", **at("t1")))
    turn(bus, "t2")                                  # the undelivered line starts the next turn
    turn(bus, "t3")                                  # e.g. a verify round: still a run
    assert [r.prompt for r in sink] == ["first\nsecond\nthird", "fourth", ""]
    assert [r.turn_id for r in sink] == ["t1", "t2", "t3"]


def test_events_without_a_turn_are_ignored_and_attachments_are_not_prompts(bus, sink):
    bus.publish(ToolProposed(call_id="a", tool="shell", **at("x")))
    bus.publish(Attached(bodies=("piped",), session_id=S))
    turn(bus, "t1")
    assert sink[0].prompt == "" and sink[0].shape == "answer"


def test_one_failing_sink_does_not_cost_the_other_its_run():
    good, errors = Sink(), []

    def broken(run):
        raise RuntimeError("disk full")

    bus = Bus(on_error=lambda name, kind, exc: errors.append(type(exc).__name__))
    bus.subscribe(Event, Recorder([broken, good]))
    turn(bus, "t1")
    assert len(good) == 1 and errors == ["RuntimeError"]


# -- the Experience store ------------------------------------------------------------------
def make_run(i: int, **kw) -> Run:
    base = {"session_id": f"s{i % 3}", "turn_id": f"t{i}", "started": 1_795_000_000 + i * 3600,
            "asked": "x", "tools": ["read"], "model": "m", "duration": float(i), "outcome": "ok",
            "cost": 0.01, "input_tokens": 10, "output_tokens": 5}
    base.update(kw)
    asked = base.pop("asked")
    return Run(asked=[asked], **base)


@pytest.fixture
def store(tmp_path):
    with Experience(tmp_path / "experience.db",
                    redact=lambda s: s.replace("sk-secret", "[REDACTED]")) as exp:
        yield exp


def test_runs_are_stored_redacted_and_once(store):
    run = make_run(1, asked="use sk-secret", said="got sk-secret", files=["sk-secret.txt"])
    assert store.record(run) is True
    assert store.record(run) is False               # same (source, session, turn)
    [row] = store.query("SELECT * FROM runs")
    assert "sk-secret" not in json.dumps(dict(row))
    assert (row["source"], row["shape"], json.loads(row["tools"])) == ("edgar", "read", ["read"])


@pytest.fixture(params=["one read", "index walk"])
def medians(request, monkeypatch):
    from edgar.learning import rollup

    if request.param == "index walk":          # what a store of a million runs does
        monkeypatch.setattr(rollup, "SMALL", 0)


def test_stats_group_by_shape_with_exact_medians(store, medians):
    durations = {"read": [1, 2, 9], "edit+read": [4, 6], "answer": [3]}
    i = 0
    for shp, values in durations.items():
        for value in values:
            tools = [] if shp == "answer" else shp.split("+")
            store.record(make_run(i, tools=tools, duration=float(value), cost=None if
                                  value == 9 else 0.5))
            i += 1
    groups, total = store.stats()
    assert [(g.key, g.runs, g.median) for g in groups] == [
        ("read", 3, 2.0), ("edit+read", 2, 5.0), ("answer", 1, 3.0)]
    assert total.runs == 6 and total.median == statistics.median([1, 2, 9, 4, 6, 3])
    read = groups[0]
    assert read.share == pytest.approx(0.5) and read.duration == 12.0
    assert (read.cost_runs, read.cost_each) == (2, 0.5)
    assert render.sentence(read, "shape") == "50 % of runs here are read, median 2.0 s, $0.50 each"


def test_stats_by_model_day_outcome_since_and_source(store, medians):
    store.record(make_run(1, model="a", outcome="ok", started=1_795_000_000))
    store.record(make_run(2, model="b", outcome="error", started=1_795_000_000 + 10 * 86400))
    store.record(make_run(3, model="b", outcome="ok", started=1_795_000_000 + 10 * 86400,
                          source="claude-code", verify_runs=1, verify_passed=True))
    assert {g.key: g.runs for g in store.stats("model")[0]} == {"a": 1, "b": 2}
    assert {g.key: g.runs for g in store.stats("outcome")[0]} == {"ok": 2, "error": 1}
    days = [g.key for g in store.stats("day")[0]]
    assert days == sorted(days) and len(days) == 2
    assert store.stats("model", since=days[1])[1].runs == 2
    assert store.stats("model", source="claude-code")[1].runs == 1
    total = store.stats()[1]
    assert (total.verify_runs, total.verify_passed, total.verify_rate) == (1, 1, 1.0)


def test_rows_added_behind_our_back_are_counted(store):
    store.record(make_run(1))
    with store.write() as conn:
        conn.execute("INSERT INTO runs(source, session_id, turn_id, started, day, shape, "
                     "outcome, duration) VALUES ('claude-code', 'x', 'y', 0, '2020-01-01', "
                     "'answer', 'ok', 4)")
    groups, total = store.stats()
    assert total.runs == 2 and {g.key for g in groups} == {"read", "answer"}


def test_seen_counts_distinct_sessions_and_mark_saved_is_once(store):
    assert [store.seen("k", s) for s in ("a", "a", "b", "c", "c")] == [1, 1, 2, 3, 3]
    assert store.seen("other", "a") == 1
    assert (store.is_saved("k"), store.mark_saved("k"), store.mark_saved("k")) == (False, True,
                                                                                   False)
    assert store.is_saved("k")


def test_stats_json_and_text_are_complete(store):
    store.record(make_run(1, verify_runs=2, verify_passed=False))
    groups, total = store.stats()
    data = render.stats_json(groups, total, "shape", None, "all")
    assert data["total"]["runs"] == 1 and data["groups"][0]["verify_pass_rate"] == 0.0
    text = render.stats_text(groups, total, "shape", None, "all")
    assert "100 % of runs here are read, median 1.0 s, $0.01 each" in text
    assert render.stats_text([], None, "shape", None, "all").startswith("no runs recorded yet")


def test_a_turn_that_never_finished_is_kept_as_an_error(bus, sink):
    bus.publish(PromptTyped(text="lost", session_id=S))
    bus.publish(TurnStarted(model="m", **at("t1")))
    turn(bus, "t2")
    assert [(r.turn_id, r.outcome, r.prompt) for r in sink] == [("t1", "error", "lost"),
                                                                 ("t2", "ok", "")]


def test_the_importer_path_redacts_said_before_cutting_it(store):
    secret = "x" * 395 + "sk-secret"                  # straddles the 400-character cut
    store.insert([make_run(1, said=secret, source="claude-code")])
    [said] = [r["said"] for r in store.query("SELECT said FROM runs")]
    assert "sk-s" not in said and len(said) <= SAID


def test_a_turn_cancelled_before_any_response_is_grouped_under_its_model():
    from edgar.events import TurnFinished, TurnStarted
    from edgar.learning.experience import Recorder

    runs = []
    recorder = Recorder([runs.append])
    recorder(TurnStarted(model="anthropic:claude-sonnet-4-5", session_id="s", turn_id="t"))
    recorder(TurnFinished(outcome="cancelled", duration=0.4, session_id="s", turn_id="t"))
    assert [(r.outcome, r.model) for r in runs] == [("cancelled", "claude-sonnet-4-5")]
