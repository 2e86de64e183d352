"""Slash commands of the REPL: ``/help``, ``/exit``, ``/clear``, ``/model``, ``/mode``, ``/cost``,
``/memory``, ``/forget``, ``/compact``, ``/skills``, ``/skill``, ``/undo``, ``/commit``, ``/diff``,
``/mcp``.

Guarantees:
- A line is a command iff ``is_command`` says so (``/word`` with a known or path-free
  word); a command is never sent to the model, even when typed while a turn runs.
- Commands that would change the conversation under a running turn (``/clear``,
  ``/compact``) refuse while one runs and say why.
- Optional parts (compaction, skills, memory, checkpoints, MCP servers) may be None; a
  command whose part is absent says "not available" instead of failing. What a command may
  use is declared in ``Host`` and ``AppView``; nothing is looked up by name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from edgar.tools.modes import MODES, PLAN

if TYPE_CHECKING:
    from edgar.core.autocommit import Committer
    from edgar.core.session import Session
    from edgar.mcp.manager import McpServers
    from edgar.memory.store import MemoryStore


class AppView(Protocol):
    """What a command may use of the running app (cli/setup.py's ``App``)."""

    @property
    def session(self) -> Session: ...

    @property
    def memory(self) -> MemoryStore | None: ...

    @property
    def commits(self) -> Committer | None:
        """Auto-commit and ``/commit`` (ADR-0108), or None where there is no git."""
        ...

    @property
    def mcp(self) -> McpServers | None:
        """The MCP servers, or None when none is configured."""
        ...


class Host(Protocol):
    """What a command may use of the REPL (cli/repl.py's ``Repl``)."""

    @property
    def app(self) -> AppView: ...

    @property
    def busy(self) -> bool: ...

    def say(self, text: str, style: str = "") -> None: ...

    def request_exit(self) -> None: ...

    def run_foreground(self, work: Awaitable[Any]) -> None: ...

    def custom_commands(self) -> list[tuple[str, str, str]]:
        """(name, where, description) of the command files ``/help`` lists."""
        ...

    def note_for_model(self, text: str) -> None:
        """Send ``text`` with the next prompt, as an attachment (never as typed text)."""
        ...


Handler = Callable[[Host, str], Awaitable[None] | None]


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    help: str
    handler: Handler
    idle_only: bool = False


COMMANDS: dict[str, Command] = {}


def command(name: str, usage: str, help: str, idle_only: bool = False):
    def register(handler: Handler) -> Handler:
        COMMANDS[name] = Command(name, usage, help, handler, idle_only)
        return handler
    return register


ALIASES = {"quit": "exit", "q": "exit", "?": "help"}


def is_command(line: str) -> bool:
    """``/word …`` where word is a command, or anything that does not look like a path."""
    if not line.startswith("/") or line.startswith("//"):
        return False
    word = line[1:].split(maxsplit=1)[0] if line[1:].strip() else ""
    return word in COMMANDS or word in ALIASES or "/" not in word


async def run(host: Host, line: str) -> None:
    word, _, arg = line[1:].strip().partition(" ")
    cmd = COMMANDS.get(ALIASES.get(word, word))
    if cmd is None:
        host.say(f"unknown command /{word} — /help lists them", "yellow")
        return
    if cmd.idle_only and host.busy:
        host.say(f"/{cmd.name} waits for the running turn: press Esc to stop it first", "yellow")
        return
    from edgar.storage.broken import BrokenState

    try:
        result = cmd.handler(host, arg.strip())
        if result is not None:
            await result
    except BrokenState as exc:   # a state file that is not what edgar wrote: said, kept
        host.say(f"/{cmd.name}: {exc}", "yellow")


@command("help", "/help", "this list")
def _help(host: Host, arg: str) -> None:
    for cmd in COMMANDS.values():
        host.say(f"  {cmd.usage:<18} {cmd.help}")
    for name, where, description in host.custom_commands():
        host.say(f"  /{name:<17} {description} ({where})")
    host.say("  Enter sends · Esc-Enter new line · Up/Ctrl-R history · @path attaches a file")
    host.say("  !cmd runs a command (its output goes with your next prompt) · # text remembers it")
    host.say("  Esc or Ctrl-C interrupts a turn · typing while it works queues your lines")
    host.say("  Ctrl-C twice on an empty prompt, or Ctrl-D, exits")


@command("exit", "/exit", "leave edgar (edgar -c continues this session)")
def _exit(host: Host, arg: str) -> None:
    host.request_exit()


@command("clear", "/clear", "start a new conversation", idle_only=True)
def _clear(host: Host, arg: str) -> None:
    session = host.app.session
    session.messages.clear()
    if session.log is not None:
        session.log.mark("clear")
    host.say("new conversation (the model no longer sees the earlier messages)", "dim")


@command("model", "/model [NAME]", "show or switch the model (PROVIDER:MODEL)")
def _model(host: Host, arg: str) -> None:
    from edgar.providers import make_provider, start_notes
    from edgar.providers.base import ProviderError

    session = host.app.session
    if not arg:
        host.say(f"model: {session.model_name}")
        return
    try:
        session.provider = make_provider(arg, session.settings)
    except ProviderError as exc:
        host.say(exc.message, "red")
        return
    host.say(f"model: {session.model_name}", "dim")
    for note in start_notes(session.provider, session.settings):
        host.say(f"edgar: {note}", "yellow")


@command("mode", "/mode [NAME]", "show or set the permission mode")
def _mode(host: Host, arg: str) -> None:
    gate = host.app.session.gate
    if not arg:
        host.say(f"mode: {gate.mode} (one of {', '.join(MODES)})")
    elif arg not in MODES:
        host.say(f"unknown mode {arg!r}: one of {', '.join(MODES)}", "red")
    elif arg == PLAN:
        _plan(host, "")
    else:
        gate.mode, gate.before_plan = arg, None
        host.say(f"mode: {arg}", "dim")


@command("plan", "/plan", "plan mode: read-only tools, then a plan to approve (/plan again leaves)")
def _plan(host: Host, arg: str) -> None:
    gate = host.app.session.gate
    if gate.mode == PLAN:
        host.say(f"plan mode off: mode {gate.leave_plan()}", "dim")
        return
    gate.enter_plan()
    host.say(f"plan mode: the model reads and plans, changes nothing, and shows you the plan "
             f"(y carries it out in {gate.before_plan} mode; /plan again leaves)", "dim")


@command("cost", "/cost", "tokens and cost of this session")
def _cost(host: Host, arg: str) -> None:
    from edgar.cli.render import money

    s = host.app.session
    u = s.usage
    cost = money(s.cost) if s.cost_known else f"at least {money(s.cost)} (some models unpriced)"
    host.say(f"{s.turns} turn(s) · {cost} · {u.input_tokens:,} in · {u.output_tokens:,} out · "
             f"{u.cache_read_tokens:,} cache read · {u.cache_write_tokens:,} cache write")


@command("memory", "/memory", "facts edgar remembers (active and pending)")
def _memory(host: Host, arg: str) -> None:
    store = host.app.memory
    if store is None:
        host.say("memory is not available", "yellow")
        return
    for status, note in (("active", "reach every prompt"),
                         ("pending", "wait for `edgar memory review`")):
        facts = store.list(status)
        host.say(f"{status} ({len(facts)}) — {note}", "bold")
        for fact in facts[:50]:
            host.say(f"  #{fact.id} {fact.text}  [{fact.provenance}]")


@command("forget", "/forget ID", "stop using fact ID (edgar memory list shows ids)")
def _forget(host: Host, arg: str) -> None:
    store = host.app.memory
    if store is None:
        host.say("memory is not available", "yellow")
        return
    if not arg.strip().isdigit():
        host.say("usage: /forget ID (the number after `fact` in a remembered: line)", "yellow")
        return
    try:
        fact = store.forget(int(arg))
    except Exception as exc:  # ReviewError: unknown id, already forgotten
        host.say(f"edgar: {exc}", "yellow")
        return
    host.say(f"forgot fact {fact.id}: {fact.text}", "dim")


@command("compact", "/compact [FOCUS]", "summarise older turns to free context", idle_only=True)
def _compact(host: Host, arg: str) -> None:
    session = host.app.session
    if session.compactor is None:
        host.say("compaction is not available", "yellow")
        return
    host.run_foreground(session.compactor.compact(session, arg or None))


@command("skills", "/skills", "list the project's skills")
def _skills(host: Host, arg: str) -> None:
    skills = host.app.session.skills
    if skills is None:
        host.say("skills are not available", "yellow")
        return
    rows = list(skills.list())
    if not rows:
        host.say("no skills (add .edgar/skills/NAME/SKILL.md)")
    for name, description, score in rows:
        last = "" if score is None else f"  (last score {score:.2f})"
        host.say(f"  {name:<20} {description}{last}")


@command("skill", "/skill NAME", "add a skill to the next model call")
def _skill(host: Host, arg: str) -> None:
    skills = host.app.session.skills
    if skills is None:
        host.say("skills are not available", "yellow")
        return
    if not arg:
        host.say("usage: /skill NAME (/skills lists them)", "yellow")
        return
    try:
        known = skills.force(arg)
    except (KeyError, ValueError, LookupError):
        known = None
    if not known:  # force() returns None for an unknown name
        host.say(f"no skill {arg!r} (/skills lists them)", "red")
        return
    host.say(f"skill {arg} will be in the next model call", "dim")


@command("undo", "/undo [N] [--force]", "put back the files the last (N) turns changed",
         idle_only=True)
async def _undo(host: Host, arg: str) -> None:
    from edgar.core.checkpoints import describe, describe_refusal

    store = host.app.session.checkpoints
    if store is None:
        host.say("checkpoints are not available", "yellow")
        return
    words = arg.split()
    force = "--force" in words
    words = [w for w in words if w != "--force"]
    if len(words) > 1 or (words and (not words[0].isdigit() or int(words[0]) < 1)):
        host.say("usage: /undo [N] [--force] — N turns, at least 1", "yellow")
        return
    from edgar.cli.commit_undo import undo

    done, refusal = await undo(store, host.app.commits, int(words[0]) if words else 1,
                               host.app.session.id, force=force)
    if refusal is not None:
        host.say(f"/undo: {refusal}; nothing was changed", "yellow")
        return
    if done.changed:
        for line in describe_refusal(done.changed):
            host.say(line, "yellow")
        return
    if not done.steps:
        host.say("nothing to undo: no turn of this session has changed files", "yellow")
        return
    lines = describe(done.steps)
    host.say(f"undid {len(done.steps)} turn{'s' * (len(done.steps) != 1)}:", "bold")
    for line in lines:
        host.say(f"  {line}")
    # the model must not go on believing its edits are still there
    host.note_for_model("The user ran /undo; these files are back as they were before your "
                        "change: " + "; ".join(line.strip() for line in lines
                                               if line.startswith("  ")))


@command("commit", "/commit [MESSAGE]", "commit every pending change (and the files edgar "
         "wrote), as edgar's", idle_only=True)
async def _commit(host: Host, arg: str) -> None:
    commits = host.app.commits
    if commits is None:
        host.say("commit is not available here", "yellow")
        return
    await commits.commit_pending(arg.strip())   # what it did is said as a Notice


@command("diff", "/diff", "this session's changes as a unified diff")
async def _diff(host: Host, arg: str) -> None:
    store = host.app.session.checkpoints
    if store is None:
        host.say("checkpoints are not available", "yellow")
        return
    text = await store.diff()
    if not text:
        host.say("no changes in this session (or all undone)", "dim")
        return
    for row in text.splitlines():
        style = ("bold" if row.startswith(("---", "+++")) else
                 {"+": "green", "-": "red", "@": "cyan"}.get(row[:1], ""))
        host.say(row, style)


@command("mcp", "/mcp", "MCP servers: state and tools")
def _mcp(host: Host, arg: str) -> None:
    from edgar.cli.mcp_cmd import format_rows

    servers = host.app.mcp
    for line in format_rows(servers.rows() if servers is not None else []):
        host.say(line)
