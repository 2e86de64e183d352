"""The composition root: the one place that wires edgar together (like cosmicpython's bootstrap).

Guarantees:
- ``open_project`` builds the one ``Redactor`` (environment secrets plus secret-looking
  config values) and every command uses it: sessions, ``edgar memory``, and, handed over
  as a ``ProjectOpener``, ``edgar stats``/``history``/``import``.
- ``build`` constructs a session in order — id, log, bus, provider, stores, tools, gate,
  sandbox, MCP servers and hooks, session, then subscribers — so no object is built in two
  phases: nothing assigns a Session's collaborators after construction (the architecture test
  checks it; ADR-0059). Only this module subscribes anything to the bus (``App.observe``
  for the CLI's renderers; learning's ``attach``, which this module calls).
- The ``mcp`` SDK and the hooks runner are imported only when a server or a hook is configured.
- The learning package is attached by name, ``importlib.import_module("edgar.learning")``,
  and only here; when it is not installed edgar runs without it (NFR-12, ADR-0011).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from edgar.bus import Bus
from edgar.cli.sandboxes import Sandboxes
from edgar.config import Settings
from edgar.conversation import Message
from edgar.core.autocommit import Committer, GitOutcome, GitRun
from edgar.core.checkpoints import Checkpoints
from edgar.core.commit_writer import Writer
from edgar.core.compaction import Compactor
from edgar.core.instructions import NestedInstructions, instruction_notes
from edgar.core.project import Project
from edgar.core.reminders import PromptState
from edgar.core.session import MessageSink, Planner, Session, new_id
from edgar.core.sessionlog import SessionLog, sessions_dir
from edgar.core.turn import AfterStop, SkillSource
from edgar.events import Event, ModelResponded, Notice, ToolFinished, TurnFinished, TurnStarted
from edgar.memory.store import MemoryStore
from edgar.paths import cache_dir, user_dir
from edgar.providers import make_provider, start_notes
from edgar.redact import Redactor, looks_secret_name
from edgar.sandbox.session import SessionSandbox
from edgar.spawn import Confinement
from edgar.tools.base import Tool
from edgar.tools.permissions import Confirm, PermissionGate
from edgar.tools.registry import default_tools

if TYPE_CHECKING:
    from edgar.config.claude_settings import ClaudeFile
    from edgar.hooks.runner import Hooks
    from edgar.mcp.config import FlagServers
    from edgar.mcp.manager import McpServers
    from edgar.sandbox.policy import Policy

LEARNING = "edgar.learning"
T = TypeVar("T")


class Closable(Protocol):
    def close(self) -> None: ...


@dataclass
class App:
    """One running session and what it owns; ``close()`` releases it all, newest first."""

    project: Project
    state: Path
    bus: Bus
    session: Session
    memory: MemoryStore
    learning: Closable | None = None   # the attached learning handle; None when not installed
    closers: list[Callable[[], None]] = field(default_factory=list)
    mcp: McpServers | None = None   # when MCP servers are configured
    hooks: Hooks | None = None      # when hooks are configured
    starts: list[Callable[[], None]] = field(default_factory=list)      # inside the loop
    async_closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    commits: Committer | None = None   # auto-commit and /commit (ADR-0108)

    async def running(self, work: Awaitable[T]) -> T:
        """Run ``work`` with the session's servers and hooks started, and end them after."""
        for start in self.starts:
            start()
        try:
            return await work
        finally:
            for close in reversed(self.async_closers):
                with contextlib.suppress(Exception):
                    await close()

    @property
    def root(self) -> Path:
        return self.project.root

    @property
    def settings(self) -> Settings:
        return self.project.settings

    @property
    def redact(self) -> Callable[[str], str]:
        return self.project.redact

    def observe(self, handler: Callable[[Event], None]) -> None:
        """Subscribe a CLI renderer or printer to every event of this session."""
        self.bus.subscribe(Event, handler)

    def close(self) -> None:
        for close in reversed(self.closers):
            with contextlib.suppress(Exception):
                close()


def load_learning() -> ModuleType | None:
    """The learning package, or None when it has been removed (NFR-12)."""
    try:
        return importlib.import_module(LEARNING)
    except ModuleNotFoundError as exc:
        if exc.name and LEARNING.startswith(exc.name):
            return None
        raise


def config_secrets(settings: Settings) -> list[str]:
    """Values of config keys whose names look secret (headers such as Authorization)."""
    values: list[str] = []
    for provider in settings.providers.values():
        values.extend(v for k, v in provider.headers.items() if looks_secret_name(k) or
                      k.lower() == "authorization")
    return values


def open_project(root: Path, settings: Settings, secrets: Sequence[str] = ()) -> Project:
    """The project with its one redactor; what every command starts from. ``secrets``: more
    values to redact (a settings file's ``env`` values whose names look secret)."""
    redact = Redactor.from_environ(os.environ, extra=[*config_secrets(settings), *secrets])
    return Project(root=root, settings=settings, redact=redact)


def permission_gate(root: Path, settings: Settings, bus: Bus, confirm: Confirm | None,
                    flag_rules: tuple[list[str], list[str]] = ([], []),
                    claude: list[ClaudeFile] | None = None,
                    problems: list[str] | None = None) -> PermissionGate:
    """The mode plus ``[permissions]`` rules, Claude Code's ``permissions`` (``claude``, their
    mistakes added to ``problems``) and ``--allowedTools``/``--disallowedTools``
    (``flag_rules``, already checked); an "always" rule is saved to the user config."""
    from edgar.tools.permission_config import claude_rules, load_rules, save_allow_rule
    from edgar.tools.rules import parse_rules

    user_config = user_dir() / "config.toml"
    from edgar.config.trust import trusted

    rules = load_rules(user_config, root / ".edgar" / "config.toml", lambda: trusted(root))
    theirs = claude_rules(claude or [], lambda: trusted(root), [] if problems is None else problems)
    if rules.ignored:
        print(f"edgar: ignoring the project's [permissions] allow rules until you trust the "
              f"project (edgar trust): {', '.join(rules.ignored)}", file=sys.stderr)

    def save(rule: str) -> str | None:
        problem = save_allow_rule(user_config, rule)
        bus.publish(Notice(level="warning" if problem else "info",
                           message=problem or f"saved allow rule `{rule}` to {user_config}"))
        return problem

    return PermissionGate(settings.permission_mode, confirm,
                          allow=[*rules.allow, *theirs.allow, *parse_rules(flag_rules[0])],
                          deny=[*rules.deny, *theirs.deny, *parse_rules(flag_rules[1])],
                          ask=theirs.ask, root=root, save=save)


class _Both:
    """Two message sinks as one (the hooks' transcript and ``-p``'s stream-json)."""

    def __init__(self, *sinks: MessageSink):
        self.sinks = sinks

    def message(self, message: Message) -> None:
        for sink in self.sinks:
            sink.message(message)


def _both(first: MessageSink | None, second: MessageSink | None) -> MessageSink | None:
    if first is None or second is None:
        return first or second
    return _Both(first, second)


def build(root: Path, settings: Settings, *, confirm: Confirm | None = None,
          session_id: str | None = None, history: list[Message] | None = None,
          no_history: bool = False, no_verify: bool = False,
          learning: bool = True,
          on_output: Callable[[str, str], None] | None = None,
          planner: Planner | None = None, echo: MessageSink | None = None,
          flag_rules: tuple[list[str], list[str]] = ([], []),
          mcp_flag: FlagServers | None = None) -> App:
    from edgar.tools.committed import Baseline

    baseline = Baseline.take(root)   # first: before a hook, a server or a command can commit
    claude_problems: list[str] = []   # said at start with the others
    claude = claude_files(root, claude_problems)   # Claude Code's settings files (ADR-0079)
    set_env = settings_env(root, claude, claude_problems)
    project = open_project(root, settings, [v for k, v in set_env if looks_secret_name(k)])
    state = project.ensure_state()
    sid = session_id or new_id()
    path = sessions_dir(state) / f"{sid}.jsonl"
    prompt = PromptState()
    if session_id and path.is_file():   # -c/-r: the same system prompt as before (ADR-0042)
        from edgar.core.sessionlog import load as load_log

        prompt = PromptState.from_json(load_log(path).prompt)
    log = SessionLog(path, project.redact)

    def on_error(handler: str, kind: type[Event], exc: BaseException) -> None:
        log.mark("subscriber_error", handler=handler, event=kind.__name__,
                 error=type(exc).__name__)

    bus = Bus(on_error=on_error)
    provider = make_provider(settings.model, settings)
    memory = project.memory()
    turns = _TurnCount()
    skills = _skills(root, settings, bus, sid, turns)
    compactor = Compactor(settings)
    verifier = None
    if not no_verify and (settings.verify.command or "").strip():
        from edgar.verify import Verifier

        verifier = Verifier(settings.verify, recheck=project_recheck(root, "verify.command"))
    after_stop: list[AfterStop] = [verifier] if verifier is not None else []
    nested = NestedInstructions(root, Path.cwd())   # instruction files of touched dirs
    nested.already_seen(m.text() for m in history or [])
    sandbox = session_sandbox(root, settings, bus, sid, set_env)
    checkpoints = Checkpoints(root, state, sid, sandbox=sandbox)   # its git runs in there
    sandboxes = Sandboxes(root, settings, lambda level, message: bus.publish(
        Notice(level=level, message=message, session_id=sid)), set_env)
    tools = default_tools(settings.web)
    # broken server or hook entries (skipped), a retiring model: said at the start
    problems: list[str] = start_notes(provider, settings)
    problems += instruction_notes(root, Path.cwd(), user_dir())   # imports not followed
    problems += claude_problems
    servers = mcp_servers(root, settings, bus, sid, tools, problems, sandboxes, mcp_flag)
    transcript_file = sessions_dir(state) / "transcripts" / f"{sid}.jsonl"   # hooks only
    # the gate is made just below; a hook reads its mode only while the session runs
    hooks = user_hooks(root, settings, bus, sid, lambda: gate.mode, sandbox, sandboxes,
                       transcript_file, problems, claude)
    gate = permission_gate(root, settings, bus, hooks.notifying(confirm)
                           if hooks is not None and confirm is not None else confirm, flag_rules,
                           claude, problems)
    transcript = None
    if hooks is not None:   # what a hook's transcript_path names, kept current
        from edgar.hooks.transcript import Transcript

        transcript = Transcript(transcript_file, session_id=sid, root=root,
                                redact=project.redact, history=history or [])
        if hooks.configured("Stop") or hooks.configured("SubagentStop"):
            after_stop.append(hooks)   # after verify: its fix rounds come first
    waits: list[Callable[[], Awaitable[None]]] = []   # before every model call
    if servers is not None:
        waits.append(servers.ready)
    if hooks is not None:
        waits.append(hooks.drain)
    session = Session(root=root, settings=settings, bus=bus, provider=provider,
                      tools=tools, gate=gate, id=sid, messages=list(history or []), log=log,
                      memory=memory, skills=skills, compactor=compactor,
                      before_step=[compactor], after_stop=after_stop, sandbox=sandbox,
                      prompt=prompt, nested=nested, checkpoints=checkpoints,
                      display_output=on_output,   # a running command's output, as it comes
                      guard=hooks, waits=waits, transcript=_both(transcript, echo),
                      planner=planner, baseline=baseline)
    bus.subscribe(Event, log.on_event)
    bus.subscribe(TurnStarted, checkpoints.on_turn_started)
    bus.subscribe(TurnFinished, turns.on_finished)
    bus.subscribe(ModelResponded, compactor.on_response)
    if verifier is not None:
        bus.subscribe(ToolFinished, verifier.on_tool)
    handle: Closable | None = None
    module = load_learning() if learning else None
    if module is not None:   # its subscribers come last, after the session's own
        handle = module.attach(bus, state=state, memory=memory, redact=project.redact,
                               history=settings.memory.history and not no_history)
    closers = [memory.close, log.close, sandbox.close, sandboxes.close] + (
        [transcript.close] if transcript is not None else []) + ([handle.close] if handle else [])
    commits = Committer(root=root, state=state, run=own_git(root, sandbox),
                        redact=project.redact, session_id=sid,
                        enabled=settings.git.auto_commit,
                        writer=Writer(session, sid) if settings.git.commit_message == "model"
                        else None,
                        say=lambda level, message: bus.publish(Notice(
                            level="warning" if level == "warning" else "info",
                            message=message, session_id=sid)))
    app = App(project, state, bus, session, memory, learning=handle, closers=closers,
              mcp=servers, hooks=hooks, commits=commits,
              starts=_starts(bus, sid, problems, servers, hooks, resumed=bool(history)),
              async_closers=[x.close for x in (servers, hooks) if x is not None])
    return app


def own_git(root: Path, sandbox: Confinement) -> GitRun:
    """edgar's own git for this session: inside the session's sandbox, neutralised."""
    from edgar.sandbox.git import git

    def run(args: Sequence[str], *, input: bytes | None = None) -> Awaitable[GitOutcome]:
        return git(args, root=root, sandbox=sandbox.get(), input=input)

    return run


def own_committer(root: Path, state: Path, sandbox: Confinement) -> Committer:
    """A ``Committer`` outside a session (``edgar undo``): git in ``sandbox``, what it says
    printed on stderr."""
    def printed(level: str, message: str) -> None:
        print(f"edgar: {message}", file=sys.stderr)

    return Committer(root=root, state=state, run=own_git(root, sandbox),
                     redact=Redactor.from_environ(os.environ), say=printed, session_id="")


def session_sandbox(root: Path, settings: Settings, bus: Bus, session_id: str,
                    set_env: tuple[tuple[str, str], ...] = ()) -> SessionSandbox:
    """How this session's commands run; the first one announces the layers (a Notice)."""
    from edgar.cli.sandboxes import session_policy

    def policy() -> Policy:
        return session_policy(root, settings, set_env=set_env)

    def announce(level: Literal["info", "warning"], message: str) -> None:
        bus.publish(Notice(level=level, message=message, session_id=session_id))

    return SessionSandbox(policy, announce)


class _TurnCount:
    """Typed (depth-0) turns finished so far: the skills matcher's refractory clock."""

    def __init__(self) -> None:
        self.turns = 0

    def on_finished(self, event: TurnFinished) -> None:
        if event.depth == 0:
            self.turns += 1

    def __call__(self) -> int:
        return self.turns


def _skills(root: Path, settings: Settings, bus: Bus, session_id: str,
            clock: Callable[[], int]) -> SkillSource | None:
    """The skills matcher for this project, or None when skills are off."""
    if not settings.skills.enabled:
        return None
    from edgar.skills.loader import discover, skill_dirs
    from edgar.skills.matcher import THRESHOLD, Matcher

    found, warnings = discover(skill_dirs(root, user_dir(), claude=settings.skills.claude_skills))
    for warning in warnings:  # a broken SKILL.md is skipped and said, never fatal
        print(f"edgar: skipped {warning}", file=sys.stderr)
        bus.publish(Notice(level="warning", message=f"skipped {warning}", session_id=session_id))
    threshold = settings.skills.threshold
    return Matcher(found, threshold=THRESHOLD if threshold is None else threshold,
                   refractory_turns=settings.skills.refractory_turns,
                   limit=settings.skills.max_per_surface, clock=clock)


def _starts(bus: Bus, session_id: str, problems: list[str], servers: McpServers | None,
            hooks: Hooks | None, *, resumed: bool) -> list[Callable[[], None]]:
    """What ``App.running`` starts inside the loop, in order: the config problems said as
    warning Notices (the renderer and the ``-p`` printer subscribe after ``build``), then the
    MCP servers, then the hooks (SessionStart)."""
    def publish() -> None:
        for message in problems:
            bus.publish(Notice(level="warning", message=message, session_id=session_id))

    def say() -> None:
        # at the work's first pause, not now: ``-p``'s printer subscribes when its work starts
        import asyncio

        asyncio.get_running_loop().call_soon(publish)

    starts: list[Callable[[], None]] = [say] if problems else []
    if servers is not None:
        starts.append(servers.begin)
    if hooks is not None:
        starts.append(lambda: hooks.begin(resumed))
    return starts


def mcp_servers(root: Path, settings: Settings, bus: Bus, session_id: str,
                tools: dict[str, Tool], problems: list[str],
                sandboxes: Sandboxes, flag: FlagServers | None = None) -> McpServers | None:
    """MCP servers (``edgar/mcp``) when any is configured; nothing is imported otherwise.
    Their tools join ``tools`` as they start; a broken entry is skipped and added to
    ``problems``, and the session goes on. A stdio server runs in the session's sandbox
    widened by its own opt-ins and the download cache (``sandboxes``, ADR-0102).
    ``flag``: ``--mcp-config``'s servers win for their names; with ``--strict-mcp-config``
    they are the only ones (ADR-0114)."""
    from edgar.mcp.config import any_configured

    given, strict = (flag.specs, flag.strict) if flag is not None else ((), False)
    problems.extend(flag.warnings if flag is not None else ())
    if not given and (strict or not any_configured(root, settings.mcp.servers)):
        return None
    from edgar.config.trust import lapse_reason
    from edgar.config.trust import trusted as project_trusted
    from edgar.mcp.config import load_servers
    from edgar.mcp.manager import McpServers

    specs = [] if strict else load_servers(root, user_dir(), settings.mcp.servers, os.environ,
                                           problems)
    named = {spec.name for spec in given}
    specs = [spec for spec in specs if spec.name not in named] + list(given)
    if not specs:
        return None
    mcp = settings.mcp
    return McpServers(specs, root=root, tools=tools, publish=bus.publish, session_id=session_id,
                      trusted=project_trusted(root), startup_timeout=mcp.startup_timeout,
                      call_timeout=mcp.call_timeout,
                      trust_read_only_hint=mcp.trust_read_only_hint,
                      max_message=mcp.max_message_bytes, confine=sandboxes,
                      network=mcp.network, cache=cache_dir() / "mcp",
                      lapsed=lapse_reason(root))


def project_recheck(root: Path, key: str | None = None) -> Callable[[], str | None] | None:
    """For what trusted project config runs (``key``: only when the project's file sets it):
    asked before each run, why trust no longer holds (a script changed, ADR-0073), or None."""
    from edgar.config import trust

    if not trust.trusted(root):
        return None   # untrusted at start: no project setting applies, nothing to ask again
    if key is not None and not any(h.key == key for h in trust.wanted(root)):
        return None   # the person's own setting: theirs, not the project's

    def why() -> str | None:
        if trust.trusted(root):
            return None
        return trust.lapse_reason(root) or "the project is no longer trusted (`edgar trust`)"

    return why


def claude_files(root: Path, problems: list[str]) -> list[ClaudeFile]:
    """Claude Code's settings files of this person and project, lowest precedence first;
    what edgar reads there but does not honour is added to ``problems`` (said at start)."""
    from edgar.config.claude_settings import read_all, unhonoured
    from edgar.paths import claude_dir

    files = read_all(root, claude_dir(), problems)
    problems += unhonoured(files)
    return files


def settings_env(root: Path, claude: list[ClaudeFile],
                 problems: list[str]) -> tuple[tuple[str, str], ...]:
    """The variables Claude Code's settings files set for the session's commands, later
    files winning: the person's own file at once, a project's once it is trusted."""
    from edgar.config.claude_settings import env_of, not_for_commands

    found: dict[str, str] = {}
    trusted: bool | None = None
    for file in claude:
        values = env_of(file, problems)
        if values and file.origin == "project":
            if trusted is None:
                from edgar.config.trust import trusted as project_trusted

                trusted = project_trusted(root)
            if not trusted:
                continue   # said by trust's start-up line
        found.update(values)
        problems += not_for_commands(file, values)
    return tuple(found.items())


def user_hooks(root: Path, settings: Settings, bus: Bus, session_id: str,
               mode: Callable[[], str], sandbox: SessionSandbox, sandboxes: Sandboxes,
               transcript: Path, problems: list[str],
               claude: list[ClaudeFile] | None = None) -> Hooks | None:
    """User hooks (``edgar/hooks``): the session's guard around prompts, tool calls and
    compaction, an ``after_stop`` for Stop hooks (ADR-0044, ADR-0100), from edgar's config
    and Claude Code's settings files (``claude``). Nothing is imported when no hook is
    configured."""
    if not settings.hooks and not any("hooks" in f.data for f in claude or []):
        return None
    from edgar.config.trust import lapse_reason
    from edgar.config.trust import trusted as project_trusted
    from edgar.hooks.config import load_hooks
    from edgar.hooks.runner import Hooks

    is_trusted = project_trusted(root)
    specs = load_hooks(root, user_dir(), settings.hooks, problems, claude, is_trusted)
    if not specs:
        return None
    return Hooks(specs, root=root, session_id=session_id, publish=bus.publish,
                 trusted=is_trusted, permission_mode=mode,
                 sandbox=sandbox, confine=sandboxes, transcript=transcript,
                 lapsed=lapse_reason(root), recheck=project_recheck(root))
