"""Running one tool call: validate, ask permission, run, and report the shape of the result.

Guarantees:
- Exactly one ``ToolProposed`` and one ``ToolFinished`` per call, whatever happens.
- A failure's text goes only into the returned ``ToolResultBlock``; the bus sees an
  ``ErrorRecord`` whose fields the harness chose.
- Cancellation is reported (kind ``cancelled``) and then re-raised, so the turn stops.
- The session's hooks (``ctx.guard``) are asked before the permission check (PreToolUse:
  refuse, allow, ask, rewrite the arguments, which are then validated again) and after a
  call that ran (PostToolUse/PostToolUseFailure, with its result); what they say for the
  model goes to ``ctx.notes``, a ``continue: false`` to ``ctx.stopped`` (ADR-0100).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import time
from collections.abc import Callable

from edgar.conversation import ToolResultBlock
from edgar.events import (
    ErrorKind,
    ErrorRecord,
    Event,
    ToolFinished,
    ToolOutput,
    ToolProposed,
    Where,
)
from edgar.providers.base import ToolCall
from edgar.tools.base import Tool, ToolContext, ToolFailure, ToolOutcome, resolve


def _os_kind(exc: OSError) -> ErrorKind:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return "not_found"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission_denied"
    return "io_error"


class _Progress:
    """Forwards a call's output to the display sink; publishes counts (never text)."""

    EVERY = 0.25   # seconds between ToolOutput events

    def __init__(self, call_id: str, tool: str, ctx: ToolContext,
                 publish: Callable[[Event], None], where: Where):
        self.call_id, self.tool, self.sink = call_id, tool, ctx.on_output
        self.publish, self.where = publish, where
        self.lines = self.size = 0
        self.last = 0.0

    def feed(self, text: str) -> None:
        if not text:
            return
        self.lines += text.count("\n")
        self.size += len(text.encode("utf-8", "replace"))
        if self.sink is not None:
            self.sink(self.call_id, text)
        now = time.monotonic()
        if now - self.last >= self.EVERY:
            self.last = now
            self.publish(ToolOutput(call_id=self.call_id, tool=self.tool, lines=self.lines,
                                    size=self.size, **self.where))


async def _run_recorded(tool: Tool, parsed: object, ctx: ToolContext,
                        path: object) -> ToolOutcome:
    """Run the tool, telling the checkpoint recorder first (and after a shell command)."""
    guard = ctx.checkpoint
    if guard is None or tool.access not in ("write", "shell"):
        return await tool.run(parsed, ctx)
    if tool.access == "write":
        if not (isinstance(path, str) and path):
            return await tool.run(parsed, ctx)
        guard.before_write(path)
        try:
            return await tool.run(parsed, ctx)
        finally:   # what the write left: undo tells the person's later changes from it
            guard.after_write(path)
    await guard.before_shell()
    try:
        return await tool.run(parsed, ctx)
    finally:
        with contextlib.suppress(Exception):  # listing changes must never fail the call
            await guard.after_shell()


async def run_tool(call: ToolCall, tools: dict[str, Tool], ctx: ToolContext,
                   publish: Callable[[Event], None],
                   where: Where) -> tuple[ToolResultBlock, ToolFinished]:
    args = call.input if isinstance(call.input, dict) else {}
    publish(ToolProposed(call_id=call.id, tool=call.name, args=args, **where))
    start = time.monotonic()
    files: tuple[str, ...] = ()
    error: ErrorRecord | None = None
    tool = tools.get(call.name)
    try:
        if tool is None:
            raise ToolFailure("validation", f"unknown tool {call.name!r}; available: "
                              f"{', '.join(sorted(tools))}")
        if call.input is None:
            raise ToolFailure("validation", "the tool arguments were not valid JSON")
        parsed = tool.parse(call.input)
        path = getattr(parsed, "path", None)
        if isinstance(path, str) and path:
            resolve(ctx, path)  # outside the root: refused before asking, never ask-then-deny
        hook = None
        if ctx.guard is not None:   # PreToolUse hooks, ahead of the permission check (ADR-0100)
            verdict = await ctx.guard.before_tool(call.id, tool.name, args, where)
            ctx.notes.extend(verdict.context)
            if verdict.stop is not None:
                ctx.stopped = verdict.stop
                raise ToolFailure("denied", f"not run: a PreToolUse hook stopped the turn "
                                  f"({verdict.stop or 'no reason given'})")
            if verdict.refusal is not None:   # program "hook": who said no, for the person
                raise ToolFailure("denied", verdict.refusal, program="hook")
            if verdict.args is not None:   # updatedInput: the call as the hook rewrote it
                args = verdict.args
                parsed = tool.parse(args)
                path = getattr(parsed, "path", None)
                if isinstance(path, str) and path:
                    resolve(ctx, path)
            hook = verdict.permission
        if ctx.permission is not None:
            refusal = await ctx.permission.check(tool.name, tool.access, tool.summary(args),
                                                 args, hook=hook)
            if refusal:
                raise ToolFailure("denied", refusal)
        ctx.output = _Progress(call.id, call.name, ctx, publish, where).feed
        try:
            outcome = await _run_recorded(tool, parsed, ctx, path)
        finally:
            ctx.output = None
        files = outcome.files
        block = ToolResultBlock(call.id, outcome.content, images=outcome.images)
    except ToolFailure as exc:
        error = ErrorRecord(call.name, exc.kind, exc.exit_code, exc.program)
        block = ToolResultBlock(call.id, exc.message, is_error=True)
    except OSError as exc:
        error = ErrorRecord(call.name, _os_kind(exc))
        block = ToolResultBlock(call.id, f"{type(exc).__name__}: {exc.strerror or exc}", True)
    except asyncio.CancelledError:
        finished = ToolFinished(call_id=call.id, tool=call.name, ok=False,
                                duration=time.monotonic() - start,
                                error=ErrorRecord(call.name, "cancelled"), **where)
        publish(finished)
        raise
    except Exception as exc:  # a bug in a tool must not end the session
        error = ErrorRecord(call.name, "internal")
        block = ToolResultBlock(call.id, f"internal error in {call.name}: {type(exc).__name__}",
                                is_error=True)
    finished = ToolFinished(call_id=call.id, tool=call.name, ok=error is None, files=files,
                            duration=time.monotonic() - start, error=error, **where)
    publish(finished)
    if ctx.guard is not None and tool is not None and ctx.stopped is None and (
            error is None or error.kind not in ("denied", "validation")):
        after = await ctx.guard.after_tool(call.id, tool.name, args, block, finished, where)
        ctx.notes.extend(after.context)
        if after.stop is not None:
            ctx.stopped = after.stop
    return block, finished
