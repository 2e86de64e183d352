"""Slash commands: what is a command, and what each one does to the session."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from edgar.bus import Bus
from edgar.cli import slash
from edgar.cli.asker import Asker, Screen
from edgar.cli.repl import Repl
from edgar.config import Settings
from edgar.conversation import Message, TextBlock
from edgar.core.session import Session
from edgar.core.sessionlog import SessionLog, load
from edgar.events import Event, PromptTyped
from edgar.memory.store import MemoryStore
from edgar.providers.scripted import ScriptedProvider
from edgar.tools.permissions import PermissionGate
from edgar.tools.registry import default_tools


class Said:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, text: str, style: str = "") -> None:
        self.lines.append(text)

    def __call__(self, event: Event) -> None:
        pass

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class FakeApp:
    session: Session
    bus: Bus
    state: Path
    memory: Any = None
    root: Path | None = None
    commits: Any = None   # auto-commit is not configured here


@pytest.fixture
def repl(tmp_path: Path) -> Repl:
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"text": "hi"}) + "\n")
    bus = Bus()
    session = Session(root=tmp_path, settings=Settings(model=f"scripted:{script}"), bus=bus,
                      provider=ScriptedProvider(script), tools=default_tools(),
                      gate=PermissionGate("ask"))
    session.log = SessionLog(tmp_path / "sessions" / "s1.jsonl", lambda s: s)
    said = Said()
    screen = Screen()
    r = Repl(said, FakeApp(session, bus, tmp_path, root=tmp_path), Asker(said.say, screen),
             screen)
    yield r
    session.log.close()


def run(repl: Repl, line: str) -> str:
    repl.renderer.lines.clear()
    asyncio.run(repl.submit(line))
    return repl.renderer.text


@pytest.mark.parametrize("line, expected", [
    ("/help", True), ("/exit", True), ("/quit", True), ("/model openai:gpt-4.1", True),
    ("/nonsense", True),                 # unknown, but a command (said so), never a prompt
    ("/usr/bin/python is slow", False),  # a path: a prompt
    ("//literally a slash", False), ("hello /help", False), ("", False),
])
def test_what_is_a_command(line, expected):
    assert slash.is_command(line) is expected


def test_a_command_is_never_a_prompt(repl):
    typed: list[Event] = []
    repl.app.bus.subscribe(PromptTyped, typed.append)
    assert "unknown command /nonsense" in run(repl, "/nonsense")
    assert "/mode [NAME]" in run(repl, "/help")
    assert typed == [] and repl.foreground is None


def test_mode_shows_sets_and_refuses_unknown_modes(repl):
    assert "mode: ask" in run(repl, "/mode")
    run(repl, "/mode auto-edit")
    assert repl.app.session.gate.mode == "auto-edit"
    assert "unknown mode 'sideways'" in run(repl, "/mode sideways")
    assert repl.app.session.gate.mode == "auto-edit"


def test_model_switches_the_provider_or_says_why_not(repl, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"text": "x"}) + "\n")
    run(repl, f"/model scripted:{other}")
    assert repl.app.session.provider.path == other
    assert "PROVIDER:MODEL" in run(repl, "/model nonsense")
    assert repl.app.session.provider.path == other


def test_clear_starts_a_new_conversation_and_the_log_remembers_it(repl, tmp_path):
    session = repl.app.session
    session.append(Message("user", [TextBlock("old question")]))
    assert "new conversation" in run(repl, "/clear")
    assert session.messages == []
    session.append(Message("user", [TextBlock("fresh start")]))
    restored = load(tmp_path / "sessions" / "s1.jsonl").messages
    assert [m.text() for m in restored] == ["fresh start"]


def test_cost_reports_tokens_and_money(repl):
    repl.app.session.cost = 0.25
    assert "$0.2500" in run(repl, "/cost") and "0 in" in repl.renderer.text


def test_memory_lists_active_and_pending_facts(repl, tmp_path):
    assert "memory is not available" in run(repl, "/memory")
    store = MemoryStore(tmp_path / "memory.db", redact=lambda s: s)
    store.add("always run pytest with -q", "user-prompt")
    store.add("the API lives in api/", "distilled")
    repl.app.memory = store
    text = run(repl, "/memory")
    store.close()
    assert "active (1)" in text and "always run pytest with -q" in text
    assert "pending (1)" in text and "the API lives in api/" in text


def test_compact_and_skills_say_not_available_when_absent(repl):
    assert "compaction is not available" in run(repl, "/compact")
    assert "skills are not available" in run(repl, "/skills")
    assert "skills are not available" in run(repl, "/skill mermaid")


def test_compact_and_skills_use_the_duck_typed_objects(repl):
    calls: list[Any] = []

    class Compactor:
        async def compact(self, session, focus):
            calls.append(("compact", focus))

    class Skills:
        def list(self):
            return [("mermaid", "draw diagrams", 0.42), ("tests", "run tests", None)]

        def force(self, name):
            calls.append(("force", name))
            return name == "mermaid"

    repl.app.session.compactor = Compactor()
    repl.app.session.skills = Skills()

    async def compact():
        await repl.submit("/compact the parser")
        await asyncio.wait([repl.foreground])

    asyncio.run(compact())
    assert calls == [("compact", "the parser")]
    text = run(repl, "/skills")
    assert "mermaid" in text and "last score 0.42" in text and "run tests" in text
    assert "will be in the next model call" in run(repl, "/skill mermaid")
    assert "no skill 'nope'" in run(repl, "/skill nope")


def test_exit_asks_the_repl_to_leave(repl):
    run(repl, "/exit")
    assert repl.exiting


def test_a_command_file_is_a_prompt_with_its_expansion_attached(repl, tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    (tmp_path / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / ".claude" / "commands" / "hello.md").write_text(
        "---\ndescription: Say hello\n---\nGreet $ARGUMENTS warmly.\n")
    seen: list[Event] = []
    repl.app.bus.subscribe(Event, seen.append)

    async def scenario():
        await repl.submit("/hello the team")
        await repl.foreground

    asyncio.run(scenario())
    typed = [e.text for e in seen if type(e).__name__ == "PromptTyped"]
    attached = [e for e in seen if type(e).__name__ == "Attached"]
    assert typed == ["/hello the team"]
    assert attached[0].sources == ("/hello",) and attached[0].bodies == ("Greet the team warmly.",)
    assert "/hello" in run(repl, "/help") and "Say hello (claude)" in run(repl, "/help")
