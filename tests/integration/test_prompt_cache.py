"""A prompt that caches: the request bodies of one session, recorded by the loopback server,
only ever grow at the end — a fact learned or a skill fired mid-session never rewrites the
system prompt; it travels as a reminder in the next user message (ADR-0042)."""

from __future__ import annotations

import asyncio
import datetime
import importlib.util
import json
import shutil
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from support.project import make_project
from support.sse_server import stream

from edgar.cli.oneshot import run_prompt
from edgar.cli.setup import build
from edgar.config import Settings
from edgar.core import reminders

SKILLS = Path(__file__).resolve().parents[1] / "data" / "skills"
PROMPTS = ["look at a.txt", "what does it say?", "always run pytest -q before committing",
           "and the tests?", "draw a mermaid flowchart of the request flow", "thanks"]


def plain(value: Any) -> Any:
    """A body without its cache_control marks (they move; the content must not)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def marks(value: Any) -> int:
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(marks(v) for v in value.values())
    if isinstance(value, list):
        return sum(marks(v) for v in value)
    return 0


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    root = make_project(tmp_path / "proj", {"a.txt": "hello\n", "AGENTS.md": "Be brief.\n"})
    shutil.copytree(SKILLS, root / ".edgar" / "skills")
    return root


def session_of(project, server, model="anthropic:claude-sonnet-4-6", session_id=None):
    app = build(project, Settings(model=model, permission_mode="yes"), session_id=session_id)

    async def go(prompts):
        try:
            for prompt in prompts:
                assert await run_prompt(app, prompt, fmt="quiet") == 0
        finally:
            await app.session.provider.aclose()

    return app, go


@pytest.mark.skipif(importlib.util.find_spec("edgar.learning") is None,
                    reason="a typed rule becomes a fact only with edgar.learning")
def test_consecutive_request_bodies_only_grow(server, provider_env, project):
    # the second prompt's turn has a step with two signed thinking blocks, a redacted one and
    # a tool call: replayed as received, they must not disturb the prefix either
    server.anthropic(stream("anthropic_text"), stream("anthropic_thinking_blocks_tool"),
                     *[stream("anthropic_text") for _ in PROMPTS[1:]])
    app, go = session_of(project, server)
    asyncio.run(go(PROMPTS))
    app.close()
    bodies = server.bodies()
    assert len(bodies) == len(PROMPTS) + 1
    for before, after in pairwise(bodies):
        a, b = plain(before), plain(after)
        assert a["tools"] == b["tools"] and a["system"] == b["system"]
        assert b["messages"][:len(a["messages"])] == a["messages"]   # a prefix, byte for byte
    assert all(marks(b) <= 4 for b in bodies)
    system = bodies[0]["system"][0]["text"]
    assert "pytest -q" not in system and "<skill" not in system and "Be brief." in system
    # the fact learned at prompt 3 and the skill fired at prompt 5 arrive as reminders
    told = [m["content"][-1]["text"] for m in plain(bodies[-1])["messages"]
            if m["role"] == "user" and m["content"][-1]["type"] == "text"]   # the typed turns
    assert "<system-reminder>" in told[2] and "- always run pytest -q before committing" in told[2]
    assert '<skill name="mermaid-diagrams">' in told[4]
    assert sum("<system-reminder>" in t for t in told) == 2


def test_continue_reuses_the_stored_system_prompt(server, provider_env, project):
    server.anthropic(stream("anthropic_text"), stream("anthropic_text"))
    app, go = session_of(project, server)
    asyncio.run(go(["always run pytest -q before committing"]))
    session_id, history = app.session.id, list(app.session.messages)
    app.close()
    # a second process continuing the session: the fact is active now, but the system
    # prompt is the stored one, byte for byte
    again = build(project, Settings(model="anthropic:claude-sonnet-4-6", permission_mode="yes"),
                  session_id=session_id, history=history)

    async def second():
        try:
            assert await run_prompt(again, "next", fmt="quiet") == 0
        finally:
            await again.session.provider.aclose()

    asyncio.run(second())
    again.close()
    first, then = server.bodies()
    assert first["system"] == then["system"]
    assert plain(then["messages"][:len(first["messages"])]) == plain(first["messages"])


def test_the_date_moving_on_is_a_reminder_not_a_new_system_prompt(project, tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"text": "ok"}) + "\n")
    app = build(project, Settings(model=f"scripted:{script}"), learning=False)
    day = datetime.date(2026, 12, 1)
    system = reminders.system(app.session, today=day)
    assert "Today: 2026-12-01" in system
    assert reminders.reminder(app.session, today=day) == ""
    later = reminders.reminder(app.session, today=day + datetime.timedelta(days=1))
    assert "Today is now 2026-12-02." in later
    assert reminders.system(app.session, today=day + datetime.timedelta(days=1)) == system
    assert reminders.reminder(app.session, today=day + datetime.timedelta(days=1)) == ""
    app.close()
