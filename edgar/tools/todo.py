"""todo_write: the model's checklist for a long task (Claude Code's TodoWrite, same shape).

Guarantees:
- ``todos: [{content, status, activeForm}]`` exactly as Claude Code's TodoWrite takes it;
  ``status`` is ``pending``, ``in_progress`` or ``completed``. Each call replaces the list.
- The list lives in the session's ``TodoList`` (shown above the REPL prompt, and in ``-p``
  JSON as ``todos``); it never reaches the system prompt or a reminder (the prompt cache is
  untouched) and never becomes a fact: it is model text, as every tool argument is.
- Only the main agent keeps one: a subagent's call is refused, saying so.
"""

from __future__ import annotations

from typing import Any

from edgar.declared import Field
from edgar.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome
from edgar.tools.todo_list import MARKS, TodoItem


class TodoWriteArgs(ToolArgs):
    """Arguments of ``todo_write``."""

    todos: list[TodoItem] = Field(description="The whole updated list")


class TodoWrite(Tool):
    name = "todo_write"
    description = ("Keep a checklist for a task of several steps: send the whole updated "
                   "list each time (one item in_progress at a time, mark items completed as "
                   "soon as they are done). The user sees it.")
    Args = TodoWriteArgs
    access = "read"

    def summary(self, args: dict[str, Any]) -> str:
        given = args.get("todos")
        todos: list[Any] = given if isinstance(given, list) else []
        done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed")
        return f"todo_write {done}/{len(todos)} done"

    async def run(self, args: TodoWriteArgs, ctx: ToolContext) -> ToolOutcome:
        if ctx.todos is None:
            raise ToolFailure("validation", "the todo list belongs to the main agent; a "
                              "subagent reports its progress in its answer")
        ctx.todos.items = list(args.todos)
        counts = {s: sum(t.status == s for t in args.todos) for s in MARKS}
        return ToolOutcome(f"todo list updated: {counts['completed']} completed, "
                           f"{counts['in_progress']} in progress, {counts['pending']} pending")
