"""``edgar -p PROMPT``: one turn, no questions asked, output for people or scripts.

Guarantees:
- ``run_prompt`` builds at most one ``PromptTyped``: the ``-p`` argument (or the command-line
  prompt), as typed, carrying the id of the turn it starts. With nothing typed (``-p`` without
  an argument, or stdin not a terminal) none is published. Piped stdin and ``@path`` files
  travel as ``Attached`` and never become a ``PromptTyped``.
- Exit codes: 0 ok, 1 turn error, 2 usage or config error, 130 cancelled.
- ``--output-format``: ``text`` streams the answer, each step's text apart from the last by
  a blank line; ``json`` prints one summary object (Claude Code's ``result`` fields,
  ``cli/claude_stream.py``, beside edgar's own; edgar's token counts and cost are ``null``
  when the provider reported no usage); ``stream-json`` prints Claude Code's stream
  (``system``/``init``, ``assistant``, ``user``, ``result`` lines, ``cli/claude_stream.py``);
  ``edgar-events`` prints every bus event as one JSON line as it happens.
- ``--input-format stream-json`` (``run_stream_input``): each user line on stdin is one turn
  with one ``result`` line; its text is not typed (it came through a pipe): it travels as
  ``Attached`` and is never learned. A bad line is one ``edgar: stdin line N: …`` on stderr
  and exit 2 after the turns before it.
- ``-p /help``, ``-p /undo`` …: edgar's slash commands run as in the REPL
  (``cli/print_slash.py``), never sent to the model.
- Warnings (config problems, a server that failed) reach stderr in every format.
- A tool call refused because nobody can confirm it is said on stderr, with the mode and the
  flag that allows it, in every format.
- Notices start on a line of their own, never in the middle of the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import AsyncIterator
from typing import IO, TYPE_CHECKING

from edgar.events import (
    Attached,
    ErrorRecord,
    Event,
    FactLearned,
    FactProposed,
    ModelResponded,
    Notice,
    PromptTyped,
    TextDelta,
    ToolFinished,
    ToolProposed,
    to_dict,
)

if TYPE_CHECKING:
    from edgar.cli.claude_stream import ClaudeStream
    from edgar.conversation import Attachment
    from edgar.core.loop import Expand

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130


class UsageError(Exception):
    """A mistake in how edgar was called; exit 2 with this message."""


class _Printer:
    """Subscriber that writes a -p run's output in the chosen format."""

    def __init__(self, fmt: str, out: IO[str], err: IO[str], mode: str = "ask",
                 access: dict[str, str] | None = None):
        self.fmt, self.out, self.err = fmt, out, err
        self.err_tty = err.isatty()
        self.ended_with_newline = True
        self.learned: list[FactLearned] = []
        self.proposals: list[FactProposed] = []
        self.mode, self.access = mode, access or {}
        self.proposed: dict[str, ToolProposed] = {}
        self.denials: list[dict[str, object]] = []
        self.tail = ""            # the last two characters of the answer printed so far
        self.step_done = False    # a model response ended since the last text
        self.tool_seconds = 0.0   # depth-0 tool time (json's duration_api_ms)
        self.verbose = False      # --verbose: tool calls on stderr without a terminal too

    def _refused(self, event: ToolFinished) -> None:
        from edgar.tools.permissions import allowing_mode

        proposed = self.proposed.get(event.call_id)
        args = dict(proposed.args) if proposed else {}
        self.denials.append({"tool_name": event.tool, "tool_use_id": event.call_id,
                             "tool_input": args})
        target = next((str(args[k]) for k in ("path", "command", "pattern") if k in args), "")
        target = " ".join(target.split())
        target = (" " + (target[:60] + "…" if len(target) > 60 else target)) if target else ""
        allows = allowing_mode(self.access.get(event.tool, "shell"))
        self.own_line()
        if event.error is not None and event.error.program == "hook":
            why = "a PreToolUse hook said no"
        elif self.mode == "yes" or self.mode == allows:
            why = f"permission mode {self.mode}: not allowed here; the model was told why"
        else:
            why = f"permission mode {self.mode}; --permission-mode {allows} allows it"
        self.err.write(f"edgar: refused {event.tool}{target} ({why})\n")

    def own_line(self) -> None:
        if self.fmt == "text" and not self.ended_with_newline:
            self.out.write("\n")
            self.out.flush()
            self.ended_with_newline, self.tail = True, self.tail[-1:] + "\n"

    def _text(self, text: str) -> None:
        if self.step_done and self.tail and text:
            # a new step: a blank line between its text and the last step's
            gap = "" if self.tail.endswith("\n\n") else "\n" if self.tail.endswith("\n") else "\n\n"
            text = gap + text
        self.step_done = False
        self.out.write(text)
        self.out.flush()
        if text:
            self.tail = (self.tail + text)[-2:]
            self.ended_with_newline = text.endswith("\n")

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolFinished) and event.depth == 0:
            self.tool_seconds += event.duration
        match event:
            case FactLearned():
                self.learned.append(event)
            case FactProposed():
                self.proposals.append(event)
            case ToolProposed(depth=0):
                self.proposed[event.call_id] = event
            case ModelResponded(depth=0):
                self.step_done = True
            case ToolFinished(depth=0, error=ErrorRecord(kind="denied")) if self.fmt != "quiet":
                self._refused(event)
        if self.fmt == "edgar-events":
            self.out.write(json.dumps(to_dict(event), default=str) + "\n")
            self.out.flush()
        elif self.fmt == "text":
            self._show(event)
        elif self.fmt != "quiet" and isinstance(event, Notice) and event.depth == 0 \
                and event.level == "warning":
            self.err.write(f"edgar: {event.message}\n")

    def _show(self, event: Event) -> None:
        match event:
            case TextDelta(depth=0):
                self._text(event.text)
            case ToolProposed() if self.err_tty or self.verbose:
                self.err.write(f"· {event.tool}\n")
            case ToolFinished(error=ErrorRecord(kind=kind)) if self.err_tty or self.verbose:
                self.err.write(f"  ✗ {event.tool}: {kind}\n")
            case Notice(depth=0):
                self.own_line()
                self.err.write(f"edgar: {event.message}\n")
            case FactLearned():
                from edgar.cli.render import learned_line

                self.err.write(f"edgar: {learned_line(event, 'edgar memory forget')}\n")
            case FactProposed():
                from edgar.cli.render import proposed_line

                self.err.write(f"edgar: {proposed_line(event)}\n")


async def run_prompt(app, prompt: str | None, attached: list[Attachment] | None = None,
                     fmt: str = "text", out: IO[str] = sys.stdout,
                     err: IO[str] = sys.stderr, expand: Expand | None = None,
                     stream: ClaudeStream | None = None, verbose: bool = False,
                     turns: AsyncIterator[str] | None = None) -> int:
    """Run one turn for what was typed (``prompt``; None: nothing was) and the attachments.

    ``stream`` is the stream-json writer ``build`` was given as its ``echo`` (needed for
    ``fmt="stream-json"``); ``turns``: the lines of ``--input-format stream-json``, one
    turn each after the prompt's (if any)."""
    access = {name: tool.access for name, tool in app.session.tools.items()}
    printer = _Printer(fmt, out, err, app.session.gate.mode, access)
    printer.verbose = verbose
    if fmt != "quiet":  # "quiet": the caller renders the session itself (edgar demo)
        app.observe(printer)
    if fmt == "stream-json":
        if stream is None:
            raise UsageError("stream-json needs its writer (a ClaudeStream given to build)")
        app.observe(stream.on_event)
        await app.session.ready()   # MCP servers started: their tools are in the init line
        _init(app, stream)
    from edgar.cli.print_slash import is_builtin, run_slash

    if prompt is not None and expand is None and is_builtin(prompt):   # as in the REPL
        return await run_slash(app, prompt, fmt, out, err, stream)
    if turns is None:
        return await _one_turn(app, printer, prompt, attached, fmt, out, err, expand, stream)
    code = EXIT_OK
    if prompt is not None or attached:
        code = await _one_turn(app, printer, prompt, attached, fmt, out, err, expand, stream)
    number = 0
    async for line in turns:
        number += 1
        if code == EXIT_CANCELLED:
            break
        if not line.strip():
            continue
        from edgar.cli.claude_stream import StreamInputError, user_text

        try:
            text = user_text(line)
        except StreamInputError as exc:
            err.write(f"edgar: stdin line {number}: {exc}\n")
            return EXIT_USAGE
        # through a pipe, not typed: an attachment (never learned), sent as the prompt's text
        app.bus.publish(Attached(bodies=(text,), sources=("stdin",), session_id=app.session.id))
        code = max(code, await _one_turn(app, printer, None, [], fmt, out, err, None, stream,
                                         text=text))
    return code


def _init(app, stream: ClaudeStream) -> None:
    import os

    from edgar.cli.custom_commands import discover
    from edgar.config import user_dir
    from edgar.tools.vocabulary import claude_name, permission_mode

    session = app.session
    servers = [{"name": row.name, "status": "connected" if row.state == "connected" else
                "failed" if row.state in ("failed", "exited") else row.state}
               for row in (app.mcp.rows() if app.mcp is not None else [])]
    from edgar.cli import slash

    custom, _ = discover(app.root, user_dir())
    commands = {*slash.COMMANDS, *custom, *(app.mcp.prompts if app.mcp is not None else ())}
    stream.init(session_id=session.id, cwd=os.getcwd(), root=str(app.root),
                model=session.provider.model,
                tools=[claude_name(name) for name in session.tools], servers=servers,
                mode=permission_mode(session.gate.mode), commands=sorted(commands))


async def _one_turn(app, printer: _Printer, prompt: str | None, attached, fmt: str,
                    out: IO[str], err: IO[str], expand: Expand | None,
                    stream: ClaudeStream | None, text: str | None = None) -> int:
    from edgar.core.loop import blocked_turn, run_turn, screen_prompt
    from edgar.core.session import new_id

    session = app.session
    attached = attached or []
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    interrupts = 0

    def on_sigint() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1:
            raise SystemExit(EXIT_CANCELLED)
        if task is not None:
            task.cancel()

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    if prompt is not None and prompt.startswith("# ") and prompt[2:].strip() and not attached:
        # "# text": remember it, no model call (the REPL's shortcut, as typed on the command line)
        if app.learning is None:
            err.write("edgar: learning is not installed: nothing was saved\n")
            return EXIT_USAGE
        app.bus.publish(PromptTyped(text=prompt, remember=True, session_id=session.id))
        if fmt == "json":
            out.write(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                                  "result": "", "session_id": session.id, "learned": [
                                      {"id": e.fact_id, "text": e.text,
                                       "provenance": e.provenance} for e in printer.learned]})
                      + "\n")
        elif not printer.learned and fmt != "quiet":
            err.write("edgar: nothing new to remember (already remembered, or too long)\n")
        return EXIT_OK
    turn_id = new_id()   # the PromptTyped names the turn it starts (ADR-0002)
    commits = app.commits
    committed: str | None = None
    try:
        said = text if text is not None else prompt or ""
        # the person's UserPromptSubmit hooks first: a refused prompt is never published,
        # so never learned or logged (ADR-0077)
        refusal = await screen_prompt(session, said)
        if refusal is not None:
            result = blocked_turn(session, turn_id, refusal)
        else:
            if prompt is not None:
                app.bus.publish(PromptTyped(text=prompt, session_id=session.id, turn_id=turn_id))
            if attached:
                from edgar.cli.attach import as_event

                bodies, sources = as_event(attached)
                app.bus.publish(Attached(bodies=bodies, sources=sources, session_id=session.id,
                                         turn_id=turn_id))
            if commits is not None:
                await commits.begin()   # what is dirty now is the person's (ADR-0108)
            result = await run_turn(session, said, attached, turn_id=turn_id, expand=expand,
                                    screened=True)
            if commits is not None and result.outcome != "cancelled":
                committed = await commits.after_turn(said, turn_id, result.files)
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
    if fmt == "text" and result.plan is not None:   # plan mode: the plan is the answer
        printer.own_line()
        out.write(result.plan.rstrip("\n") + "\n")
        printer.ended_with_newline = True
    if fmt == "text" and not printer.ended_with_newline:
        out.write("\n")
    if stream is not None and fmt == "stream-json":
        stream.result(result, printer.denials)
        printer.denials = []
    if fmt == "json":
        from edgar.cli.claude_stream import result_fields

        known = result.usage.reported
        out.write(json.dumps({
            **result_fields(result, session.id, printer.denials, printer.tool_seconds),
            "outcome": result.outcome,
            "usage": {"input_tokens": result.usage.input_tokens if known else None,
                      "output_tokens": result.usage.output_tokens if known else None,
                      "cache_write_tokens": result.usage.cache_write_tokens if known else None,
                      "cache_read_tokens": result.usage.cache_read_tokens if known else None,
                      "cache_creation_input_tokens":
                          result.usage.cache_write_tokens if known else None,
                      "cache_read_input_tokens":
                          result.usage.cache_read_tokens if known else None},
            "total_cost_usd": result.cost,
            "cost_usd": result.cost,
            "num_steps": result.steps,        # every model call, compaction's too (ADR-0058)
            "tools": [{"name": n, "ok": ok, "error_kind": kind} for n, ok, kind in result.tools],
            "learned": [{"id": e.fact_id, "text": e.text, "provenance": e.provenance,
                         "reactivated": e.reactivated} for e in printer.learned],
            "proposed": [{"id": e.fact_id, "text": e.text} for e in printer.proposals],
            **({"error": result.error_message} if result.error_message else {}),
            **({"plan": result.plan} if result.plan is not None else {}),
            "todos": session.todos.to_json(),
            "commit": committed,   # the auto-commit's hash, or null
        }) + "\n")
    out.flush()
    if result.outcome == "cancelled":
        err.write("edgar: cancelled\n")
        return EXIT_CANCELLED
    if result.outcome in ("error", "blocked"):
        err.write(f"edgar: {result.error_message or 'the turn failed'}\n")
        return EXIT_ERROR
    return EXIT_OK
