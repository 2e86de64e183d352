"""Renderers: bus subscribers that show a session to a person.

Guarantees:
- A renderer only reads events; it never changes the conversation.
- Each tool call is one line, with ✓ or ✗ and the error kind; an ``edit`` also shows a
  small diff of what it is about to change.
- In the REPL (``RichRenderer``, and ``PlainRenderer``) each step of a turn (one model call: its
  text, then its tool
  lines) is apart from the step before by one blank line, as ``-p`` sets steps' text apart.
- ``PlainRenderer`` writes plain text (demo, pipes, non-tty stdout). ``RichRenderer`` prints
  each finished Markdown block as soon as its last line arrives (a line of prose, a whole
  code fence, a whole table; see ``mdstream``), and reports what is running for the
  status line (``activity``). rich is imported only when a RichRenderer is made.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, Protocol

from edgar.cli.mdstream import BlockSplitter
from edgar.cli.tool_view import OutputTail, edit_preview
from edgar.events import (
    Compacted,
    Event,
    FactLearned,
    FactProposed,
    ModelResponded,
    Notice,
    QueueDelivered,
    SkillsActivated,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolProposed,
    TurnFinished,
    TurnStarted,
    VerifyFinished,
)


def tool_line(event: ToolProposed) -> str:
    args = event.args or {}
    if event.tool == "shell":
        detail = f"$ {args.get('command', '')}"
    elif event.tool in ("read", "write", "edit"):
        detail = str(args.get("path", ""))
    elif event.tool in ("glob", "grep"):
        detail = str(args.get("pattern", ""))
    elif event.tool == "task":
        detail = str(args.get("description") or args.get("prompt", ""))[:60]
    else:
        detail = ""
    return f"{event.tool} {detail}".strip()


def learned_line(event: FactLearned, undo: str = "/forget") -> str:
    """The one line that tells the person a fact is now active, and how to undo it."""
    what = ("noticed" if event.provenance == "error-template"
            else "remembered again" if event.reactivated else "remembered")
    if event.replaced_id is not None:    # ADR-0080: one line says what it replaced
        return (f"{what}: {event.text} (fact {event.fact_id} · replaces fact "
                f"{event.replaced_id}: {event.replaced_text})")
    return f"{what}: {event.text} (fact {event.fact_id} · {undo} {event.fact_id})"


def proposed_line(event: FactProposed) -> str:
    """The line ``-p`` prints for a proposal: it waits for ``edgar memory review``."""
    return f"proposed: {event.text} (fact {event.fact_id} · pending: edgar memory review)"


def question(text: str) -> str:
    """The REPL's one inline question after a turn that proposed a fact (issue 22)."""
    return f'remember "{text}"? [y/N/e(dit)]'


def tool_step(responded: int, shown: int | None) -> int:
    """The step a depth-0 tool call is of: the last one whose response ended (a call made
    before any model call, a command's ``!`cmd```, is step 0), or, should a tool be shown
    while no response has ended yet, the step whose text is on screen."""
    return responded if responded or shown is None else shown


def money(cost: float | None) -> str:
    return "cost unknown" if cost is None else f"${cost:.4f}"


def tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else f"{count:,}"


def diff_preview(args: Mapping[str, Any], limit: int = 40, root: Path | None = None) -> list[str]:
    """A unified diff (no file headers) of an edit: the file's own line numbers and 3 lines
    of context when ``root`` is given and the file can be read (``tool_view.edit_preview``)."""
    return edit_preview(root, args, limit)


def compacted(event: Compacted) -> str:
    """``compacted 12,400 → 3,100 tokens (saved 9,300, 75%)``."""
    saved = event.tokens_before - event.tokens_after
    share = saved / event.tokens_before if event.tokens_before else 0.0
    return (f"compacted {event.tokens_before:,} → {event.tokens_after:,} tokens "
            f"(saved {saved:,}, {share:.0%})")


def failure(event: ToolFinished) -> str:
    if event.error is None:
        return "failed"
    code = f" (exit {event.error.exit_code})" if event.error.exit_code not in (None, 0) else ""
    return f"{event.error.kind}{code}"


class Renderer(Protocol):
    """What the REPL prints through (this module's RichRenderer and PlainRenderer)."""

    def __call__(self, event: Event) -> None: ...

    def say(self, text: str, style: str = "") -> None: ...

    def activity(self) -> str: ...


class PlainRenderer:
    """Plain text, no colour: for the demo, pipes and NO_COLOR terminals."""

    def __init__(self, out: IO[str]):
        self.out = out
        self.mid_line = False
        self.blank = True          # the last line written was blank (or nothing was)
        self.responded = 0         # depth-0 model responses so far in this turn
        self.shown_step: int | None = None

    def _step(self, step: int) -> None:
        """A blank line before a new step's first text or tool line (as RichRenderer)."""
        if self.shown_step is not None and step != self.shown_step and not self.blank:
            self._line("")
        self.shown_step = step

    def say(self, text: str, style: str = "") -> None:
        """A line edgar writes (command output, questions); ``style`` is ignored here."""
        self._line(text)

    def activity(self) -> str:
        return ""

    def _line(self, text: str) -> None:
        if self.mid_line:
            self.out.write("\n")
            self.mid_line = False
        self.out.write(text + "\n")
        self.out.flush()
        self.blank = not text.strip()

    def __call__(self, event: Event) -> None:
        indent = "  " * event.depth
        match event:
            case TextDelta():
                if event.depth == 0 and event.text.strip():
                    self._step(self.responded + 1)
                if not self.mid_line:
                    self.out.write(indent)
                self.out.write(event.text)
                self.out.flush()
                self.mid_line = not event.text.endswith("\n")
                if event.text:
                    self.blank = (event.text.endswith("\n\n")
                                  or (not event.text.strip() and self.blank))
            case TurnStarted(depth=0):
                self.responded, self.shown_step = 0, None
            case ToolProposed():
                if event.depth == 0:
                    self._step(tool_step(self.responded, self.shown_step))
                self._line(f"{indent}  → {tool_line(event)}")
            case ToolFinished():
                mark = "✓" if event.ok else f"✗ {event.error.kind if event.error else 'failed'}"
                self._line(f"{indent}    {mark} ({event.duration:.2f}s)")
            case SkillsActivated():
                self._line(f"{indent}  ✦ skills: {', '.join(event.names)}")
            case QueueDelivered():
                self._line(f"{indent}  ↳ delivered {event.count} queued line(s)")
            case VerifyFinished():
                verdict = "passed" if event.passed else f"failed (exit {event.exit_code})"
                self._line(f"{indent}  ⚑ verify `{event.command}` {verdict}")
            case Compacted():
                self._line(f"{indent}  ⇣ {compacted(event)}")
            case Notice():
                self._line(f"{indent}  ! {event.message}")
            case FactLearned():
                self._line(f"  {learned_line(event)}")
            case TurnFinished(depth=0):
                self._line(f"\n[{event.outcome} · {event.duration:.1f}s · {event.tokens} tokens · "
                           f"{money(event.cost)}]")
            case ModelResponded(depth=0):
                self.responded += 1


SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_MARKUP = re.compile(r"[*_`\[\]<>|~\\]|^\s*(?:[-+*]|\d+[.)])\s|^\s*(?:---|\*\*\*|___)\s*$")


class RichRenderer:
    """Colour, Markdown, a diff for edits, and the current activity for the status line.

    Text is printed per finished Markdown block, never character by character, so output
    written above a live prompt (``prompt.AboveThePrompt``) stays whole lines.
    """

    def __init__(self, console: Any = None, file: IO[str] | None = None,
                 root: Path | None = None):
        self._console = console    # made on first use: rich costs start-up time otherwise
        self.file = file           # where that console writes (None: sys.stdout)
        self.root = root           # the project, for an edit's preview with context
        self.output = OutputTail()  # running shell output (the dimmed tail), last output
        self.queued: list[str] = []  # lines typed during the turn, shown until delivered
        self.splitter = BlockSplitter()
        self.running: dict[str, tuple[str, float]] = {}
        self.phase = ""            # "", "waiting", "thinking" or "writing" (depth 0 only)
        self.since = 0.0
        self._blank = True         # the last printed line was blank (collapse runs of them)
        self.responded = 0         # depth-0 model responses so far in this turn
        self.shown_step: int | None = None   # the step the last text or tool line was of

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.file, force_terminal=True, markup=False,
                                    highlight=False, emoji=False)
        return self._console

    # -- the status line -------------------------------------------------------------
    def tool_output(self, call_id: str, text: str) -> None:
        """The display sink for a running tool's output (wired in cli/setup.py)."""
        self.output.feed(call_id, text)

    def tail(self) -> list[str]:
        """The last lines of the newest running command, for the area above the status."""
        return self.output.tail()

    def expand_output(self) -> None:
        """Print the whole (kept) output of the last finished command, dimmed."""
        from rich.text import Text

        if self.output.last is None:
            self.say("no command output to show yet", "dim")
            return
        line, text = self.output.last
        self.say(f"── {line} ──", "dim")
        for row in text.rstrip("\n").split("\n"):
            self._print(Text(f"  {row}", style="dim"))

    def queue_line(self, line: str) -> None:
        self.queued.append(line)

    def activity(self) -> str:
        now = time.monotonic()
        frame = SPINNER[int(now * 10) % len(SPINNER)]
        if self.running:
            line, started = next(reversed(self.running.values()))
            return f"{frame} {line[:60]} {now - started:.0f}s"
        if self.phase:
            return f"{frame} {self.phase} {now - self.since:.0f}s"
        return ""

    # -- printing --------------------------------------------------------------------
    def _print(self, renderable: Any) -> None:
        self.console.print(renderable)
        self._blank = False

    def say(self, text: str, style: str = "") -> None:
        from rich.text import Text

        self._flush_text()
        self._print(Text(text, style=style))

    def _step(self, step: int) -> None:
        """A blank line before a new step's first text or tool line, as ``-p`` does."""
        if self.shown_step is not None and step != self.shown_step and not self._blank:
            self.console.print()
            self._blank = True
        self.shown_step = step

    def _flush_text(self) -> None:
        for block in self.splitter.flush():
            self._block(block)

    def _block(self, block: str) -> None:
        from rich.text import Text

        if not block.strip():
            if not self._blank:
                self.console.print()
                self._blank = True
            return
        self._step(self.responded + 1)   # text streams before its step's ModelResponded
        heading = _HEADING.match(block)
        if heading:
            level = len(heading.group(1))
            self._print(Text(heading.group(2), style="bold underline" if level == 1 else "bold"))
        elif "\n" in block or _MARKUP.search(block):
            self._markdown(block)
        else:
            self._print(Text(block))

    def _markdown(self, block: str) -> None:
        """Render one block, without the blank margins and padding rich puts around it."""
        from rich.markdown import Markdown
        from rich.padding import Padding

        indent = 0 if "\n" in block else len(block) - len(block.lstrip())
        body: Any = Markdown(block if "\n" in block else block.lstrip(), hyperlinks=False)
        if indent:
            body = Padding(body, (0, 0, 0, indent))
        with self.console.capture() as captured:
            self.console.print(body)
        lines = captured.get().split("\n")
        while lines and not _ANSI.sub("", lines[0]).strip():
            lines.pop(0)
        while lines and not _ANSI.sub("", lines[-1]).strip():
            lines.pop()
        if lines:
            self.console.file.write("\n".join(line.rstrip() for line in lines) + "\n")
            self.console.file.flush()
            self._blank = False

    def _phase(self, phase: str) -> None:
        if phase != self.phase:
            self.phase, self.since = phase, time.monotonic()

    # -- events ----------------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        from rich.text import Text

        pad = "  " * (event.depth + 1)
        match event:
            case TextDelta():
                if event.depth == 0:
                    self._phase("writing")
                    for block in self.splitter.feed(event.text, wrap=self.console.width):
                        self._block(block)
            case ThinkingDelta():
                if event.depth == 0:
                    self._phase("thinking")
            case TurnStarted():
                if event.depth == 0:
                    self._phase("waiting")
                    self.responded, self.shown_step = 0, None
            case ToolProposed():
                self._flush_text()
                if event.depth == 0:
                    self._step(tool_step(self.responded, self.shown_step))
                line = tool_line(event)
                self.running[event.call_id] = (line, time.monotonic())
                if event.tool == "edit":
                    self._print(Text(f"{pad}✎ {line}", style="dim"))
                    for row in diff_preview(event.args, root=self.root):
                        style = {"+": "green", "-": "red", "@": "cyan"}.get(row[:1], "dim")
                        self._print(Text(f"{pad}  {row}", style=style))
            case ToolFinished():
                line, _ = self.running.pop(event.call_id, (event.tool, 0.0))
                printed = self.output.finish(event.call_id, line)
                shown = (f" · {printed} line{'s' * (printed != 1)} · Ctrl-O shows them"
                         if printed else "")
                took = (f"  {event.duration:.1f}s{shown}", "dim")
                if event.ok:
                    self._print(Text.assemble((f"{pad}✓ ", "green"), line, took))
                else:
                    self._print(Text.assemble((f"{pad}✗ ", "red"), line,
                                              (f" — {failure(event)}", "red"), took))
            case ModelResponded():
                if event.depth == 0:
                    self._flush_text()
                    self.responded += 1
                    self._phase("waiting")
            case QueueDelivered():
                delivered, self.queued = self.queued[:event.count], self.queued[event.count:]
                for text in delivered:  # echoed here, at a pause, never inside streamed text
                    self.say(f"{pad}› {' '.join(text.split())[:200]}", "cyan")
                self.say(f"{pad}↳ {event.count} queued line(s) delivered", "cyan")
            case SkillsActivated():
                self.say(f"{pad}✦ skills: {', '.join(event.names)}", "magenta")
            case VerifyFinished():
                verdict = "passed" if event.passed else f"failed (exit {event.exit_code})"
                self.say(f"{pad}⚑ verify `{event.command}` {verdict}",
                         "green" if event.passed else "red")
            case Compacted():
                self.phase = ""
                self.say(f"{pad}⇣ {compacted(event)}", "dim")
            case Notice():
                self.say(f"{pad}! {event.message}",
                         {"info": "dim", "warning": "yellow"}.get(event.level, "red"))
            case FactLearned():
                self.say(learned_line(event), "dim")
            case TurnFinished(depth=0):
                self._turn_finished(event)

    def _turn_finished(self, event: TurnFinished) -> None:
        from rich.text import Text

        self._flush_text()
        self.running.clear()
        self.output.running.clear()
        if event.outcome == "cancelled":
            self.queued.clear()    # given back to the prompt by the REPL, not delivered
        self.phase = ""
        label, style = {"ok": ("✓", "dim green"), "cancelled": ("⏹ interrupted", "yellow"),
                        "error": ("✗ failed", "red"),
                        "blocked": ("⊘ blocked by a hook", "yellow")}[event.outcome]
        stats = f" · {event.duration:.1f}s · {tokens(event.tokens)} tokens · {money(event.cost)}"
        self._print(Text.assemble((label, style), (stats, "dim")))
