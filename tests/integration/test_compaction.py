"""Compaction: a long scripted session, the real loop, the real session log.

What the model received is read back from EDGAR_SCRIPTED_RECORD; the log from disk.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, state_of, write_script

from edgar.cli.setup import build
from edgar.config import ContextSettings, Settings
from edgar.conversation import Message, ToolSpec
from edgar.core.loop import run_turn
from edgar.core.sessionlog import load
from edgar.core.tokens import request_chars
from edgar.events import Compacted, Event, ModelResponded, Notice, TextDelta, TurnFinished
from edgar.providers.scripted import ScriptedProvider


def _window() -> int:
    """6000 tokens when the tools took 3,319 characters (compact_at 0.8: compaction past 4 800);
    every tool added since moves it by its own size, so the turns compact where they did."""
    from edgar.core.tokens import tools_chars
    from edgar.tools.registry import default_tools

    extra = tools_chars([t.spec() for t in default_tools().values()]) - 3319
    return 6000 + round(extra / 4 / 0.8)


WINDOW = _window()       # tokens
TURNS = 7
SUMMARY = "SUMMARY: the person had me read notes0-4; each held forty lorem notes."
NOTES = {f"notes{i}.txt": "\n".join(f"note {i}.{j}: " + "lorem ipsum dolor " * 3
                                    for j in range(40)) for i in range(TURNS)}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EDGAR_SCRIPTED_RECORD", str(tmp_path / "requests.jsonl"))
    return make_project(tmp_path / "proj", NOTES)


def read(path: str) -> dict:
    return {"tool_calls": [{"name": "read", "input": {"path": path}}]}


def session_script(summary_at: int, summary: dict) -> list[dict]:
    lines: list[dict] = []
    for i in range(TURNS):
        lines += [read(f"notes{i}.txt"), {"text": f"answer {i}"}]
    lines[0]["model"] = "claude-sonnet-4-5"   # priced (at zero tokens) so turn costs are known
    lines.insert(summary_at, summary)
    return lines


def app_for(project: Path, lines: list[dict], **more):
    script = write_script(project.parent / "script.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    settings = Settings(model=f"scripted:{script}", permission_mode="yes",
                        context=ContextSettings(window=WINDOW, **more.pop("context", {})),
                        **more)
    app = build(project, settings, learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def estimate(request: dict, tools: list[ToolSpec]) -> int:
    messages = [Message.from_json(m) for m in request["messages"]]
    return request_chars(request["system"], messages, tools) // 4


def test_a_long_session_compacts_once_and_the_next_request_fits(project, tmp_path):
    # 7 turns of read + answer; the threshold is first passed before turn 6's second call
    # (script line 11), which the summary call takes.
    summary = {"text": SUMMARY, "model": "claude-sonnet-4-5",
               "usage": {"input_tokens": 1500, "output_tokens": 40}}
    app, events = app_for(project, session_script(11, summary))
    results = [asyncio.run(run_turn(app.session, f"read notes{i}.txt")) for i in range(TURNS)]
    app.close()
    assert [r.outcome for r in results] == ["ok"] * TURNS
    assert [r.text for r in results] == [f"answer {i}" for i in range(TURNS)]

    [compacted] = [e for e in events if isinstance(e, Compacted)]
    assert compacted.tokens_before >= 0.8 * WINDOW > compacted.tokens_after
    assert compacted.turn_id == results[5].id and compacted.depth == 0

    # visible: announced, streamed as model text, priced and counted in the turn's cost
    assert any(isinstance(e, Notice) and e.message.startswith("compacting") for e in events)
    assert SUMMARY in "".join(e.text for e in events if isinstance(e, TextDelta))
    priced = [e for e in events if isinstance(e, ModelResponded) and e.cost]
    assert len(priced) == 1 and priced[0].usage.input_tokens == 1500
    assert results[5].steps == 3 and results[5].cost == pytest.approx(priced[0].cost)
    assert results[5].loop_steps == 2   # the summary call is a step, not a loop step (num_turns)
    finished = [e for e in events if isinstance(e, TurnFinished)]
    assert finished[5].cost == pytest.approx(priced[0].cost)
    assert app.session.cost == pytest.approx(priced[0].cost)

    requests = recorded(tmp_path / "requests.jsonl")
    assert len(requests) == 2 * TURNS + 1
    summary_request = requests[11]
    assert summary_request["tools"] == []
    assert "note 0.0" in summary_request["messages"][0]["content"][0]["text"]
    tools = [t.spec() for t in app.session.tools.values()]
    after = requests[12]
    assert estimate(after, tools) < WINDOW
    assert estimate(after, tools) < estimate(requests[10], tools)
    first = after["messages"][0]["content"][0]["text"]
    assert first.startswith("[Summary of the earlier conversation") and SUMMARY in first
    # the last typed turns are verbatim, and every tool_use still has its result
    texts = json.dumps(after["messages"])
    assert "read notes5.txt" in texts and "read notes4.txt" in texts
    assert "read notes1.txt" not in texts
    uses = {b["id"] for m in after["messages"] for b in m["content"] if b["type"] == "tool_use"}
    results_for = {b["tool_use_id"] for m in after["messages"] for b in m["content"]
                   if b["type"] == "tool_result"}
    assert uses == results_for

    # the log keeps every message; loading it restores the compacted view
    [log] = (state_of(project, tmp_path / "home") / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    messages = [r for r in records if r["kind"] == "message"]
    assert len(messages) == 4 * TURNS
    logged = json.dumps(messages)
    assert all(f"read notes{i}.txt" in logged and f"answer {i}" in logged for i in range(TURNS))
    assert sum(r["kind"] == "compacted" for r in records) == 1
    assert [m.to_json() for m in load(log).messages] == [m.to_json() for m in app.session.messages]


def test_compact_on_demand_with_a_focus(project, tmp_path):
    lines = session_script(6, {"text": "SUMMARY on demand", "model": "claude-sonnet-4-5",
                               "usage": {"input_tokens": 900, "output_tokens": 30}})
    app, events = app_for(project, lines)
    for i in range(3):
        asyncio.run(run_turn(app.session, f"read notes{i}.txt"))
    before = app.session.cost
    out = asyncio.run(app.session.compactor.compact(app.session, "which notes were read"))
    assert out is not None and out[0] > out[1]
    ask = recorded(tmp_path / "requests.jsonl")[-1]["messages"][0]["content"][0]["text"]
    assert ask.rstrip().endswith("Focus especially on: which notes were read")
    assert app.session.cost > before
    assert [type(e) for e in events][-2:] == [ModelResponded, Compacted]
    # only the two turns to keep are left: nothing more to summarise (keep_turns = 2)
    assert asyncio.run(app.session.compactor.compact(app.session)) is None
    assert isinstance(events[-1], Notice) and events[-1].message == "nothing to compact yet"
    asyncio.run(run_turn(app.session, "read notes3.txt"))   # the session goes on
    assert app.session.messages[-1].text() == "answer 3"
    app.close()


def test_a_failed_summary_changes_nothing(project):
    app, events = app_for(project, session_script(6, {"error": {"status": 500}}))
    for i in range(3):
        asyncio.run(run_turn(app.session, f"read notes{i}.txt"))
    before = [m.to_json() for m in app.session.messages]
    assert asyncio.run(app.session.compactor.compact(app.session)) is None
    assert [m.to_json() for m in app.session.messages] == before
    assert any(isinstance(e, Notice) and e.message.startswith("compaction failed")
               for e in events)
    assert not any(isinstance(e, Compacted) for e in events)
    app.close()


def test_provider_usage_calibrates_the_estimate(project, tmp_path):
    # before any response: chars / 4; after one: the measured tokens-per-char of that request
    app, _ = app_for(project, [{"text": "hi", "usage": {"input_tokens": 1800}},
                               {"text": "again", "usage": {"input_tokens": 0}}])
    ledger = app.session.compactor.ledger
    assert ledger.ratio == 0.25 and not ledger.calibrated
    asyncio.run(run_turn(app.session, "hello"))
    [request] = recorded(tmp_path / "requests.jsonl")
    tools = [t.spec() for t in app.session.tools.values()]
    chars = request_chars(request["system"], [Message.from_json(m) for m in request["messages"]],
                          tools)
    assert ledger.calibrated and ledger.ratio == pytest.approx(1800 / chars)
    assert app.session.compactor.tokens(app.session) > 1800          # now above chars / 4
    asyncio.run(run_turn(app.session, "again"))                      # no usage: kept as is
    assert ledger.ratio == pytest.approx(1800 / chars)
    app.close()


def test_an_oversized_tool_result_reaches_the_model_as_head_and_tail(project, tmp_path):
    app, _ = app_for(project, [read("notes0.txt"), {"text": "ok"}],
                     context={"tool_result_max_chars": 1000})
    asyncio.run(run_turn(app.session, "read it"))
    app.close()
    result = recorded(tmp_path / "requests.jsonl")[1]["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and len(result["content"]) < 1200
    assert result["content"].startswith("     1\tnote 0.0:")
    assert result["content"].rstrip().endswith("lorem ipsum dolor")
    assert "characters omitted; to see them, read the file with offset/limit" in result["content"]


def test_in_p_mode_a_long_turn_compacts_mid_turn(tmp_path):
    project = make_project(tmp_path / "proj", {**NOTES, ".edgar/config.toml":
                                               f"[context]\nwindow = {WINDOW}\n"})
    lines = [read(f"notes{i}.txt") for i in range(TURNS)] + [{"text": "all read"}]
    lines.insert(6, {"text": SUMMARY})
    script = write_script(tmp_path / "s.jsonl", lines)
    record = tmp_path / "p.jsonl"
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record))
    out = run_edgar(["-p", "read every notes file", "--model", f"scripted:{script}",
                     "--permission-mode", "yes", "--output-format", "edgar-events"], project, env)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert [e["type"] for e in events].count("Compacted") == 1
    assert SUMMARY in "".join(e["text"] for e in events if e["type"] == "TextDelta")
    requests = recorded(record)
    assert requests[-1]["messages"][-1]["content"][0]["type"] == "tool_result"
    first = requests[-1]["messages"][0]
    assert first["role"] == "user" and SUMMARY in first["content"][0]["text"]
    assert requests[-1]["messages"][1]["role"] == "assistant"   # cut at an assistant message


def test_compact_that_would_save_under_ten_percent_is_skipped_or_undone(project, tmp_path):
    # a long kept tail and a tiny older part: /compact says so and makes no model call
    lines = [{"text": "short"}, read("notes0.txt"), {"text": "a"}, read("notes1.txt"),
             {"text": "b"}]
    app, events = app_for(project, lines)
    asyncio.run(run_turn(app.session, "hi"))
    for i in range(2):
        asyncio.run(run_turn(app.session, f"read notes{i}.txt"))
    calls = len(recorded(tmp_path / "requests.jsonl"))
    assert asyncio.run(app.session.compactor.compact(app.session)) is None
    assert "under 10%" in events[-1].message and "not compacting" in events[-1].message
    assert len(recorded(tmp_path / "requests.jsonl")) == calls
    app.close()
    # a summary as long as what it replaces: the conversation is kept as it was
    bloated = "x " * 6000
    lines = session_script(6, {"text": bloated, "model": "claude-sonnet-4-5"})
    app, events = app_for(project, lines)
    for i in range(3):
        asyncio.run(run_turn(app.session, f"read notes{i}.txt"))
    kept = [m.to_json() for m in app.session.messages]
    assert asyncio.run(app.session.compactor.compact(app.session)) is None
    assert [m.to_json() for m in app.session.messages] == kept
    assert not any(isinstance(e, Compacted) for e in events)
    assert "kept as it was" in events[-1].message
    app.close()
