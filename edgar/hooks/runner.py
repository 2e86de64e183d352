"""The hooks of one session, with Claude Code's whole contract (ADR-0044, ADR-0100;
https://code.claude.com/docs/en/hooks).

Guarantees:
- Every hook gets Claude Code's input on stdin: ``session_id``, ``transcript_path`` (this
  session as a Claude-Code-shaped JSONL, kept current), ``cwd``, ``permission_mode`` (in
  Claude Code's words), ``hook_event_name`` and the event's own fields, with Claude Code's
  tool names and ``tool_input`` keys (``tools/vocabulary.py``); inside a subagent also
  ``agent_id`` and ``agent_type``. Matchers are Claude Code's (``hooks/matcher.py``),
  tested against every name of the tool, so ``Bash``, ``shell`` and ``Edit|Write`` work.
- Matching hooks of one event run in parallel; the same command (or http hook URL) twice
  runs once. An http hook is POSTed by ``hooks/http.py``; a ``statusMessage`` is said (info)
  as its hook starts; ``async`` hooks run detached (never drained before a tool or model
  call): their decisions count for nothing, their ``additionalContext`` and
  ``systemMessage`` go to the model with the next prompt, and at ``close`` those still
  running get the SessionEnd budget, then are cancelled and counted in a warning.
- The guard: ``before_prompt`` (UserPromptSubmit) refuses a prompt when a hook blocks or
  says ``continue: false``; its context (plain stdout or ``additionalContext``) and that of
  SessionStart go to the model with the prompt (``prompt_context``). ``before_tool``
  (PreToolUse) returns deny / allow / ask (deny > ask > allow), ``updatedInput`` (in edgar's
  keys), context and stop. ``after_tool`` (PostToolUse for a call that succeeded,
  PostToolUseFailure for one that failed) gives the model a block's reason and any context.
  ``after_stop`` (Stop at depth 0, SubagentStop below) makes the model go on with the
  reason or context when a hook blocks, at most ``MAX_CONTINUES`` times in a row, with
  ``stop_hook_active`` set on the repeats. ``before_compact`` (PreCompact) may say no.
- Notification (a permission question asked) and SessionStart run in the background;
  ``drain`` waits for them, and is awaited before the next prompt, tool and model call.
  SessionEnd runs at ``close`` within Claude Code's budget.
- ``systemMessage`` and ``stopReason`` are said to the person (a Notice); a hook that fails
  (another exit code without JSON, invalid JSON fields, a timeout, a command that cannot
  start) is one warning naming the event, the command and where it is configured; the
  session goes on. A field edgar reads but cannot honour is named once per session.
- Nothing a hook prints becomes a ``PromptTyped``: its words reach the model only as a
  refusal reason or context, and the person as a Notice; neither is ever learned.
- Project hooks run only when the project is trusted (one Notice says how many were
  skipped, and when trust lapsed, which file changed); with ``recheck``, trust is asked again
  before each project hook runs, so a script changed during the session (by the person:
  the model's tools and commands cannot) stops its hooks, said once; each hook runs in the session's
  sandbox, or in one with the network or more
  writable directories when its entry opts in.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from edgar.conversation import ToolResultBlock
from edgar.events import Event, Notice, NoticeLevel, ToolFinished, Where
from edgar.hooks.config import HookSpec, session_end_budget
from edgar.hooks.matcher import matches
from edgar.hooks.output import HookOutput, read
from edgar.hooks.process import HookRun, run_hook
from edgar.spawn import Confinement, one_line, settings_env
from edgar.tools.base import HookVerdict
from edgar.tools.vocabulary import claude_input, claude_name, edgar_input, names, permission_mode

if TYPE_CHECKING:
    from edgar.core.turn import Turn
    from edgar.core.views import StopView
    from edgar.tools.permissions import Answer, Confirm

REASON_LIMIT = 2000
MAX_CONTINUES = 8          # Claude Code overrides a Stop hook after 8 blocks in a row
# (network, extra writable dirs) -> the sandbox a hook that opted into them runs in
Confine = Callable[[bool, tuple[str, ...]], Confinement]


def _label(event: str) -> str:
    return f"{event} hook"


class Hooks:
    def __init__(self, specs: list[HookSpec], *, root: Path, session_id: str,
                 publish: Callable[[Event], None], trusted: bool,
                 permission_mode: Callable[[], str] = lambda: "ask",
                 sandbox: Confinement | None = None, confine: Confine | None = None,
                 transcript: Path | None = None, lapsed: str | None = None,
                 recheck: Callable[[], str | None] | None = None):
        self.sandbox, self.confine = sandbox, confine
        self.lapsed = lapsed   # why trust lapsed (a file changed), said instead of "not trusted"
        self.recheck = recheck   # before each project hook: why trust no longer holds, or None
        self._lapse_said: set[str] = set()
        self.root, self.session_id, self.publish = root, session_id, publish
        self.permission_mode = permission_mode
        self.transcript = transcript
        skipped = [s for s in specs if s.origin == "project" and not trusted]
        self.specs = [s for s in specs if s not in skipped]
        self.pending: set[asyncio.Task[None]] = set()
        self.detached: set[asyncio.Task[None]] = set()   # ``async`` hooks, never drained
        self.skipped = len(skipped)
        self._context: list[str] = []           # for the next prompt (SessionStart, UPS)
        self._continues: dict[str, int] = {}    # turn id -> Stop blocks in a row
        self._named: set[tuple[str, str]] = set()   # (event, field) edgar said it ignores

    def _say(self, level: NoticeLevel, message: str) -> None:
        self.publish(Notice(level=level, message=message, session_id=self.session_id))

    def configured(self, event: str) -> bool:
        return any(s.event == event for s in self.specs)

    def _matching(self, event: str, values: tuple[str, ...] | None,
                  call: tuple[str, dict[str, Any]] | None = None) -> list[HookSpec]:
        found: dict[tuple[bool, str, tuple[str, ...] | None], HookSpec] = {}
        for spec in self.specs:
            key = (spec.url is not None, spec.command, spec.args)   # an http hook: its URL
            if spec.event != event or key in found:
                continue   # the same command configured twice runs once, as in Claude Code
            if values is not None and not matches(spec.matcher, values):
                continue
            if spec.condition is not None and (call is None or not _covers(spec.condition, *call)):
                continue   # ``if`` is for tool calls only; elsewhere it never runs
            found[key] = spec
        return list(found.values())

    def _payload(self, event: str, where: Where | None = None, **fields: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript) if self.transcript is not None else "",
            "cwd": os.getcwd() if _inside(Path.cwd(), self.root) else str(self.root),
            "permission_mode": permission_mode(self.permission_mode()),
            "hook_event_name": event}
        if where is not None and where["depth"] > 0:   # inside a subagent
            payload.update(agent_id=where["turn_id"], agent_type="general-purpose")
        payload.update(fields)
        return payload

    def _box(self, spec: HookSpec) -> Confinement | None:
        if (spec.network or spec.writable) and self.confine is not None:
            return self.confine(spec.network, spec.writable)
        return self.sandbox

    async def _run(self, event: str, payload: dict[str, Any], values: tuple[str, ...] | None,
                   budget: float | None = None,
                   call: tuple[str, dict[str, Any]] | None = None,
                   ) -> list[tuple[HookSpec, HookOutput]]:
        """What every matching hook said; failures, system messages and fields edgar cannot
        honour are said here, once."""
        specs = self._matching(event, values, call)
        if self.recheck is not None and any(s.origin == "project" for s in specs):
            why = self.recheck()   # a trusted script changed since the session began
            if why:
                specs = [s for s in specs if s.origin != "project"]
                if why not in self._lapse_said:
                    self._lapse_said.add(why)
                    self._say("warning", f"hooks: project hooks no longer run: {why}")
        detached = [s for s in specs if s.background]
        if detached:
            self._detach(event, payload, detached)
            specs = [s for s in specs if not s.background]
        if not specs:
            return []
        return await self._execute(event, payload, specs, budget)

    def _start(self, spec: HookSpec, payload: dict[str, Any], timeout: float,
               ) -> Coroutine[Any, Any, HookRun]:
        if spec.url is not None:   # Claude Code's http hook: edgar POSTs to the person's URL
            from edgar.hooks.http import post_hook

            environ = {**os.environ, **settings_env(self.sandbox)}
            return post_hook(spec.url, payload, spec.headers, spec.allowed_env, environ,
                             timeout)
        return run_hook(spec.command, payload, self.root, timeout, self._box(spec), spec.args)

    async def _execute(self, event: str, payload: dict[str, Any], specs: list[HookSpec],
                       budget: float | None = None) -> list[tuple[HookSpec, HookOutput]]:
        for spec in specs:   # Claude Code's statusMessage: shown while the hook runs
            if spec.status:
                self._say("info", f"{event} hook: {one_line(spec.status, 200)}")
        runs = await asyncio.gather(*(self._start(
            s, payload, min(s.seconds(), budget) if budget else s.seconds()) for s in specs))
        said: list[tuple[HookSpec, HookOutput]] = []
        for spec, run in zip(specs, runs, strict=True):
            short = one_line(spec.command, 60)
            if run.timed_out:
                limit = min(spec.seconds(), budget) if budget else spec.seconds()
                self._say("warning", f"hook {event} {short!r} timed out after {limit:g}s and "
                          f"was {'cancelled' if spec.url else 'killed'}; its output is "
                          f"discarded ({spec.where})")
                continue
            out = (HookOutput(error=run.error) if run.error
                   else read(event, run.exit_code, run.stdout, run.stderr))
            if out.error:
                self._say("warning", f"hook {event} {short!r} {one_line(out.error)} "
                          f"({spec.where})")
            if out.system_message:
                self._say("warning", f"hook {event}: {one_line(out.system_message, REASON_LIMIT)}")
            for name in out.unsupported:
                if (event, name) not in self._named:
                    self._named.add((event, name))
                    self._say("warning", f"hook {event} {short!r}: edgar does not support "
                              f"{name} yet; it is ignored ({spec.where})")
            said.append((spec, out))
        return said

    def _detach(self, event: str, payload: dict[str, Any], specs: list[HookSpec]) -> None:
        """Claude Code's ``async`` hooks: run without holding edgar up; their decisions have
        no effect; ``systemMessage`` and ``additionalContext`` reach the model with the next
        prompt."""
        async def go() -> None:
            said = await self._execute(event, payload, specs)
            self._context += [f"{_label(event)} (async) {kind}: {text}" for _, out in said
                              for kind, text in (*(("additional context", c)
                                                   for c in out.context),
                                                 *((("system message", out.system_message),)
                                                   if out.system_message else ()))]

        try:
            task = asyncio.get_running_loop().create_task(go())
        except RuntimeError:
            return
        self.detached.add(task)
        task.add_done_callback(self.detached.discard)

    # --- prompts --------------------------------------------------------------------------

    async def before_prompt(self, text: str) -> str | None:
        await self.drain()   # SessionStart has finished, and its context is waiting
        said = await self._run("UserPromptSubmit", self._payload("UserPromptSubmit",
                                                                 prompt=text), None)
        blocked = [_reason(spec, out) for spec, out in said if out.block]
        stopped = [out.stop_reason or "no reason given" for _, out in said if out.stop]
        if blocked or stopped:
            why = "; ".join(blocked + [f"stopped: {s}" for s in stopped])
            return "a UserPromptSubmit hook blocked this prompt (not sent): " + why
        self._context += [f"{_label('UserPromptSubmit')} additional context: {c}"
                          for _, out in said for c in out.context]
        return None

    def prompt_context(self) -> list[str]:
        taken, self._context = self._context, []
        return taken

    # --- tools ----------------------------------------------------------------------------

    async def before_tool(self, call_id: str, tool: str, args: dict[str, Any],
                          where: Where) -> HookVerdict:
        await self.drain()
        payload = self._payload("PreToolUse", where, tool_name=claude_name(tool),
                                tool_input=claude_input(tool, args, str(self.root)),
                                tool_use_id=call_id)
        said = await self._run("PreToolUse", payload, names(tool), call=(tool, args))
        if not said:
            return HookVerdict()
        context = tuple(f"{_label('PreToolUse')} additional context: {c}"
                        for _, out in said for c in out.context)
        stop = next((out.stop_reason for _, out in said if out.stop), None)
        if stop is not None:
            self._say("warning", f"a PreToolUse hook stopped the turn: {stop or 'no reason given'}")
            return HookVerdict(context=context, stop=stop)
        denied = [_reason(spec, out) for spec, out in said if out.block]
        if denied:
            return HookVerdict(refusal="refused by a PreToolUse hook: " + "; ".join(denied),
                               context=context)
        decided = [(spec, out) for spec, out in said if out.permission in ("ask", "allow")]
        ask = [p for p in decided if p[1].permission == "ask"]
        chosen = ask[0] if ask else decided[0] if decided else None
        updated = next((out.updated_input for _, out in (*ask, *decided, *said)
                        if out.updated_input is not None), None)
        permission: Literal["allow", "ask"] | None = None
        if chosen is not None:
            permission = "ask" if ask else "allow"
        return HookVerdict(permission=permission,
                           reason=chosen[1].permission_reason if chosen else "",
                           args=edgar_input(tool, updated, str(self.root)) if updated else None,
                           context=context)

    async def after_tool(self, call_id: str, tool: str, args: dict[str, Any],
                         result: ToolResultBlock, finished: ToolFinished,
                         where: Where) -> HookVerdict:
        event = "PostToolUse" if finished.ok else "PostToolUseFailure"
        if not self.configured(event):
            return HookVerdict()
        tool_input = claude_input(tool, args, str(self.root))
        fields: dict[str, Any] = {"tool_name": claude_name(tool), "tool_input": tool_input,
                                  "tool_use_id": call_id,
                                  "duration_ms": round(finished.duration * 1000)}
        if finished.ok:
            fields["tool_response"] = _response(tool, tool_input, result, finished)
        else:
            fields.update(error=result.content, is_interrupt=False)
        said = await self._run(event, self._payload(event, where, **fields), names(tool),
                               call=(tool, args))
        notes = [f"{_label(event)} feedback: {_reason(spec, out)}" for spec, out in said
                 if out.block]
        notes += [f"{_label(event)} additional context: {c}" for _, out in said
                  for c in out.context]
        stop = next((out.stop_reason for _, out in said if out.stop), None)
        if stop is not None:
            self._say("warning", f"a {event} hook stopped the turn: {stop or 'no reason given'}")
        return HookVerdict(context=tuple(notes), stop=stop)

    # --- stops (an AfterStop beside verify) -------------------------------------------------

    async def after_stop(self, session: StopView, turn: Turn) -> str | None:
        event = "Stop" if turn.depth == 0 else "SubagentStop"
        if not self.configured(event):
            return None
        await self.drain()
        where: Where = {"session_id": session.id, "turn_id": turn.id, "depth": turn.depth}
        count = self._continues.get(turn.id, 0)
        fields: dict[str, Any] = {"stop_hook_active": count > 0,
                                  "last_assistant_message": turn.answer}
        if event == "SubagentStop":
            fields.update(agent_id=turn.id, agent_type="general-purpose")
        said = await self._run(event, self._payload(event, where, **fields),
                               ("general-purpose",) if event == "SubagentStop" else None)
        if any(out.stop for _, out in said):
            for _, out in said:
                if out.stop:
                    self._say("warning", f"a {event} hook stopped: "
                              f"{out.stop_reason or 'no reason given'}")
            return None
        reasons = [_reason(spec, out) for spec, out in said if out.block]
        context = [c for _, out in said for c in out.context]
        if not reasons and not context:
            self._continues.pop(turn.id, None)
            return None
        if count >= MAX_CONTINUES:
            self._say("warning", f"{event} hooks kept the model going {MAX_CONTINUES} times in "
                      "a row; this time it stops")
            self._continues.pop(turn.id, None)
            return None
        self._continues[turn.id] = count + 1
        return "\n".join([f"{event} hook feedback:", *reasons, *context])

    # --- compaction ----------------------------------------------------------------------

    async def before_compact(self, trigger: str, instructions: str) -> str | None:
        said = await self._run("PreCompact", self._payload(
            "PreCompact", trigger=trigger, custom_instructions=instructions), (trigger,))
        blocked = [_reason(spec, out) for spec, out in said if out.block]
        return "a PreCompact hook said no: " + "; ".join(blocked) if blocked else None

    # --- notifications and session lifecycle (in the background) -----------------------------

    def _schedule(self, event: str, payload: dict[str, Any], values: tuple[str, ...] | None,
                  keep_context: bool = False) -> None:
        if not self._matching(event, values):
            return

        async def go() -> None:
            said = await self._run(event, payload, values)
            if keep_context:
                self._context += [f"{_label(event)} additional context: {c}"
                                  for _, out in said for c in out.context]

        try:
            task = asyncio.get_running_loop().create_task(go())
        except RuntimeError:
            return  # no loop (a synchronous caller): nothing to run the hook on
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    def notify(self, kind: str, message: str, title: str = "") -> None:
        """A Notification hook: edgar is waiting for the person (``permission_prompt``)."""
        fields = {"message": message, "notification_type": kind,
                  **({"title": title} if title else {})}
        self._schedule("Notification", self._payload("Notification", None, **fields), (kind,))

    def notifying(self, confirm: Confirm) -> Confirm:
        """``confirm`` that first tells Notification hooks a permission question is asked."""
        async def ask(tool: str, summary: str, offer: str | None) -> Answer:
            self.notify("permission_prompt", f"edgar needs your permission to use "
                        f"{claude_name(tool)}", "Permission needed")
            return await confirm(tool, summary, offer)
        return ask

    async def drain(self) -> None:
        """Wait for every hook running in the background (SessionStart, Notification)."""
        while self.pending:
            await asyncio.gather(*list(self.pending), return_exceptions=True)

    def begin(self, resumed: bool = False) -> None:
        if self.skipped:  # at the work's first pause: -p's printer subscribes as it starts
            why = self.lapsed or "the project is not trusted; `edgar trust` trusts it"
            asyncio.get_running_loop().call_soon(
                self._say, "warning", f"hooks: {self.skipped} project hook(s) not run: {why}")
        source = "resume" if resumed else "startup"
        self._schedule("SessionStart", self._payload("SessionStart", source=source), (source,),
                       keep_context=True)

    async def close(self) -> None:
        await self.drain()
        budget = session_end_budget(self.specs)
        await self._run("SessionEnd", self._payload("SessionEnd", reason="other"), ("other",),
                        budget=budget)
        if self.detached:   # async hooks still running get the SessionEnd budget, then stop
            running = list(self.detached)
            _, late = await asyncio.wait(running, timeout=budget)
            for task in late:
                task.cancel()
            if late:
                await asyncio.gather(*late, return_exceptions=True)
                self._say("warning", f"hooks: {len(late)} async hook(s) still running at the "
                          f"end of the session were stopped after {budget:g}s")


def _reason(spec: HookSpec, out: HookOutput) -> str:
    return one_line(out.reason, REASON_LIMIT) or f"blocked by hook {one_line(spec.command, 60)!r}"


def _covers(rule: str, tool: str, args: dict[str, Any]) -> bool:
    """Claude Code's ``if``: the call matches the rule (any piece of a compound command)."""
    from edgar.tools.permissions import SUBJECT_KEYS
    from edgar.tools.rules import first_match, parse_rule

    subject = args.get(SUBJECT_KEYS.get(tool, ""))
    return first_match([parse_rule(rule)], tool, subject if isinstance(subject, str) else None,
                       deny=True) is not None


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False


def _response(tool: str, tool_input: dict[str, Any], result: ToolResultBlock,
              finished: ToolFinished) -> dict[str, Any]:
    """``tool_response`` for a call that succeeded, in the shape Claude Code's tool returns
    where edgar's tool has the same parts (Bash's ``stdout``, the file tools' ``filePath``),
    plus edgar's ``content`` (what the model was given) and ``files`` (what changed)."""
    out: dict[str, Any] = {"success": True, "content": result.content,
                           "files": list(finished.files)}
    if tool == "shell":
        out.update(stdout=result.content, stderr="", interrupted=False, isImage=False)
    elif "file_path" in tool_input:
        out["filePath"] = tool_input["file_path"]
    return out
