"""Plan mode (issue 25, item 5): read-only tools only, a plan the person sees; in the REPL `y`
goes back to the previous mode and the turn goes on, `n` keeps planning; in `-p` the plan is
the result and nothing is written or run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from support.project import edgar_env, make_project, recorded, run_edgar, write_script
from unit.test_slash import FakeApp, Said

from edgar.bus import Bus
from edgar.cli.asker import Asker, Screen
from edgar.cli.repl import Repl
from edgar.config import Settings
from edgar.core.session import Session
from edgar.core.sessionlog import SessionLog
from edgar.providers.scripted import ScriptedProvider
from edgar.tools.permissions import PermissionGate
from edgar.tools.registry import default_tools

PLAN = "1. Add `greet()` to app.py\n2. Call it from main"
SCRIPT = [
    {"tool_calls": [{"name": "read", "input": {"path": "app.py"}}]},
    {"tool_calls": [{"name": "write", "input": {"path": "app.py", "content": "changed"}},
                    {"name": "shell", "input": {"command": "touch made-by-shell"}}]},
    {"tool_calls": [{"name": "exit_plan_mode", "input": {"plan": PLAN}}]},
    {"tool_calls": [{"name": "write", "input": {"path": "app.py", "content": "def greet(): ..."}}]},
    {"text": "Done."},
]


def test_p_plan_mode_returns_the_plan_and_changes_nothing(tmp_path):
    root = make_project(tmp_path / "proj", {"app.py": "print('hi')\n"})
    record = tmp_path / "req.jsonl"
    script = write_script(tmp_path / "s.jsonl", SCRIPT)
    done = run_edgar(["-p", "add a greeting", "--model", f"scripted:{script}",
                      "--permission-mode", "plan", "--output-format", "json"], root,
                     edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record)))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["result"] == PLAN and out["plan"] == PLAN
    assert (root / "app.py").read_text() == "print('hi')\n"
    assert not (root / "made-by-shell").exists()
    requests = recorded(record)
    assert len(requests) == 3                  # the turn ended with the plan: no fourth call
    refused = requests[2]["messages"][-1]["content"]
    assert all(r["is_error"] and "not allowed in plan mode" in r["content"] for r in refused)
    assert "Plan mode is on" in requests[0]["messages"][0]["content"][-1]["text"]
    text = run_edgar(["-p", "add a greeting", "--model",
                      f"scripted:{write_script(tmp_path / 't.jsonl', SCRIPT)}",
                      "--permission-mode", "plan"], root, edgar_env(tmp_path / "home"))
    assert text.stdout.strip().endswith(PLAN)


def repl_for(tmp_path: Path, mode: str = "yes") -> Repl:
    root = make_project(tmp_path / "proj", {"app.py": "print('hi')\n"})
    script = write_script(tmp_path / "s.jsonl", SCRIPT)
    said = Said()
    screen = Screen()
    asker = Asker(said.say, screen)
    bus = Bus()
    session = Session(root=root, settings=Settings(model=f"scripted:{script}"), bus=bus,
                      provider=ScriptedProvider(script), tools=default_tools(),
                      gate=PermissionGate(mode, asker.confirm, root=root), planner=asker)
    session.log = SessionLog(tmp_path / "sessions" / "s1.jsonl", lambda s: s)
    return Repl(said, FakeApp(session, bus, tmp_path, root=root), asker, screen)


async def _until_asked(repl: Repl) -> None:
    for _ in range(500):
        if repl.asking is not None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no question was asked")


def test_repl_y_approves_the_plan_goes_back_to_the_previous_mode_and_goes_on(tmp_path):
    repl = repl_for(tmp_path)

    async def go():
        await repl.submit("/plan")
        assert repl.app.session.gate.mode == "plan"
        await repl.submit("add a greeting")
        await _until_asked(repl)
        await repl.submit("y")
        await asyncio.wait([repl.foreground])
    asyncio.run(go())
    gate = repl.app.session.gate
    assert gate.mode == "yes"                              # the mode /plan left
    assert (repl.app.session.root / "app.py").read_text() == "def greet(): ..."
    assert "1. Add `greet()` to app.py" in repl.renderer.text
    assert "permission mode back to yes" in repl.renderer.text


def test_repl_n_keeps_planning_and_the_turn_ends_with_the_plan(tmp_path):
    repl = repl_for(tmp_path, mode="auto-edit")

    async def go():
        await repl.submit("/mode plan")
        await repl.submit("add a greeting")
        await _until_asked(repl)
        await repl.submit("n")
        await asyncio.wait([repl.foreground])
        return repl.foreground
    asyncio.run(go())
    session = repl.app.session
    assert session.gate.mode == "plan" and session.gate.before_plan == "auto-edit"
    assert (session.root / "app.py").read_text() == "print('hi')\n"
    told = session.messages[-1].content[0]
    assert told.tool_use_id and "has not approved" in told.content
    assert session.provider.cursor == 3                   # no call after the plan
    asyncio.run(repl.submit("/plan"))
    assert session.gate.mode == "auto-edit"               # /plan again leaves plan mode


def test_exit_plan_mode_outside_plan_mode_is_a_clear_error(tmp_path):
    from edgar.tools.base import ToolContext, ToolFailure
    from edgar.tools.plan import ExitPlanMode, ExitPlanModeArgs

    try:
        asyncio.run(ExitPlanMode().run(ExitPlanModeArgs(plan="x"), ToolContext(root=tmp_path)))
    except ToolFailure as exc:
        assert exc.kind == "validation" and "not in plan mode" in exc.message
    else:
        raise AssertionError("exit_plan_mode ran outside plan mode")
