"""The REPL's prompt: prompt_toolkit session, key bindings, status line and completion.

Guarantees:
- Enter sends the line; Esc-Enter (Alt-Enter) inserts a new line; Up and Ctrl-R search the
  redacted input history.
- While a turn runs, Esc and Ctrl-C call ``host.cancel()``; Esc is immediate on an empty
  line, and waits ``timeoutlen`` on a non-empty one so Esc-Enter still makes a new line.
- While a confirmation is pending, ``y``/``n``/``a`` on an empty line answer it at once.
- Ctrl-C with no turn clears the line, and on an empty line twice within ``EXIT_WINDOW``
  exits (``prompt_async`` raises EOFError, like Ctrl-D).
- The status line shows model, permission mode, session cost, queued lines and what is
  running, and is redrawn ``REFRESH`` times a second for the spinner.
- ``AboveThePrompt`` shows output above the live prompt without ever leaving raw mode, so a
  key pressed while output arrives is never echoed by the kernel or lost.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.application.current import get_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.key_binding import KeyBindings

from edgar.cli.input_history import history_for
from edgar.cli.pt_adapter import prompt_drawn, redraw_now
from edgar.cli.render import Renderer, money
from edgar.cli.slash import ALIASES, COMMANDS

if TYPE_CHECKING:
    from edgar.cli.asker import Asking
    from edgar.cli.setup import App
    from edgar.tools.permissions import Answer

EXIT_WINDOW = 2.0
REFRESH = 0.1
ANSWERS: dict[str, Answer] = {"y": "yes", "n": "no", "a": "always"}


class Host(Protocol):
    app: App
    renderer: Renderer

    @property
    def asking(self) -> Asking | None: ...

    @property
    def busy(self) -> bool: ...

    def cancel(self) -> None: ...

    def answer(self, answer: Answer) -> None: ...

    def flush_output(self) -> None: ...

    def say(self, text: str, style: str = "") -> None: ...


class EdgarCompleter(Completer):
    """``/command`` at the start of the line, ``@path`` anywhere (relative to the cwd)."""

    def __init__(self, extra: Callable[[], Iterable[str]] = tuple) -> None:
        self.extra = extra     # names known only at run time: MCP servers' prompts
        self.paths = PathCompleter(expanduser=True,
                                   file_filter=lambda name: not name.endswith((".pyc", "/.git")))

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name in sorted({*COMMANDS, *ALIASES, *self.extra()}):
                if name.startswith(before[1:]):
                    yield Completion(name, -len(before) + 1, display=f"/{name}")
            return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@"):
            sub = Document(word[1:], len(word) - 1)
            yield from self.paths.get_completions(sub, event)


def _completing() -> bool:
    """Complete while typing only a /command or an @path (no menu space reserved otherwise)."""
    try:
        before = get_app().current_buffer.document.text_before_cursor
    except Exception:
        return False
    if before.startswith("/") and " " not in before:
        return True
    word = before.rsplit(None, 1)[-1] if before.strip() else ""
    return word.startswith("@") and not before.endswith((" ", "\n"))


class Status:
    """The bottom line and the prompt message, read on every redraw."""

    def __init__(self, host: Host):
        self.host = host
        self.exit_armed = 0.0

    def message(self) -> Any:
        asking = self.host.asking
        if asking is not None:
            return [("class:ask", f"allow {asking[0]}? [y]es [n]o [a]lways › ")]
        return [("class:prompt", "› ")]

    def toolbar(self) -> Any:
        """Queued lines and a running command's last lines (dimmed), then the status line."""
        renderer = self.host.renderer
        above: list[tuple[str, str]] = []
        for line in self.host.app.session.todos.lines()[:12]:   # the model's checklist
            above.append(("class:todo", f" {' '.join(line.split())[:110]}\n"))
        for line in getattr(renderer, "queued", [])[-3:]:
            above.append(("class:queued", f" › {' '.join(line.split())[:100]} (queued)\n"))
        if self.host.busy:
            for line in getattr(renderer, "tail", lambda: [])():
                above.append(("class:tail", f"   │ {line}\n"))
            activity = renderer.activity()     # spinner, what runs, elapsed: its own line
            if activity:
                above.append(("", f" {activity}\n"))
        return above + [("class:bottom-toolbar.text", self.status_line())]

    def status_line(self) -> str:
        session = self.host.app.session
        model = session.model_name
        if len(model) > 40:
            model = "…" + model[-39:]
        if session.cost_known:
            cost = money(session.cost)
        else:
            cost = f"≥{money(session.cost)}" if session.cost else "cost unknown"
        parts = [model, session.gate.mode, cost]
        queued = len(session.queue)
        if queued:
            parts.append(f"{queued} queued")
        if time.monotonic() - self.exit_armed < EXIT_WINDOW:
            parts.append("Ctrl-C again to exit")
        return " " + " · ".join(parts) + " "


def bindings(host: Host, status: Status) -> KeyBindings:
    kb = KeyBindings()
    busy = Condition(lambda: host.busy)
    asking = Condition(lambda: host.asking is not None)
    empty = Condition(lambda: not get_app().current_buffer.text)

    @kb.add("enter", filter=has_focus(DEFAULT_BUFFER))
    def _accept(event) -> None:
        host.flush_output()   # what was printed before Enter stays above the accepted line
        # A line typed during a turn is not left in the middle of the streamed answer: it
        # is erased here, shown as queued above the status line, and echoed when delivered.
        event.app.erase_when_done = host.busy and host.asking is None
        event.current_buffer.validate_and_handle()

    @kb.add("c-o", eager=True)
    def _expand(event) -> None:
        expand = getattr(host.renderer, "expand_output", None)
        if expand is not None:
            expand()

    @kb.add("escape", "enter", eager=True)
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("escape", filter=busy & empty, eager=True)
    def _stop_now(event) -> None:
        host.cancel()

    @kb.add("escape", filter=busy & ~empty)
    def _stop(event) -> None:
        host.cancel()

    @kb.add("c-c", eager=True)
    def _interrupt(event) -> None:
        buffer = event.current_buffer
        if host.busy:
            host.cancel()
        elif buffer.text:
            buffer.reset()
        elif time.monotonic() - status.exit_armed < EXIT_WINDOW:
            event.app.exit(exception=EOFError)
        else:
            status.exit_armed = time.monotonic()

    @kb.add("c-d", filter=empty, eager=True)
    def _eof(event) -> None:
        event.app.exit(exception=EOFError)

    for key, answer in ANSWERS.items():
        @kb.add(key, filter=asking & empty, eager=True)
        def _answer(event, answer: Answer = answer) -> None:
            host.answer(answer)

    return kb


class AboveThePrompt:
    """A text file whose writes appear above the live prompt, batched every ``delay`` seconds.

    prompt_toolkit's ``patch_stdout`` prints through ``run_in_terminal``, which puts the
    terminal in cooked mode for each write: a key pressed in that window is echoed by the
    kernel, Ctrl-D is lost and Ctrl-C becomes SIGINT. Here the prompt is erased, the text
    written and the prompt redrawn, all in raw mode on the event loop (what ``in_terminal``
    does, minus the cooked mode). Writers are on the event loop thread (bus subscribers).
    """

    encoding = "utf-8"

    def __init__(self, session: PromptSession, delay: float = 0.04):
        self.session = session
        self.delay = delay
        self.pending: list[str] = []
        self.handle: asyncio.TimerHandle | None = None

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        stdout = sys.__stdout__
        if stdout is None:   # started without a stdout at all: no terminal to draw on
            raise OSError("edgar has no standard output")
        return stdout.fileno()

    def write(self, text: str) -> int:
        if text:
            self.pending.append(text)
            if not self.session.app.is_running:
                self.flush_now()            # no prompt on screen: straight through
            elif self.handle is None:
                self.handle = asyncio.get_running_loop().call_later(self.delay, self.flush_now)
        return len(text)

    def flush(self) -> None:
        pass                                 # batched: see write

    def flush_now(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        text, self.pending = "".join(self.pending), []
        if not text:
            return
        app = self.session.app
        drawn = prompt_drawn(app)
        if drawn:
            app.renderer.erase()
        app.output.write_raw(text)
        app.output.flush()
        if drawn:
            redraw_now(app)   # what in_terminal does after its body


def _prompt_names(host: Host) -> list[str]:
    servers = getattr(host.app, "mcp", None)
    return [] if servers is None else list(servers.prompts.copy())   # read from a thread


def make_prompt(host: Host, state: Path, redact) -> PromptSession:
    from prompt_toolkit.styles import Style

    status = Status(host)
    style = Style.from_dict({
        "prompt": "bold ansicyan", "ask": "bold ansiyellow", "tail": "#808080",
        "queued": "ansicyan", "todo": "ansigreen",
        "bottom-toolbar": "noreverse bg:#303030 #c0c0c0" if not os.environ.get("NO_COLOR")
        else "noreverse",
    })
    session: PromptSession = PromptSession(
        message=status.message,
        history=history_for(state / "input_history", redact, lambda line: host.say(line, "yellow")),
        completer=EdgarCompleter(lambda: _prompt_names(host)),
        complete_while_typing=Condition(_completing),
        complete_in_thread=True,
        key_bindings=bindings(host, status), bottom_toolbar=status.toolbar,
        refresh_interval=REFRESH, reserve_space_for_menu=4, style=style,
        enable_history_search=False, mouse_support=False)
    session.app.ttimeoutlen = 0.05   # a lone Esc byte is an Esc after 50 ms
    session.app.timeoutlen = 0.4     # Esc on a non-empty line waits this long for Enter
    return session


def warm_up() -> None:
    """Import what the first answer needs while the person is still typing."""
    try:
        import rich.console  # noqa: F401
        import rich.markdown  # noqa: F401
    except Exception:
        pass


def greet_line(text: str, style: str = "") -> None:
    """The greeting, through prompt_toolkit (already loaded) so rich can load later."""
    from prompt_toolkit import print_formatted_text
    from prompt_toolkit.formatted_text import FormattedText

    pt_style = {"bold": "bold", "dim": "#888888", "cyan": "ansicyan"}.get(style, "")
    print_formatted_text(FormattedText([(pt_style, text)]))
