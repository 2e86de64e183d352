"""Queued mid-turn prompts (seed 002, design.md §5): joining and delivery rules.

The queue itself, then the REPL's ``submit`` driving the real turn loop in-process with the
scripted provider: what was typed while a turn ran reaches the model as one user message at
the next pause, is one ``PromptTyped(queued=True)`` per line, and what is left when a turn
ends starts the next turn as one burst, with no second ``PromptTyped``."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from edgar.bus import Bus
from edgar.cli.asker import Asker, Screen
from edgar.cli.repl import Repl
from edgar.config import Settings
from edgar.core.queue import PromptQueue
from edgar.core.session import Session
from edgar.events import Event, PromptTyped, QueueDelivered, TurnFinished, TurnStarted
from edgar.providers.scripted import ScriptedProvider
from edgar.tools.permissions import PermissionGate
from edgar.tools.registry import default_tools


def test_drain_takes_every_line_in_order_once():
    q = PromptQueue()
    for line in ("a", "b", "c"):
        q.put(line)
    assert len(q) == 3
    assert q.drain() == ["a", "b", "c"]
    assert len(q) == 0 and q.drain() == []


def test_a_burst_is_the_lines_joined_by_newlines_nothing_added():
    assert PromptQueue.burst(["fix the test", "and use mermaid"]) == "fix the test\nand use mermaid"
    assert PromptQueue.burst(["one"]) == "one"
    assert PromptQueue.burst(["multi\nline", "two"]) == "multi\nline\ntwo"


# -- the REPL's submit against the real loop -----------------------------------------


class Said:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def say(self, text: str, style: str = "") -> None:
        self.lines.append((text, style))

    def __call__(self, event: Event) -> None:
        pass

    def activity(self) -> str:
        return ""


class Skills:
    """Records every surface the matcher is asked to scan."""

    def __init__(self) -> None:
        self.surfaces: list[str] = []

    def activate(self, surface: str) -> list[tuple[str, str]]:
        self.surfaces.append(surface)
        return []

    def carried(self) -> list[tuple[str, str]]:
        return []


@dataclass
class FakeApp:
    session: Session
    bus: Bus
    state: Path
    memory: Any = None
    redact: Any = staticmethod(lambda s: s)
    commits: Any = None   # auto-commit is not configured here

    @property
    def root(self) -> Path:  # @path attachments resolve against the project root
        return self.session.root


@pytest.fixture
def make(tmp_path: Path):
    def factory(lines: list[dict], mode: str = "yes"):
        script = tmp_path / f"script{len(list(tmp_path.glob('script*')))}.jsonl"
        script.write_text("".join(json.dumps(line) + "\n" for line in lines))
        record = tmp_path / "record.jsonl"
        provider = ScriptedProvider(script)
        provider._record = str(record)
        bus = Bus()
        said, screen = Said(), Screen()
        asker = Asker(said.say, screen)
        session = Session(root=tmp_path, settings=Settings(model=f"scripted:{script}"), bus=bus,
                          provider=provider, tools=default_tools(),
                          gate=PermissionGate(mode, asker.confirm), skills=Skills())
        events: list[Event] = []
        bus.subscribe(Event, events.append)
        repl = Repl(said, FakeApp(session, bus, tmp_path), asker, screen)
        return repl, events, record
    return factory


def requests(record: Path) -> list[dict]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def user_texts(message: dict) -> list[str]:
    return [b["text"] for b in message["content"] if b["type"] == "text"]


async def settle(repl: Repl) -> None:
    while repl.foreground is not None:
        await asyncio.wait([repl.foreground])


def typed(events: list[Event]) -> list[tuple[str, bool]]:
    return [(e.text, e.queued) for e in events if isinstance(e, PromptTyped)]


def test_lines_typed_during_a_tool_arrive_as_one_user_message_at_the_next_pause(make):
    repl, events, record = make([
        {"text": "working", "tool_calls": [{"name": "shell", "input": {"command": "sleep 0.4"}}]},
        {"text": "done"},
    ])

    async def scenario():
        await repl.submit("start")
        await asyncio.sleep(0.15)          # the shell tool is running
        assert repl.busy
        await repl.submit("also check b")
        await repl.submit("and c")
        assert len(repl.app.session.queue) == 2
        await settle(repl)

    asyncio.run(scenario())
    sent = requests(record)
    assert len(sent) == 2
    last = sent[1]["messages"][-1]
    assert last["role"] == "user"
    assert [b["type"] for b in last["content"]] == ["tool_result", "text"]
    assert user_texts(last) == ["also check b\nand c"]
    assert typed(events) == [("start", False), ("also check b", True), ("and c", True)]
    assert [e.count for e in events if isinstance(e, QueueDelivered)] == [2]
    assert repl.app.session.skills.surfaces == ["start", "also check b\nand c"]
    assert [type(e) for e in events].count(TurnStarted) == 1


def test_lines_left_when_the_turn_ends_start_the_next_turn_as_one_burst(make):
    repl, events, record = make([{"text": "first answer", "delay_s": 0.3},
                                 {"text": "second answer"}])

    async def scenario():
        await repl.submit("start")
        await asyncio.sleep(0.1)
        await repl.submit("x")
        await repl.submit("y")
        # what is left after the loop's last pause waits for the turn's end
        await settle(repl)

    asyncio.run(scenario())
    sent = requests(record)
    # the lines came in while the only model call streamed: the loop delivers them as a
    # follow-up in the same turn, or the REPL starts the next turn with them; both are one
    # burst, and there is no second PromptTyped
    assert user_texts(sent[-1]["messages"][-1]) == ["x\ny"]
    assert typed(events) == [("start", False), ("x", True), ("y", True)]
    assert repl.app.session.queue.drain() == []


def test_lines_queued_after_the_last_pause_start_the_next_turn_as_one_burst(make):
    repl, events, record = make([{"text": "first"}, {"text": "second"}])
    session = repl.app.session

    def type_late(event: Event) -> None:
        # the loop has drained for the last time; the turn's task has not ended yet
        if isinstance(event, TurnFinished) and session.turns == 1:
            session.queue.put("late one")
            session.queue.put("late two")

    repl.app.bus.subscribe(TurnFinished, type_late)

    async def scenario():
        await repl.submit("start")
        await settle(repl)

    asyncio.run(scenario())
    assert [type(e) for e in events].count(TurnStarted) == 2
    assert [e.count for e in events if isinstance(e, QueueDelivered)] == [2]
    sent = requests(record)
    assert len(sent) == 2
    assert user_texts(sent[1]["messages"][-1]) == ["late one\nlate two"]
    assert typed(events) == [("start", False)]   # no PromptTyped for the burst itself


def test_after_an_interrupt_queued_lines_come_back_unsent_and_are_not_typed_twice(make):
    repl, events, record = make([
        {"tool_calls": [{"name": "shell", "input": {"command": "sleep 5"}}]},
        {"text": "never"},
        {"text": "resent"},
    ])

    async def scenario():
        await repl.submit("start")
        await asyncio.sleep(0.2)
        await repl.submit("keep this")
        repl.cancel()
        await settle(repl)
        assert repl.default == "keep this"
        await repl.submit(repl.default)   # Enter on the given-back text
        await settle(repl)

    asyncio.run(scenario())
    outcomes = [e.outcome for e in events if isinstance(e, TurnFinished)]
    assert outcomes[0] == "cancelled" and outcomes.count("cancelled") == 1
    assert typed(events) == [("start", False), ("keep this", True)]
    assert user_texts(requests(record)[-1]["messages"][-1]) == ["keep this"]


def test_slash_commands_typed_mid_turn_run_as_commands(make):
    repl, events, record = make([{"text": "slow", "delay_s": 0.3}])

    async def scenario():
        await repl.submit("start")
        await asyncio.sleep(0.05)
        await repl.submit("/mode read-only")
        await repl.submit("/clear")
        await settle(repl)

    asyncio.run(scenario())
    assert repl.app.session.gate.mode == "read-only"
    assert typed(events) == [("start", False)]
    said = " ".join(text for text, _ in repl.renderer.lines)
    assert "/clear waits for the running turn" in said
    assert all("/mode" not in json.dumps(r) for r in requests(record))


def test_while_a_confirmation_is_pending_the_next_line_is_the_answer(make):
    repl, events, record = make([
        {"tool_calls": [{"name": "shell", "input": {"command": "echo hi"}}]},
        {"text": "ran it"},
    ], mode="ask")

    async def scenario():
        await repl.submit("run echo")
        for _ in range(100):
            if repl.asking:
                break
            await asyncio.sleep(0.01)
        assert repl.asking and repl.asking[0] == "shell"
        await repl.submit("please also do x")       # not an answer: given back, not queued
        assert repl.default == "please also do x" and len(repl.app.session.queue) == 0
        await repl.submit("y")
        await settle(repl)

    asyncio.run(scenario())
    assert typed(events) == [("run echo", False)]
    tool_result = requests(record)[1]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and "hi" in str(tool_result["content"])
