"""Running one tool call: validate, ask permission, run, and report the shape of the result.

Guarantees:
- Exactly one ``ToolProposed`` and one ``ToolFinished`` per call, whatever happens.
- A failure's text goes only into the returned ``ToolResultBlock``; the bus sees an
  ``ErrorRecord`` whose fields the harness chose.
- Cancellation is reported (kind ``cancelled``) and then re-raised, so the turn stops.
"""

from __future__ import annotations

import asyncio
import errno
import time
from typing import Callable

from pydantic import ValidationError

from edgar.conversation import ToolResultBlock
from edgar.events import ErrorRecord, Event, ToolFinished, ToolProposed
from edgar.providers.base import ToolCall
from edgar.tools.base import Tool, ToolContext, ToolFailure, validation_text


def _os_kind(exc: OSError) -> str:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return "not_found"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission_denied"
    return "io_error"


async def run_tool(call: ToolCall, tools: dict[str, Tool], ctx: ToolContext,
                   publish: Callable[[Event], None], where: dict) -> tuple[ToolResultBlock, ToolFinished]:
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
        try:
            parsed = tool.Args.model_validate(call.input)
        except ValidationError as exc:
            raise ToolFailure("validation", validation_text(exc)) from None
        if ctx.permission is not None:
            refusal = await ctx.permission.check(tool.name, tool.access, tool.summary(call.input))
            if refusal:
                raise ToolFailure("denied", refusal)
        outcome = await tool.run(parsed, ctx)
        files = outcome.files
        block = ToolResultBlock(call.id, outcome.content)
    except ToolFailure as exc:
        error = ErrorRecord(call.name, exc.kind, exc.exit_code, exc.program)  # type: ignore[arg-type]
        block = ToolResultBlock(call.id, exc.message, is_error=True)
    except OSError as exc:
        error = ErrorRecord(call.name, _os_kind(exc))  # type: ignore[arg-type]
        block = ToolResultBlock(call.id, f"{type(exc).__name__}: {exc.strerror or exc}", True)
    except asyncio.CancelledError:
        finished = ToolFinished(call_id=call.id, tool=call.name, ok=False,
                                duration=time.monotonic() - start,
                                error=ErrorRecord(call.name, "cancelled"), **where)
        publish(finished)
        raise
    except Exception as exc:  # a bug in a tool must not end the session
        error = ErrorRecord(call.name, "internal")  # type: ignore[arg-type]
        block = ToolResultBlock(call.id, f"internal error in {call.name}: {type(exc).__name__}",
                                is_error=True)
    finished = ToolFinished(call_id=call.id, tool=call.name, ok=error is None, files=files,
                            duration=time.monotonic() - start, error=error, **where)
    publish(finished)
    return block, finished
