"""The hooks of one session: a guard for the two events that may say no, subscribers for
the rest (ADR-0044).

Guarantees:
- ``before_prompt`` (UserPromptSubmit) and ``before_tool`` (PreToolUse) run every matching
  hook in parallel and refuse when any blocks (exit 2 or a JSON "block"/"deny"); the
  reason is the hook's own words, bounded, for the person (prompt) or the model (tool).
- PostToolUse, Stop, SessionStart and SessionEnd never block. The bus handlers here only
  schedule the hook; ``drain`` waits for every scheduled hook, and is awaited before the
  next tool runs and before the next model call, so a formatter finishes before the model
  reads the file again.
- A hook that fails (other exit code, timeout, cannot start) is one warning Notice naming
  the event, the command and the exit code; the session goes on.
- Nothing a hook prints becomes a ``PromptTyped``: its words travel only as a refusal
  reason or in a Notice.
- Project hooks run only when the project is trusted; otherwise one Notice says how many
  were skipped.
"""

from __future__ import annotations

import asyncio
import fnmatch
from pathlib import Path
from typing import Any, Callable

from edgar.events import Event, Notice, NoticeLevel, ToolFinished, ToolProposed, TurnFinished
from edgar.hooks.config import TOOL_EVENTS, HookSpec
from edgar.hooks.process import run_hook, verdict
from edgar.spawn import Confinement, one_line

REASON_LIMIT = 2000


class Hooks:
    def __init__(self, specs: list[HookSpec], *, root: Path, session_id: str,
                 publish: Callable[[Event], None], trusted: bool,
                 permission_mode: Callable[[], str] = lambda: "ask",
                 sandbox: Confinement | None = None):
        self.sandbox = sandbox
        self.root, self.session_id, self.publish = root, session_id, publish
        self.permission_mode = permission_mode
        skipped = [s for s in specs if s.origin == "project" and not trusted]
        self.specs = [s for s in specs if s not in skipped]
        self.pending: set[asyncio.Task[None]] = set()
        self.args: dict[str, dict[str, Any]] = {}   # call_id -> tool input, for PostToolUse
        self.skipped = len(skipped)

    def _say(self, level: NoticeLevel, message: str) -> None:
        self.publish(Notice(level=level, message=message, session_id=self.session_id))

    def configured(self, event: str) -> bool:
        return any(s.event == event for s in self.specs)

    def _matching(self, event: str, tool: str | None = None) -> list[HookSpec]:
        return [s for s in self.specs if s.event == event and (
            event not in TOOL_EVENTS or fnmatch.fnmatchcase(tool or "", s.matcher))]

    def _payload(self, event: str, **fields: Any) -> dict[str, Any]:
        return {"session_id": self.session_id, "cwd": str(self.root),
                "hook_event_name": event, "permission_mode": self.permission_mode(), **fields}

    async def _run(self, event: str, payload: dict[str, Any],
                   tool: str | None = None) -> list[str]:
        """Reasons of the hooks that blocked (empty: go on). Failures become warnings."""
        specs = self._matching(event, tool)
        if not specs:
            return []
        runs = await asyncio.gather(*(run_hook(s.command, payload, self.root, s.timeout,
                                               self.sandbox) for s in specs))
        reasons = []
        for spec, run in zip(specs, runs):
            short = one_line(spec.command, 60)
            if run.timed_out:
                self._say("warning", f"hook {event} {short!r} timed out after "
                          f"{spec.timeout:g}s and was killed ({spec.where})")
                continue
            blocks, reason = verdict(run)
            if blocks:
                reasons.append(one_line(reason, REASON_LIMIT) or f"blocked by hook {short!r}")
            elif run.exit_code != 0:
                said = one_line(run.stderr.strip().splitlines()[-1]) if run.stderr.strip() else ""
                self._say("warning", f"hook {event} {short!r} exited {run.exit_code}"
                          + (f": {said}" if said else "") + f" ({spec.where})")
        return reasons

    # --- the guard (decision points beside the permission check) ---------------------------

    async def before_prompt(self, text: str) -> str | None:
        reasons = await self._run("UserPromptSubmit", self._payload("UserPromptSubmit",
                                                                    prompt=text))
        if not reasons:
            return None
        return "a UserPromptSubmit hook blocked this prompt (not sent): " + "; ".join(reasons)

    async def before_tool(self, tool: str, args: dict[str, Any]) -> str | None:
        await self.drain()
        reasons = await self._run("PreToolUse", self._payload(
            "PreToolUse", tool_name=tool, tool_input=args), tool)
        if not reasons:
            return None
        return "refused by a PreToolUse hook: " + "; ".join(reasons)

    # --- bus subscribers (never block) ---------------------------------------------------

    def _schedule(self, event: str, payload: dict[str, Any], tool: str | None = None) -> None:
        if not self._matching(event, tool):
            return

        async def go() -> None:
            reasons = await self._run(event, payload, tool)
            for reason in reasons:  # these events cannot block: the reason is shown only
                self._say("warning", f"hook {event}: {reason}")

        try:
            task = asyncio.get_running_loop().create_task(go())
        except RuntimeError:
            return  # no loop (a synchronous caller): nothing to run the hook on
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    def on_tool_proposed(self, event: ToolProposed) -> None:
        if self.configured("PostToolUse"):
            self.args[event.call_id] = dict(event.args)

    def on_tool_finished(self, event: ToolFinished) -> None:
        args = self.args.pop(event.call_id, {})
        response = {"success": event.ok, "files": list(event.files),
                    "error_kind": event.error.kind if event.error else None}
        self._schedule("PostToolUse", self._payload(
            "PostToolUse", tool_name=event.tool, tool_input=args, tool_response=response),
            event.tool)

    def on_turn_finished(self, event: TurnFinished) -> None:
        if event.depth == 0:
            self._schedule("Stop", self._payload("Stop", stop_hook_active=False,
                                                 outcome=event.outcome))

    async def drain(self) -> None:
        """Wait for every scheduled hook (PostToolUse, Stop) to finish."""
        while self.pending:
            await asyncio.gather(*list(self.pending), return_exceptions=True)

    # --- session lifecycle --------------------------------------------------------------

    def begin(self, resumed: bool = False) -> None:
        if self.skipped:  # said when the session runs, so its renderer is listening
            self._say("warning", f"hooks: {self.skipped} project hook(s) not run: the project "
                      "is not trusted; `edgar trust` trusts it")
        self._schedule("SessionStart", self._payload(
            "SessionStart", source="resume" if resumed else "startup"))

    async def close(self) -> None:
        await self.drain()
        await self._run("SessionEnd", self._payload("SessionEnd", reason="exit"))
