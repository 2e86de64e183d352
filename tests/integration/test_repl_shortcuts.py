"""`!cmd` and `# text` (issue 25, item 8): a command run in the sandbox without a model call,
its output attached to the next request; a typed fact saved through the learner, said, without
a model call. In the REPL (through `submit`) and in `-p`."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script
from unit.test_slash import Said

from edgar.bus import Bus
from edgar.cli.asker import Asker, Screen
from edgar.cli.repl import Repl
from edgar.config import Settings
from edgar.core.session import Session
from edgar.core.sessionlog import SessionLog
from edgar.events import Event, PromptTyped, TurnStarted
from edgar.providers.scripted import ScriptedProvider
from edgar.tools.permissions import PermissionGate
from edgar.tools.registry import default_tools
from edgar.tools.rules import parse_rule

LEARNING = importlib.util.find_spec("edgar.learning") is not None


@dataclass
class App:
    session: Session
    bus: Bus
    state: Path
    memory: Any = None
    root: Path | None = None
    learning: Any = None
    commits: Any = None   # auto-commit is not configured here


def repl_for(tmp_path: Path, lines: list[dict], learning: Any = None, deny=()) -> Repl:
    root = make_project(tmp_path / "proj", {"notes.txt": "remember the milk\n"})
    script = write_script(tmp_path / "s.jsonl", lines)
    said = Said()
    screen = Screen()
    bus = Bus()
    session = Session(root=root, settings=Settings(model=f"scripted:{script}"), bus=bus,
                      provider=ScriptedProvider(script), tools=default_tools(),
                      gate=PermissionGate("yes", root=root, deny=[parse_rule(d) for d in deny]))
    session.log = SessionLog(tmp_path / "sessions" / "s1.jsonl", lambda s: s)
    return Repl(said, App(session, bus, tmp_path, root=root, learning=learning),
                Asker(said.say, screen), screen)


def test_bang_runs_without_a_model_call_and_the_next_request_carries_it(tmp_path, monkeypatch):
    record = tmp_path / "req.jsonl"
    monkeypatch.setenv("EDGAR_SCRIPTED_RECORD", str(record))
    repl = repl_for(tmp_path, [{"text": "It says milk."}])
    seen: list[Event] = []
    repl.app.bus.subscribe(Event, seen.append)

    async def go():
        await repl.submit("!cat notes.txt; echo done >&2")
        await asyncio.wait([repl.foreground])
        assert not record.exists()                        # no model call for the command
        await repl.submit("what does it say?")
        await asyncio.wait([repl.foreground])
    asyncio.run(go())
    assert "$ cat notes.txt; echo done >&2" in repl.renderer.text
    assert "remember the milk" in repl.renderer.text and "(exit 0)" in repl.renderer.text
    [request] = recorded(record)
    content = request["messages"][0]["content"]
    assert content[0]["text"] == "what does it say?"
    assert content[1]["text"].startswith("<bash-input>cat notes.txt; echo done >&2</bash-input>")
    assert "remember the milk" in content[1]["text"] and "[exit 0]" in content[1]["text"]
    typed = [e.text for e in seen if isinstance(e, PromptTyped)]
    assert typed == ["what does it say?"]              # the command is never typed text
    assert sum(isinstance(e, TurnStarted) for e in seen) == 1


def test_bang_runs_in_the_sandbox_and_deny_rules_hold(tmp_path):
    repl = repl_for(tmp_path, [], deny=["shell(rm *)"])

    async def go(line):
        await repl.submit(line)
        await asyncio.wait([repl.foreground])
    config = repl.app.session.root / ".git" / "config"
    config.write_text("[core]\n")
    asyncio.run(go("!echo '[core] hooksPath = /tmp' >> .git/config"))
    assert config.read_text() == "[core]\n"            # the sandbox's protected paths hold
    assert "(exit 1)" in repl.renderer.text
    asyncio.run(go("!rm notes.txt"))
    assert "refused by the deny rule `shell(rm *)`" in repl.renderer.text
    assert (repl.app.session.root / "notes.txt").exists()


def test_hash_without_learning_says_so_and_sends_nothing(tmp_path):
    repl = repl_for(tmp_path, [])
    seen: list[Event] = []
    repl.app.bus.subscribe(Event, seen.append)
    asyncio.run(repl.submit("# use black for formatting"))
    assert "learning is not installed" in repl.renderer.text
    assert seen == [] and repl.foreground is None


def test_hash_with_learning_is_one_typed_event_and_no_turn(tmp_path):
    repl = repl_for(tmp_path, [], learning=object())
    seen: list[Event] = []
    repl.app.bus.subscribe(Event, seen.append)
    asyncio.run(repl.submit("# use black"))
    assert [(type(e), e.text, e.remember) for e in seen] == [
        (PromptTyped, "# use black", True)]
    assert repl.foreground is None and repl.app.session.provider.cursor == 0


@pytest.mark.skipif(not LEARNING, reason="the fact is stored by edgar.learning")
def test_the_learner_saves_exactly_the_text_after_the_hash(tmp_path):
    from edgar.learning.learner import Learner, remembered
    from edgar.memory.store import MemoryStore

    store = MemoryStore(tmp_path / "m.db", redact=lambda s: s)
    Learner(store)(PromptTyped(text="# use black", remember=True, session_id="s"))
    Learner(store)(PromptTyped(text="# use ruff", remember=True, depth=1))   # never at depth 1
    Learner(store)(PromptTyped(text="use ruff"))                              # no directive
    assert [(f.text, f.provenance) for f in store.list("active")] == [("use black", "user-prompt")]
    assert remembered("#   ") is None and remembered("# a\nb") == "a b"


@pytest.mark.skipif(not LEARNING, reason="the fact is stored by edgar.learning")
def test_p_hash_remembers_and_says_so_without_a_model_call(tmp_path):
    root = make_project(tmp_path / "proj")
    home = tmp_path / "home"
    script = write_script(tmp_path / "s.jsonl", [])      # any model call would fail
    done = run_edgar(["-p", "# use black for formatting", "--model", f"scripted:{script}"],
                     root, edgar_env(home))
    assert done.returncode == 0, done.stderr
    assert "remembered: use black for formatting" in done.stderr
    listed = run_edgar(["memory", "list"], root, edgar_env(home))
    assert "use black for formatting" in listed.stdout


def test_p_bang_prints_the_output_and_its_exit_code(tmp_path):
    root = make_project(tmp_path / "proj", {"a.txt": "alpha\n"})
    script = write_script(tmp_path / "s.jsonl", [])
    done = run_edgar(["-p", "!cat a.txt", "--model", f"scripted:{script}"], root,
                     edgar_env(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "alpha\n" and "edgar: exit 0" in done.stderr
    failed = run_edgar(["-p", "!cat missing.txt", "--model", f"scripted:{script}"], root,
                       edgar_env(tmp_path / "home"))
    assert failed.returncode == 1 and "exit 1" in failed.stderr
    json.dumps(done.stdout)
