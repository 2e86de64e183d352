"""``edgar`` with no arguments: the REPL a person works in all day.

Guarantees:
- ``submit`` builds exactly one ``PromptTyped`` per prompt line typed, and nothing else
  does here: ``queued=True`` when a turn is running, in which case the line also goes to
  ``session.queue``; the loop delivers queued lines at its next pause as one burst, and
  lines still queued when a turn ends start the next turn as one burst (no second
  ``PromptTyped`` for them). Slash commands and confirmation answers are never prompts.
- The prompt stays live while a turn runs (the turn is an asyncio task); Esc or Ctrl-C
  cancels it and the loop publishes ``TurnFinished(outcome="cancelled")`` once. Lines queued
  but not delivered when a turn is interrupted come back into the prompt, unsent.
- While a permission question is pending, the next line (a ``y``/``n``/``a`` key, or a typed
  line) is the answer, not a prompt; only a slash command still runs as a command.
- It reads lines only from a terminal: ``run_repl`` refuses a stdin that is not one (the
  CLI runs one-shot instead, stdin attached). With a terminal on stdin but not on stdout it
  runs line by line: each typed line is one prompt, run to completion, plain output, no
  confirmations (the gate refuses instead).
- After a turn that proposed a fact (an implicit rule, issue 22) it asks once, inline:
  ``remember "…"? [y/N/e(dit)]``; the next line typed answers it (cli/proposal.py).
- ``first`` (``edgar "PROMPT"``) goes through ``submit`` like any line typed.
- ``# text`` is one ``PromptTyped(remember=True)`` and starts no turn (said when learning is
  not installed); ``!cmd`` runs the command (cli/bang.py) and starts no turn either: its
  output goes with the next prompt as an attachment.
- Each ``PromptTyped`` carries the id of the turn it starts (a queued line: of the turn it
  was typed into), so a learned fact's source names a real turn.
- ``/mcp__server__prompt ARGS`` (a connected server's prompt, ``cli/mcp_prompt.py``) and
  ``@server:uri`` attach the server's text to the turn; the ``PromptTyped`` is the line as
  typed. One that cannot be had is refused in one line and the line goes back, unsent.
- An ``@path`` naming a file outside the project root is refused in one line and the line
  goes back into the prompt, unsent.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import traceback
from collections.abc import Awaitable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from edgar.cli import slash
from edgar.cli.asker import Asker, Screen
from edgar.cli.attach import AT_PATH, AttachRefused, as_event, typed
from edgar.cli.attach import attached as attachments
from edgar.cli.banner import greet
from edgar.cli.oneshot import UsageError
from edgar.cli.proposal import Proposals
from edgar.core.queue import PromptQueue
from edgar.events import Attached, PromptTyped, QueueDelivered

if TYPE_CHECKING:
    import argparse

    from edgar.cli.asker import Asking
    from edgar.cli.render import Renderer
    from edgar.cli.setup import App
    from edgar.config import Settings
    from edgar.conversation import Attachment
    from edgar.core.loop import Expand
    from edgar.tools.permissions import Answer


REPLIES: dict[str, Answer] = {"y": "yes", "yes": "yes", "n": "no", "no": "no",
                              "a": "always", "always": "always"}


class Repl:
    def __init__(self, renderer: Renderer, app: App, asker: Asker, screen: Screen):
        self.app = app
        self.renderer = renderer
        self.asker = asker
        self.screen = screen
        self.above: Any = None                   # its AboveThePrompt output
        self.foreground: asyncio.Task[Any] | None = None
        self.exiting = False
        self.default = ""                        # text put back into the next prompt
        self.restored: str | None = None         # queued lines given back after an interrupt
        self.turn_id = ""                        # id of the turn running in the foreground
        self._cancelling = False
        self.notes: list[Attachment] = []        # for the next turn: /undo notes, !cmd output
        self.proposals = Proposals(getattr(app, "memory", None), self.say, self._put_back)

    def _put_back(self, text: str) -> None:
        self.default = text

    @property
    def prompt(self) -> Any:
        return self.screen.prompt

    @property
    def asking(self) -> Asking | None:
        return self.asker.asking

    # -- state the prompt and the slash commands read --------------------------------
    @property
    def busy(self) -> bool:
        return self.foreground is not None and not self.foreground.done()

    def say(self, text: str, style: str = "") -> None:
        self.renderer.say(text, style)

    def request_exit(self) -> None:
        self.exiting = True

    # -- the one door for typed lines ------------------------------------------------
    async def submit(self, line: str) -> None:
        """Handle one line the person typed: an answer, a command, or a prompt."""
        from edgar.cli.command_expand import prepare
        from edgar.core.session import new_id

        line = typed(line)
        if (self.proposals.asked is not None and not self.busy and self.asking is None
                and not slash.is_command(line) and self.proposals.answer(line)):
            return                  # the answer to `remember "…"? [y/N/e(dit)]`
        if not line.strip():
            return
        from edgar.cli import mcp_prompt

        servers = getattr(self.app, "mcp", None)   # absent in apps without MCP support
        if mcp_prompt.needs_servers(line, servers) and servers is not None:
            await servers.ready()        # their prompts and resources are known once started
        custom = self._custom(line)
        offered = None if custom is not None else mcp_prompt.find(line, servers)
        if slash.is_command(line) and custom is None and offered is None:
            await slash.run(self, line)
            return
        if self.asking is not None:
            self._answer_line(line)
            return
        session = self.app.session
        if line.startswith("# "):   # "# text": remember it (typed, so a PromptTyped), no model call
            if self.app.learning is None:
                self.say("learning is not installed: nothing was saved", "yellow")
                return
            self.app.bus.publish(PromptTyped(text=line, remember=True, session_id=session.id))
            return
        if line.startswith("!"):   # "!cmd": run it in the sandbox, no model call
            if self.busy:
                self.say("!commands run between turns: it is back in the prompt", "yellow")
                self.default = line
                return
            self.run_foreground(self._bang(line[1:].strip()))
            return
        if offered is not None and self.busy:
            self.say(f"/{offered[0]} starts a turn of its own: it is back in the prompt "
                     "for when this one ends (Esc stops it)", "yellow")
            self.default = line
            return
        if custom is not None and self.busy:
            self.say(f"/{custom[0].name} starts a turn of its own: it is back in the prompt "
                     "for when this one ends (Esc stops it)", "yellow")
            self.default = line
            return
        if self.busy:
            # asked before it is published: a refused line is never learned, kept or queued
            from edgar.core.loop import screen_prompt

            refusal = await screen_prompt(session, line)
            if refusal is not None:
                self.say(f"edgar: {refusal} — the line was not queued", "yellow")
                return
            self.app.bus.publish(PromptTyped(text=line, queued=True, session_id=session.id,
                                             turn_id=self.turn_id))
            session.queue.put(line)
            queue_line = getattr(self.renderer, "queue_line", None)
            if queue_line is not None:   # shown above the status line until delivered
                queue_line(line)
            if AT_PATH.search(line):
                self.say("(@path files are attached to a line that starts a turn; this one is "
                         "queued, so the model sees the path only)", "dim")
            return
        notes: list[str] = []
        try:
            attached = attachments(line, Path.cwd(), session.root, notes)
            prepared = None if custom is None else prepare(*custom, session.root, Path.cwd())
            attached += await mcp_prompt.gather(line, servers)   # the server's words
        except (AttachRefused, mcp_prompt.McpRefused) as exc:
            self.say(f"edgar: {exc} — your line is back in the prompt", "yellow")
            self.default = line
            return
        for note in notes:
            self.say(f"edgar: {note}", "dim")
        restored, self.restored = self.restored, None
        turn_id = new_id()
        if line != restored:  # lines given back unchanged were published when first typed
            from edgar.core.loop import blocked_turn, screen_prompt

            refusal = await screen_prompt(session, line)   # before PromptTyped (ADR-0077)
            if refusal is not None:
                blocked_turn(session, turn_id, refusal)
                return
            self.app.bus.publish(PromptTyped(text=line, session_id=session.id, turn_id=turn_id))
        attached += self.notes
        self.notes = []
        if attached:
            bodies, sources = as_event(attached)
            self.app.bus.publish(Attached(bodies=bodies, sources=sources,
                                          session_id=session.id, turn_id=turn_id))
        expand = None
        if prepared is not None:   # its !`cmd` lines run inside the turn (cli/command_expand.py)
            for warning in prepared.warnings:
                self.say(warning, "yellow")
            session.gate.extra = prepared.rules
            expand = prepared.for_turn(self.app.bus, session.id)
        self._start_turn(line, attached, turn_id, expand)

    def _custom(self, line: str) -> tuple[Any, str] | None:
        """(command, argument text) when the line calls a command file."""
        from edgar.cli.command_expand import find
        from edgar.paths import user_dir

        return find(line, self.app.session.root, user_dir(), {*slash.COMMANDS, *slash.ALIASES})

    def note_for_model(self, text: str) -> None:
        """Send ``text`` with the next prompt, as an attachment (never as typed text)."""
        self.notes.append(("/undo", text))

    async def _bang(self, command: str) -> None:
        """``!cmd``: run it as the model's shell runs (sandboxed), show it, keep it for the
        next request as an attachment (Claude Code's bash mode)."""
        from edgar.cli.bang import run_bang

        if not command:
            self.say("! needs a command, e.g. !git status", "yellow")
            return
        shown, attachment = await run_bang(self.app.session, command)
        for row in shown:
            self.say(row)
        self.notes.append(attachment)

    def custom_commands(self) -> list[tuple[str, str, str]]:
        """(name, where, description) of the command files /help lists."""
        from edgar.cli.custom_commands import discover
        from edgar.paths import user_dir

        found, warnings = discover(self.app.session.root, user_dir())
        for warning in warnings:
            self.say(f"skipped {warning}", "yellow")
        from edgar.cli.mcp_prompt import listed

        return [*((c.name, c.where, c.description) for c in found.values()
                  if c.name not in slash.COMMANDS), *listed(getattr(self.app, "mcp", None))]

    # -- the foreground task: a turn, or a long command such as /compact -------------
    def _start_turn(self, text: str, attached: list[Attachment], turn_id: str = "",
                    expand: Expand | None = None, screened: bool = True) -> None:
        from edgar.core.loop import run_turn
        from edgar.core.session import new_id

        self.turn_id = turn_id or new_id()
        commits, turn = self.app.commits, self.turn_id

        async def work() -> Any:
            if commits is not None:
                await commits.begin()   # what is dirty now is the person's (ADR-0108)
            result = await run_turn(self.app.session, text, attached, turn_id=turn,
                                    expand=expand, screened=screened)
            if commits is not None and result.outcome != "cancelled":
                await commits.after_turn(text, turn, result.files)
            return result

        self._run(work())

    def run_foreground(self, work: Awaitable[Any]) -> None:
        self._run(work)

    def _run(self, work: Awaitable[Any]) -> None:
        self._cancelling = False
        self.foreground = asyncio.ensure_future(work)
        self.foreground.add_done_callback(self._finished)

    def cancel(self) -> None:
        task = self.foreground
        if task is not None and not task.done() and not self._cancelling:   # busy
            self._cancelling = True
            task.cancel()

    def _finished(self, task: asyncio.Task) -> None:
        if task is not self.foreground:
            return
        self.foreground = None
        self.app.session.gate.extra = []      # a command's allowed-tools end with its turn
        outcome = "cancelled" if task.cancelled() else "ok"
        if outcome == "ok" and task.exception() is not None:
            exc = task.exception()
            outcome = "error"
            self.say(f"edgar: internal error ({type(exc).__name__}); the session goes on", "red")
            if os.environ.get("EDGAR_DEBUG"):
                traceback.print_exception(exc, file=sys.stderr)
        elif outcome == "ok":
            result = task.result()
            outcome = getattr(result, "outcome", "ok")
            if outcome == "error":
                self.say(f"edgar: {result.error_message or 'the turn failed'}", "red")
        if self.exiting:
            return
        queue = self.app.session.queue
        if outcome == "cancelled":
            self._give_back(queue.drain())
        elif len(queue):
            lines = queue.drain()
            self.app.bus.publish(QueueDelivered(count=len(lines), session_id=self.app.session.id))
            self._start_turn(PromptQueue.burst(lines), [])
        if not self.busy:           # one question per turn, after it (cli/proposal.py)
            self.proposals.after_turn(self.app.session.id)
        self._invalidate()

    def _give_back(self, lines: list[str]) -> None:
        if not lines:
            return
        text = PromptQueue.burst(lines)
        self.restored = text
        self.say(f"{len(lines)} queued line(s) not sent: they are back in the prompt", "yellow")
        if self.prompt is not None and self.prompt.app.is_running:
            buffer = self.prompt.default_buffer
            buffer.text = text + ("\n" + buffer.text if buffer.text else "")
            buffer.cursor_position = len(buffer.text)
        else:
            self.default = text

    # -- permission questions --------------------------------------------------------
    def answer(self, answer: Answer) -> None:
        self.asker.answer(answer)

    def _answer_line(self, line: str) -> None:
        reply = REPLIES.get(line.strip().lower())
        if reply is None:
            self.say("answer y, n or a first — your line is back in the prompt", "yellow")
            self.default = line
        else:
            self.answer(reply)

    # -- running ---------------------------------------------------------------------
    def _invalidate(self) -> None:
        self.screen.invalidate()

    def flush_output(self) -> None:
        if self.above is not None:
            self.above.flush_now()

    def _on_sigint(self) -> None:
        if self.busy:
            self.cancel()
        elif self.prompt is None:
            self.exiting = True

    async def interactive(self, first: str | None = None) -> int:
        from prompt_toolkit.patch_stdout import patch_stdout

        from edgar.cli.prompt import AboveThePrompt, greet_line, make_prompt, warm_up

        loop = asyncio.get_running_loop()
        _handle_sigint(loop, self._on_sigint)
        self.screen.prompt = make_prompt(self, self.app.state, self.app.redact)
        above = self.above = AboveThePrompt(self.prompt)
        if hasattr(self.renderer, "file"):
            self.renderer.file = above
        with patch_stdout(raw=True):
            greet(self.app.session, greet_line)
            loop.call_later(0.3, loop.run_in_executor, None, warm_up)
            if first is not None:
                await self.submit(first)
            while not self.exiting:
                try:
                    line = await self.prompt.prompt_async(default=self.default)
                except EOFError:
                    break
                except KeyboardInterrupt:
                    continue
                self.default = ""
                await self.submit(line)
            await self._shutdown()
            above.flush_now()
        return 0

    async def lines(self, stream: IO[str], first: str | None = None) -> int:
        loop = asyncio.get_running_loop()
        _handle_sigint(loop, self._on_sigint)
        if not stream.isatty():      # typed means typed at a terminal: never a pipe's lines
            raise UsageError("the REPL reads lines only from a terminal")
        pending = [first] if first is not None else []
        while not self.exiting:
            if pending:
                await self.submit(pending.pop())
                while self.foreground is not None:
                    await asyncio.wait([self.foreground])
                continue
            line = await loop.run_in_executor(None, stream.readline)
            if not line:
                break
            await self.submit(line.rstrip("\n"))
            while self.foreground is not None:
                await asyncio.wait([self.foreground])
        await self._shutdown()
        return 0

    async def _shutdown(self) -> None:
        self.exiting = True
        task = self.foreground
        if task is not None and not task.done():   # busy
            self.cancel()
            await asyncio.wait([task], timeout=5)
        if self.prompt is not None and self.app.session.messages:
            self.say(f"session {self.app.session.id} saved · edgar -c continues it", "dim")


def _handle_sigint(loop: asyncio.AbstractEventLoop, handler) -> None:
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, handler)


def make_renderer(interactive: bool, root: Path | None = None) -> Renderer:
    if not interactive:
        from edgar.cli.render import PlainRenderer

        return PlainRenderer(sys.stdout)
    from edgar.cli.render import RichRenderer

    return RichRenderer(root=root)


def run_repl(args: argparse.Namespace, root: Path, settings: Settings,
             resumed: tuple[str, list] | None,
             first: str | None = None,
             rules: tuple[list[str], list[str]] = ([], [])) -> int:
    """The REPL; ``rules`` are --allowedTools and --disallowedTools, already checked."""
    from edgar.cli.setup import build

    if not sys.stdin.isatty():
        raise UsageError("the REPL needs a terminal on stdin; pipe into `edgar -p` instead")
    interactive = sys.stdout.isatty()
    session_id, history = resumed if resumed else (None, None)
    renderer = make_renderer(interactive, root)
    screen = Screen()
    asker = Asker(renderer.say, screen)
    app = build(root, settings, confirm=asker.confirm if interactive else None,
                session_id=session_id, history=history,
                no_history=args.no_history, no_verify=args.no_verify,
                on_output=getattr(renderer, "tool_output", None),
                planner=asker if interactive else None, flag_rules=rules,
                mcp_flag=getattr(args, "mcp_flag", None))
    app.observe(renderer)
    repl = Repl(renderer, app, asker, screen)
    try:
        return asyncio.run(app.running(repl.interactive(first) if interactive
                                       else repl.lines(sys.stdin, first)))
    finally:
        app.close()
