"""task: hand a self-contained job to a subagent.

Guarantees: the subagent has its own message history and its events carry depth + 1; its
prompt was written by the model, so it never becomes a ``PromptTyped``; only its final text
comes back, as this tool's result.
"""

from __future__ import annotations

from typing import Any

from edgar.declared import Field
from edgar.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome


class TaskArgs(ToolArgs):
    """Arguments of ``task``."""

    prompt: str = Field(description="Everything the subagent needs to do the job")
    description: str | None = Field(None, description="A few words for the person")


class Task(Tool):
    name = "task"
    description = ("Start a subagent with its own context for a self-contained job (search, "
                   "investigation, a focused change). Returns its final answer.")
    Args = TaskArgs
    access = "task"

    def summary(self, args: dict[str, Any]) -> str:
        return f"task {args.get('description') or str(args.get('prompt', ''))[:80]}"

    async def run(self, args: TaskArgs, ctx: ToolContext) -> ToolOutcome:
        if ctx.run_subagent is None:
            raise ToolFailure("denied", "subagents cannot start further subagents at this depth")
        return ToolOutcome(await ctx.run_subagent(args.prompt, args.description or ""))
