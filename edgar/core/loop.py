"""The turn loop: context → model stream → tool calls → results → repeat.

Guarantees:
- ``TurnStarted`` and ``TurnFinished`` fire exactly once per turn (outcome ``ok``, ``error``,
  ``cancelled`` or ``blocked``), whatever the provider, the tools or the person do.
- The person's UserPromptSubmit hooks are asked by the CLI (``screen_prompt``) before it
  publishes the line's ``PromptTyped``; a refused line becomes ``blocked_turn``: TurnStarted,
  a Notice, TurnFinished(outcome ``blocked``) — never a PromptTyped, so never learned or
  logged (ADR-0077). ``run_turn(screened=True)`` does not ask again.
- Streamed text is kept when a turn is cancelled or the provider fails mid-stream: it is
  appended to the conversation (and so to the session log) before the turn ends.
- Every ``tool_use`` in the conversation gets a ``tool_result``, even on cancellation, so
  the conversation stays valid for the next request.
- Lines queued while the turn runs are delivered at the next pause (after tool results,
  before the next model call) as one burst.
- The loop never constructs a ``PromptTyped``; the CLI does, before it calls ``run_turn``.
- A request the provider refuses as longer than the model's context window, before any
  output, is compacted once (a visible summary, said in a Notice) and sent again; a second
  refusal, or nothing to compact, ends the turn ``error`` as any provider failure does.
- What the person's hooks add for the model (ADR-0100) travels as one ``<system-reminder>``
  block: SessionStart's and UserPromptSubmit's with the prompt, PreToolUse's and
  PostToolUse's after the step's tool results; a Stop/SubagentStop hook that blocks is an
  ``after_stop`` like verify (at every depth); a hook's ``continue: false`` ends the turn
  (outcome ``error``, kind ``denied``) with every open ``tool_use`` answered.
- Tool calls the client makes for the turn (``expand``: a custom command's ``!`cmd```) run
  inside it, after the prompt hooks and before the first model call, through the same
  harness as the model's (``_caller``), and count among the turn's tools.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from edgar.conversation import (
    Attachment,
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from edgar.core import reminders, stops
from edgar.core.harness import run_tool
from edgar.core.model_call import model_call
from edgar.core.reply import Reply
from edgar.core.session import Session, new_id
from edgar.core.turn import Turn, TurnResult
from edgar.events import (
    ErrorRecord,
    Notice,
    QueueDelivered,
    SkillsActivated,
    TurnFinished,
    TurnStarted,
    Where,
)
from edgar.providers import server_tools
from edgar.providers.base import Finished, ModelRequest, ProviderError, ToolCall
from edgar.tools.base import ToolContext, added_roots, clip
from edgar.tools.modes import AFTER_PLAN, PLAN

Append = Callable[[Message], None]
# (tool name, arguments) -> its result: a tool call the client makes inside the turn
RunCall = Callable[[str, dict[str, Any]], Awaitable[ToolResultBlock]]
# (run a call, turn id) -> attachments for the turn's user message (a custom command's body)
Expand = Callable[[RunCall, str], Awaitable[list[Attachment]]]


def _where(session: Session, turn: Turn) -> Where:
    return {"session_id": session.id, "turn_id": turn.id, "depth": turn.depth}


def user_message(text: str, attachments: list[Attachment], reminder: str = "",
                 notes: list[str] | None = None) -> Message:
    """The user message a turn sends: the typed text, then each attachment as the model sees
    it (bench/attach_bytes.py measures its size)."""
    blocks: list[Block] = [TextBlock(text)] if text.strip() else []
    for source, body in attachments:
        if isinstance(body, ImageBlock):   # the picture itself, named so the model can refer to it
            blocks += [TextBlock(f'<image path="{source.lstrip("@")}">'), body]
            continue
        if source.startswith("!"):  # a command the person ran (cli/bang.py): as recorded
            blocks.append(TextBlock(str(body)))
            continue
        if source.startswith("/"):  # a custom command's expansion (cli/custom_commands.py)
            blocks.append(TextBlock(f'<command name="{source[1:]}">\n{body}\n</command>'))
            continue
        tag = "stdin" if source == "stdin" else "file"
        attr = "" if source == "stdin" else f' path="{source.lstrip("@")}"'
        blocks.append(TextBlock(f"<{tag}{attr}>\n{body}\n</{tag}>"))
    if notes:      # what the person's hooks added (SessionStart, UserPromptSubmit)
        blocks.append(TextBlock(hook_notes(notes)))
    if reminder:   # last: after what the person sent, and after the previous cache breakpoint
        blocks.append(TextBlock(reminder))
    return Message("user", blocks or [TextBlock("")])


async def screen_prompt(session: Session, text: str) -> str | None:
    """Ask the person's UserPromptSubmit hooks about ``text``: the refusal, or None."""
    if session.guard is None:
        return None
    return await session.guard.before_prompt(text)


def blocked_turn(session: Session, turn_id: str, refusal: str) -> TurnResult:
    """A turn a prompt hook refused: it opens and closes, and nothing else happens."""
    where = _where(session, Turn(id=turn_id, depth=0))
    session.bus.publish(TurnStarted(model=session.model_name, **where))
    session.bus.publish(Notice(level="warning", message=refusal, session_id=session.id))
    error = ErrorRecord("hook", "denied")
    session.bus.publish(TurnFinished(outcome="blocked", error=error, **where))
    return TurnResult(id=turn_id, outcome="blocked", text="", usage=Usage(), cost=0.0,
                      duration=0.0, steps=0, tools=(), files=(), error_message=refusal,
                      error=error)


async def run_turn(session: Session, text: str, attachments: list[Attachment] | None = None,
                   depth: int = 0, messages: list[Message] | None = None,
                   turn_id: str | None = None, expand: Expand | None = None,
                   screened: bool = False) -> TurnResult:
    """Run one turn for ``text`` (already published as PromptTyped by the caller at depth 0).

    ``turn_id`` is the id the caller already gave the turn's ``PromptTyped``; without one
    the turn gets a fresh id. ``expand`` (a custom command's ``!`cmd``` lines) runs inside
    the turn, after the prompt hooks and before the first model call, with tool calls
    through the harness; what it returns joins the attachments.
    """
    if depth == 0 and not screened:
        refusal = await screen_prompt(session, text)
        if refusal is not None:  # a UserPromptSubmit hook said no: nothing is sent or kept
            return blocked_turn(session, turn_id or new_id(), refusal)
    own_history = messages is None
    history = session.messages if messages is None else messages
    turn = Turn(id=turn_id or new_id(), depth=depth)
    where = _where(session, turn)
    publish = session.bus.publish
    publish(TurnStarted(model=session.model_name, **where))

    def append(message: Message) -> None:
        if own_history:
            session.append(message)
        else:
            history.append(message)

    try:
        if expand is not None:
            attachments = [*(attachments or []), *await expand(_caller(session, turn, where),
                                                               turn.id)]
        told = ""
        notes: list[str] = []
        if depth == 0:
            if session.skills is not None:  # fired in an earlier turn: still in context
                turn.skills.extend(session.skills.carried())
            fired = _activate_skills(session, turn, text, where)
            told = reminders.reminder(session, fired)
            if session.gate.mode == PLAN:   # said with every prompt while it holds
                told = f"{told}\n{reminders.PLAN_MODE}" if told else reminders.PLAN_MODE
            if session.guard is not None:
                notes = session.guard.prompt_context()
        append(user_message(text, attachments or [], told, notes))
        await _steps(session, turn, history, append, where)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        turn.outcome = "cancelled"
        _keep_partial(turn, history, append, note="[interrupted by the user]")
    except ProviderError as exc:
        turn.outcome = "error"
        turn.error = ErrorRecord("provider", "provider_http", exc.status)
        turn.error_message = exc.message  # model_call has billed what the failed call used
        _keep_partial(turn, history, append, note="[the response was cut off by an error]")
    finally:
        duration = time.monotonic() - turn.started
        if depth == 0:
            session.turns += 1
        publish(TurnFinished(outcome=turn.outcome, duration=duration, cost=turn.cost,
                             tokens=turn.usage.total, error=turn.error, **where))
    return TurnResult(id=turn.id, outcome=turn.outcome, text=turn.answer, usage=turn.usage,
                      cost=turn.cost, duration=duration, steps=turn.steps,
                      tools=tuple(turn.tools), files=tuple(sorted(turn.files)),
                      error_message=turn.error_message, error=turn.error,
                      loop_steps=turn.loop_steps, plan=turn.plan)


def _activate_skills(session: Session, turn: Turn, surface: str,
                     where: Where) -> list[tuple[str, str]]:
    if session.skills is None or not surface.strip():
        return []
    fired = session.skills.activate(surface)
    if fired:
        turn.skills.extend(fired)
        session.bus.publish(SkillsActivated(names=tuple(n for n, _ in fired), **where))
    return fired


async def _steps(session: Session, turn: Turn, history: list[Message], append: Append,
                 where: Where) -> None:
    settings = session.settings
    nested = session.nested
    if nested is not None and turn.depth > 0:
        nested = nested.fresh()   # a subagent's history is its own: it has seen none of them
    for _ in range(settings.max_steps):
        if turn.depth == 0:
            for before in session.before_step:
                await before.before_step(session, turn)
        turn.loop_steps += 1
        calls, finished = await _model_step(session, turn, history, append, where)
        stop = finished.stop_reason if finished else "end_turn"
        if stop in stops.CUT:
            stops.cut_off(session, turn, calls, finished, append)
            return
        if stop == "refusal":
            stops.refused(session, turn, calls, append)
            return
        if stop == "pause_turn" and not calls:
            continue   # the API's own pause: send the response back as is and let it go on
        if calls:
            results, ctx = await _run_tools(session, turn, calls, where)
            blocks: list[Block] = list(results)
            if ctx.notes:   # what hooks said about these calls, beside their results
                blocks.append(TextBlock(hook_notes(ctx.notes)))
            if ctx.stopped is not None:   # a hook's continue: false ends the turn here
                append(Message("user", blocks))
                turn.outcome, turn.error = "error", ErrorRecord("hook", "denied")
                turn.error_message = ("a hook stopped the turn"
                                      + (f": {ctx.stopped}" if ctx.stopped else ""))
                return
            if nested is not None:  # core/instructions.py
                note = nested.for_calls(calls)
                if note:
                    blocks.append(TextBlock(note))
            if turn.depth == 0:
                burst = _deliver_queue(session, turn, where)
                if burst:
                    blocks.append(TextBlock(burst))
            append(Message("user", blocks))
            if turn.plan is not None:   # shown and not (yet) approved: the turn ends with it
                turn.answer = turn.plan
                return
            continue
        follow_up: str | None = _deliver_queue(session, turn, where) if turn.depth == 0 else ""
        if not follow_up:   # at every depth: a Stop or SubagentStop hook may say go on
            for hook in session.after_stop:
                follow_up = await hook.after_stop(session, turn)
                if follow_up:
                    break
        if not follow_up:
            return
        append(Message("user", [TextBlock(follow_up)]))
    turn.outcome = "error"
    turn.error = ErrorRecord("loop", "max_turns")   # the kind keeps its name (ADR-0058)
    turn.error_message = f"stopped after max_steps={settings.max_steps} model calls"


def _deliver_queue(session: Session, turn: Turn, where: Where) -> str:
    lines = session.queue.drain()
    if not lines:
        return ""
    burst = session.queue.burst(lines)
    session.bus.publish(QueueDelivered(count=len(lines), **where))
    fired = _activate_skills(session, turn, burst, where)  # the burst is one matcher surface
    told = reminders.reminder(session, fired)
    return f"{burst}\n\n{told}" if told else burst


async def _model_step(session: Session, turn: Turn, history: list[Message], append: Append,
                      where: Where) -> tuple[list[ToolCall], Finished | None]:
    await session.ready()
    compacted = False
    while True:
        request = ModelRequest(
            system=reminders.system(session),
            messages=list(history),
            tools=[t.spec() for t in session.tools.values()],
            server_tools=server_tools(session.provider, session.settings),
        )
        turn.reply = Reply()  # what has streamed so far, kept if the call is cut off
        try:
            response = await model_call(session, request, where, turn=turn, reply=turn.reply)
            break
        except ProviderError as exc:
            if compacted or not await _compact_to_fit(session, turn, history, exc, where):
                raise
            compacted = True
    turn.reply = None
    blocks = response.reply.blocks()
    answer = response.reply.text()
    if answer.strip():
        turn.answer = answer
    if blocks:
        append(Message("assistant", blocks))
    return response.calls, response.finished


async def _compact_to_fit(session: Session, turn: Turn, history: list[Message],
                          exc: ProviderError, where: Where) -> bool:
    """Compact once after a context-window refusal; True when the request may be retried."""
    nothing_shown = turn.reply is None or not turn.reply.blocks()
    if not exc.context_exceeded or not nothing_shown or session.compactor is None \
            or turn.depth != 0 or history is not session.messages:
        return False
    session.bus.publish(Notice(level="warning", message=(
        "the conversation is longer than the model's context window: compacting it once and "
        "sending the request again"), **where))
    return await session.compactor.compact(session, turn=turn) is not None


def hook_notes(notes: list[str]) -> str:
    """What hooks said for the model, as one reminder block (Claude Code wraps them so too)."""
    return "<system-reminder>\n" + "\n\n".join(notes) + "\n</system-reminder>"


async def _run_tools(session: Session, turn: Turn, calls: list[ToolCall],
                     where: Where) -> tuple[list[ToolResultBlock], ToolContext]:
    ctx = _tool_context(session, turn)
    results: list[ToolResultBlock] = []
    try:
        for call in calls:
            if ctx.stopped is not None:
                results.append(ToolResultBlock(call.id, "not run: a hook stopped the turn",
                                               True))
                continue
            block, finished = await run_tool(call, session.tools, ctx, session.bus.publish, where)
            results.append(_bounded(block, session.settings.context.tool_result_max_chars))
            turn.tools.append((call.name, finished.ok,
                               finished.error.kind if finished.error else None))
            turn.files.update(finished.files)
    except asyncio.CancelledError:
        done = {r.tool_use_id for r in results}
        results.extend(ToolResultBlock(c.id, "cancelled by the user", True)
                       for c in calls if c.id not in done)
        turn.pending_results = results
        raise
    return results, ctx


def _caller(session: Session, turn: Turn, where: Where) -> RunCall:
    """Tool calls the client makes in this turn, run and counted as the model's are."""
    ctx = _tool_context(session, turn)

    async def call(name: str, args: dict[str, Any]) -> ToolResultBlock:
        block, finished = await run_tool(ToolCall(new_id(), name, args), session.tools, ctx,
                                         session.bus.publish, where)
        turn.tools.append((name, finished.ok, finished.error.kind if finished.error else None))
        turn.files.update(finished.files)
        block = _bounded(block, session.settings.context.tool_result_max_chars)
        if ctx.notes:   # hooks' words for the model travel with what this call returned
            block = ToolResultBlock(block.tool_use_id, block.content + "\n\n"
                                    + hook_notes(ctx.notes), block.is_error)
            ctx.notes.clear()
        return block
    return call


def _bounded(block: ToolResultBlock, limit: int) -> ToolResultBlock:
    """Every tool result, whichever tool made it, reaches the model as at most head + tail."""
    if len(block.content) <= limit:
        return block
    return ToolResultBlock(block.tool_use_id, clip(block.content, limit), block.is_error,
                           images=block.images)


def _tool_context(session: Session, turn: Turn) -> ToolContext:
    tools = session.settings.tools
    ctx = ToolContext(root=session.root, allow_outside_root=tools.allow_outside_root,
                      shell_timeout=tools.shell_timeout,
                      depth=turn.depth, permission=session.gate, sandbox=session.sandbox,
                      checkpoint=session.checkpoints, on_output=session.display_output,
                      guard=session.guard, baseline=session.baseline,
                      extra_roots=added_roots(tools.add_dirs))
    if turn.depth == 0:
        ctx.todos = session.todos
    if turn.depth == 0 and session.gate.mode == PLAN:
        ctx.plan = lambda text: _present(session, turn, text)
    if turn.depth < tools.max_subagent_depth:
        async def run_subagent(prompt: str, description: str) -> str:
            return await _subagent(session, turn, prompt)
        ctx.run_subagent = run_subagent
    return ctx


async def _present(session: Session, turn: Turn, plan: str) -> str:
    """The model's plan to the person: approved, the turn goes on; else it ends with the plan."""
    gate = session.gate
    if gate.mode != PLAN:
        return "plan mode has already ended: carry out the plan"
    then = gate.before_plan or AFTER_PLAN
    if session.planner is not None and await session.planner.review(plan, then):
        mode = gate.leave_plan()
        session.bus.publish(Notice(level="info", message=f"plan approved: permission mode "
                                   f"{mode}", session_id=session.id, turn_id=turn.id))
        return (f"The user approved the plan. Plan mode has ended (permission mode {mode}): "
                "carry it out now.")
    turn.plan = plan
    return ("The plan was shown to the user, who has not approved it: stop here. Do not "
            "make changes; the user will reply.")


async def _subagent(session: Session, parent: Turn, prompt: str) -> str:
    from edgar.tools.base import ToolFailure

    result = await run_turn(session, prompt, depth=parent.depth + 1, messages=[])
    parent.absorb(result)
    if result.outcome == "cancelled":
        raise asyncio.CancelledError
    if result.outcome != "ok":
        raise ToolFailure("subagent_failed", f"the subagent failed: {result.error_message}")
    return result.text or "(the subagent finished without a final answer)"


def _keep_partial(turn: Turn, history: list[Message], append: Append, note: str) -> None:
    """Keep streamed text and close any tool_use left without a result."""
    pending = turn.pending_results
    if turn.reply is not None:
        # a cut response: its text (and signed thinking) is kept; its tool calls are not,
        # since they never completed and never ran
        blocks: list[Block] = [b for b in turn.reply.blocks() if not isinstance(b, ToolUseBlock)]
        partial = turn.reply.text()
        turn.reply = None
        if partial.strip():
            turn.answer = partial
        if any(isinstance(b, TextBlock) for b in blocks):
            append(Message("assistant", blocks))
    if pending:
        append(Message("user", list(pending)))
    elif history and history[-1].role == "assistant":
        open_calls = [b for b in history[-1].content if isinstance(b, ToolUseBlock)]
        if open_calls:
            append(Message("user", [ToolResultBlock(b.id, note, True) for b in open_calls]))
