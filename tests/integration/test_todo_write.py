"""todo_write (issue 25, item 6): Claude Code's TodoWrite shape, a live checklist above the REPL
prompt and in -p JSON; never a fact, never a change to the system prompt."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script

from edgar.cli.prompt import Status
from edgar.tools.base import ToolContext, ToolFailure
from edgar.tools.todo import TodoWrite
from edgar.tools.todo_list import TodoList

TODOS = [{"content": "Always run the tests", "status": "completed",
          "activeForm": "Running the tests"},
         {"content": "Fix the parser", "status": "in_progress", "activeForm": "Fixing the parser"},
         {"content": "Update the changelog", "status": "pending",
          "activeForm": "Updating the changelog"}]


def test_p_json_carries_the_list_and_the_prompt_never_changes(tmp_path):
    root = make_project(tmp_path / "proj")
    record = tmp_path / "req.jsonl"
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "todo_write", "input": {"todos": TODOS[:2]}}]},
        {"tool_calls": [{"name": "todo_write", "input": {"todos": TODOS}}]},
        {"text": "Working on it."}])
    home = tmp_path / "home"
    done = run_edgar(["-p", "fix the parser", "--model", f"scripted:{script}",
                      "--output-format", "json"], root,
                     edgar_env(home, EDGAR_SCRIPTED_RECORD=str(record)))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["todos"] == TODOS
    requests = recorded(record)
    assert len({r["system"] for r in requests}) == 1       # the system prompt never moved
    assert "Fix the parser" not in requests[-1]["system"]
    result = requests[1]["messages"][-1]["content"][0]["content"]
    assert result == "todo list updated: 1 completed, 1 in progress, 0 pending"
    memory = run_edgar(["memory", "list"], root, edgar_env(home))
    assert "Always run the tests" not in memory.stdout       # model text: never a fact


def test_the_checklist_is_shown_above_the_prompt():
    todos = TodoList()
    asyncio.run(TodoWrite().run(TodoWrite.Args.model_validate({"todos": TODOS}),
                                ToolContext(root=__import__("pathlib").Path("."), todos=todos)))
    session = SimpleNamespace(todos=todos, model_name="scripted:x", cost_known=True, cost=0.0,
                              gate=SimpleNamespace(mode="ask"), queue=[])
    host = SimpleNamespace(app=SimpleNamespace(session=session), busy=False, asking=None,
                           renderer=SimpleNamespace(queued=[], activity=lambda: ""))
    shown = "".join(text for _, text in Status(host).toolbar())
    assert shown.splitlines()[:3] == [" ☑ Always run the tests", " ◐ Fixing the parser",
                                      " ☐ Update the changelog"]


def test_bad_shapes_and_subagents_are_refused():
    with pytest.raises(ToolFailure, match="status"):
        TodoWrite().parse({"todos": [{"content": "x", "status": "doing", "activeForm": "x"}]})
    with pytest.raises(ToolFailure, match="main agent"):
        asyncio.run(TodoWrite().run(TodoWrite.Args.model_validate({"todos": TODOS}),
                                    ToolContext(root=__import__("pathlib").Path("."))))
