"""Skills through the real loop: typed prompt, queued burst, refractory, ``-p``, bad files."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script

from edgar.cli.setup import build
from edgar.config import Settings, SkillsSettings
from edgar.core.loop import run_turn
from edgar.events import Event, QueueDelivered, SkillsActivated
from edgar.providers.scripted import ScriptedProvider

SKILLS = Path(__file__).resolve().parents[1] / "data" / "skills"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EDGAR_SCRIPTED_RECORD", str(tmp_path / "requests.jsonl"))
    root = make_project(tmp_path / "proj", {"a.txt": "a\n"})
    shutil.copytree(SKILLS, root / ".edgar" / "skills")
    return root


def app_for(project: Path, lines: list[dict], **skills):
    script = write_script(project.parent / "script.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    settings = Settings(model=f"scripted:{script}", permission_mode="yes",
                        skills=SkillsSettings(**skills))
    app = build(project, settings, learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def activated(events: list[Event]) -> list[tuple[str, ...]]:
    return [e.names for e in events if isinstance(e, SkillsActivated)]


def request_text(request: dict) -> str:
    """The system prompt and every text block of the request (skills travel in reminders)."""
    texts = [request["system"]] + [b.get("text", "") for m in request["messages"]
                                   for b in m["content"] if b.get("type") == "text"]
    return "\n".join(texts)


def skill_tags(request: dict) -> list[str]:
    return [line for line in request_text(request).splitlines() if line.startswith("<skill name=")]


def test_a_typed_prompt_activates_a_skill_and_its_body_reaches_the_model(project, tmp_path):
    app, events = app_for(project, [{"text": "Here is the diagram."}])
    asyncio.run(run_turn(app.session, "draw a mermaid flowchart of the request flow"))
    app.close()
    assert activated(events) == [("mermaid-diagrams",)]
    [request] = recorded(tmp_path / "requests.jsonl")
    assert skill_tags(request) == ['<skill name="mermaid-diagrams">']
    assert "Use fenced ```mermaid blocks" in request_text(request)
    # in a reminder at the end of the prompt's own message, not in the (stable) system prompt
    assert "<skill" not in request["system"]
    assert request["messages"][-1]["content"][-1]["text"].startswith("<system-reminder>")


def test_a_queued_burst_is_one_surface_and_fires_mid_turn(project, tmp_path):
    burst = ["my branch is messy", "squash the last five", "then rebase onto main"]
    app, events = app_for(project, [
        {"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
        {"text": "Rebasing."},
    ])
    for line in burst:           # typed while the turn runs; delivered at the first pause
        app.session.queue.put(line)
    asyncio.run(run_turn(app.session, "look at a.txt"))
    app.close()
    assert [e.count for e in events if isinstance(e, QueueDelivered)] == [3]
    assert activated(events) == [("git-history",)]
    first, second = recorded(tmp_path / "requests.jsonl")
    assert skill_tags(first) == [] and skill_tags(second) == ['<skill name="git-history">']
    assert second["messages"][-1]["content"][-1]["text"].startswith("\n".join(burst) + "\n\n")
    assert first["system"] == second["system"]


def test_refractory_keeps_the_skill_in_context_without_firing_again(project, tmp_path):
    app, events = app_for(project, [{"text": f"answer {i}"} for i in range(4)],
                          refractory_turns=1)
    for _ in range(4):
        asyncio.run(run_turn(app.session, "write a regex for ISO dates"))
    app.close()
    turn_ids = [e.turn_id for e in events if isinstance(e, SkillsActivated)]
    started = [e.turn_id for e in events if type(e).__name__ == "TurnStarted"]
    # fired in turn 0, refractory in turn 1 (carried, not re-fired), fires again in turn 2
    assert turn_ids == [started[0], started[2]]
    requests = recorded(tmp_path / "requests.jsonl")
    # told when fired (turns 0 and 2) and kept in the conversation in between
    assert [len(skill_tags(r)) for r in requests] == [1, 1, 2, 2]
    assert len({r["system"] for r in requests}) == 1


def test_skills_can_be_switched_off(project):
    app, events = app_for(project, [{"text": "ok"}], enabled=False)
    asyncio.run(run_turn(app.session, "draw a mermaid flowchart"))
    app.close()
    assert app.session.skills is None and activated(events) == []


def test_in_p_mode_skills_fire_and_a_broken_skill_is_a_located_warning(project, tmp_path):
    bad = project / ".edgar" / "skills" / "broken" / "SKILL.md"
    bad.parent.mkdir()
    bad.write_text("---\nname: broken\ndescription: [unclosed\n---\n", encoding="utf-8")
    script = write_script(tmp_path / "s.jsonl", [{"text": "Diagram done."}])
    record = tmp_path / "p.jsonl"
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record))
    out = run_edgar(["-p", "add a sequence diagram of the retry flow", "--model",
                     f"scripted:{script}", "--permission-mode", "yes",
                     "--output-format", "edgar-events"], project, env)
    assert out.returncode == 0, out.stderr
    assert f"{bad}:3: a [list] must close on the same line" in out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert [e["names"] for e in events if e["type"] == "SkillsActivated"] == [["mermaid-diagrams"]]
    assert '<skill name="mermaid-diagrams">' in request_text(recorded(record)[0])
