"""exit_plan_mode: in plan mode, the model hands its plan to the person (Claude Code's
ExitPlanMode).

Guarantees: the tool writes and runs nothing. Outside plan mode it is a ``validation``
failure saying so. In plan mode it calls the turn's ``ToolContext.plan``, which shows the plan
to the person (the REPL asks y/n; ``-p`` makes it the result) and returns what the model is
told: approved (and the mode it goes on in) or not yet.
"""

from __future__ import annotations

from typing import Any

from edgar.declared import Field
from edgar.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome


class ExitPlanModeArgs(ToolArgs):
    """Arguments of ``exit_plan_mode``."""

    plan: str = Field(description="The plan, in Markdown: what you will change, where and how, "
                      "step by step", min_length=1)


class ExitPlanMode(Tool):
    name = "exit_plan_mode"
    description = ("In plan mode only: present your finished plan to the user for approval. "
                   "Call it once the plan is complete, instead of making changes.")
    Args = ExitPlanModeArgs
    access = "read"

    def summary(self, args: dict[str, Any]) -> str:
        return "exit_plan_mode (the plan)"

    async def run(self, args: ExitPlanModeArgs, ctx: ToolContext) -> ToolOutcome:
        if ctx.plan is None:
            raise ToolFailure("validation", "not in plan mode: there is no plan to present; "
                              "go on with the task")
        return ToolOutcome(await ctx.plan(args.plan))
