"""The composition root: the one place that wires edgar together (like cosmicpython's bootstrap).

Guarantees:
- The learning package is attached by name, ``importlib.import_module("edgar.learning")``,
  and only here; when it is not installed edgar runs without it (NFR-12, ADR-0011).
- Everything durable a session writes passes the one ``Redactor`` built here.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Literal, TypeVar

from edgar.bus import Bus
from edgar.config import Settings
from edgar.core.checkpoints import Checkpoints
from edgar.core.instructions import NestedInstructions
from edgar.core.project import ensure_state_dir
from edgar.core.session import Session
from edgar.core.sessionlog import SessionLog, sessions_dir
from edgar.events import Event, TurnStarted
from edgar.redact import Redactor, looks_secret_name
from edgar.memory.store import MemoryStore
from edgar.providers import make_provider
from edgar.providers.base import Message
from edgar.sandbox.session import SessionSandbox
from edgar.tools.permissions import Confirm, PermissionGate
from edgar.tools.registry import default_tools

LEARNING = "edgar.learning"
T = TypeVar("T")


@dataclass
class App:
    root: Path
    state: Path
    settings: Settings
    bus: Bus
    session: Session
    redact: Callable[[str], str]
    memory: MemoryStore
    learning: Any = None          # the attached learning handle, or None when not installed
    closers: list[Callable[[], None]] = field(default_factory=list)
    mcp: Any = None               # edgar.mcp.manager.McpServers when servers are configured
    hooks: Any = None             # edgar.hooks.runner.Hooks when hooks are configured
    starts: list[Callable[[], None]] = field(default_factory=list)      # inside the loop
    async_closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    async def running(self, work: Awaitable[T]) -> T:
        """Run ``work`` with the session's servers and hooks started, and end them after."""
        for start in self.starts:
            start()
        try:
            return await work
        finally:
            for close in reversed(self.async_closers):
                try:
                    await close()
                except Exception:
                    pass

    def close(self) -> None:
        for close in reversed(self.closers):
            try:
                close()
            except Exception:
                pass


def load_learning() -> Any:
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


def permission_gate(root: Path, settings: Settings, bus: Bus,
                    confirm: Confirm | None) -> PermissionGate:
    """The mode plus ``[permissions]`` rules; an "always" rule is saved to the user config."""
    import sys

    from edgar.config import user_dir
    from edgar.events import Notice
    from edgar.tools.permission_config import load_rules, save_allow_rule

    user_config = user_dir() / "config.toml"
    from edgar.sandbox.trust import trusted

    rules = load_rules(user_config, root / ".edgar" / "config.toml", lambda: trusted(root))
    if rules.ignored:
        print(f"edgar: ignoring the project's [permissions] allow rules until you trust the "
              f"project (edgar trust): {', '.join(rules.ignored)}", file=sys.stderr)

    def save(rule: str) -> str | None:
        problem = save_allow_rule(user_config, rule)
        bus.publish(Notice(level="warning" if problem else "info",
                           message=problem or f"saved allow rule `{rule}` to {user_config}"))
        return problem

    return PermissionGate(settings.permission_mode, confirm, allow=rules.allow,
                          deny=rules.deny, root=root, save=save)


def build(root: Path, settings: Settings, *, confirm: Confirm | None = None,
          session_id: str | None = None, history: list[Message] | None = None,
          no_history: bool = False, no_verify: bool = False,
          learning: bool = True,
          on_output: Callable[[str, str], None] | None = None) -> App:
    state = ensure_state_dir(root)
    redact = Redactor.from_environ(os.environ, extra=config_secrets(settings))
    log_holder: list[SessionLog] = []

    def on_error(handler: str, kind: type[Event], exc: BaseException) -> None:
        if log_holder:
            log_holder[0].mark("subscriber_error", handler=handler, event=kind.__name__,
                               error=type(exc).__name__)

    bus = Bus(on_error=on_error)
    provider = make_provider(settings.model, settings)
    memory = MemoryStore(state / "memory.db", redact=redact)
    session = Session(root=root, settings=settings, bus=bus, provider=provider,
                      tools=default_tools(), gate=permission_gate(root, settings, bus, confirm),
                      memory=memory, verify_enabled=not no_verify)
    if session_id:
        session.id = session_id
    if history:
        session.messages = list(history)
    session.nested = NestedInstructions(root, Path.cwd())
    session.display_output = on_output     # a running command's output, shown as it comes
    session.checkpoints = Checkpoints(root, state, session.id)
    bus.subscribe(TurnStarted, session.checkpoints.on_turn_started)
    session.nested.already_seen(m.text() for m in session.messages)
    path = sessions_dir(state) / f"{session.id}.jsonl"
    if session_id and path.is_file():   # -c/-r: the same system prompt as before (ADR-0042)
        from edgar.core.reminders import PromptState
        from edgar.core.sessionlog import load as load_log

        session.prompt = PromptState.from_json(load_log(path).prompt)
    log = SessionLog(path, redact)
    log_holder.append(log)
    session.log = log
    bus.subscribe(Event, log.on_event)
    app = App(root, state, settings, bus, session, redact, memory)
    app.closers.extend([memory.close, log.close])
    session.sandbox = session_sandbox(root, settings, bus, session.id)
    app.closers.append(session.sandbox.close)
    attach_helpers(session, settings, no_verify=no_verify)
    attach_mcp(app)
    attach_hooks(app, resumed=bool(history))
    if learning:
        module = load_learning()
        if module is not None:
            app.learning = module.attach(
                bus, root=root, state=state, settings=settings, memory=memory, redact=redact,
                history=settings.memory.history and not no_history)
            closer = getattr(app.learning, "close", None)
            if closer is not None:
                app.closers.append(closer)
    return app


def session_sandbox(root: Path, settings: Settings, bus: Bus, session_id: str) -> SessionSandbox:
    """How this session's commands run; the first one announces the layers (a Notice)."""
    from edgar.events import Notice
    from edgar.sandbox import Policy

    def policy() -> Policy:
        box = settings.sandbox
        return Policy.for_project(root, mode=box.mode, network=box.network,
                                  extra_writable=tuple(os.path.expanduser(p) for p in box.writable))

    def announce(level: Literal["info", "warning"], message: str) -> None:
        bus.publish(Notice(level=level, message=message, session_id=session_id))

    return SessionSandbox(policy, announce)


def mcp_sandbox(root: Path, bus: Bus, session_id: str, network: bool) -> SessionSandbox:
    """The confinement of stdio MCP servers: the project's policy, network as configured."""
    from edgar.events import Notice
    from edgar.sandbox import Policy

    def announce(level: Literal["info", "warning"], message: str) -> None:
        if level == "warning":  # the layers line is the session sandbox's to say
            bus.publish(Notice(level=level, message=f"mcp: {message}", session_id=session_id))

    return SessionSandbox(lambda: Policy.for_project(root, network=network), announce)


def attach_helpers(session: Session, settings: Settings, *, no_verify: bool = False) -> None:
    """Skills (matcher), verify (an after-stop hook) and compaction for one session."""
    import sys

    from edgar import verify
    from edgar.config import user_dir
    from edgar.core.compaction import Compactor
    from edgar.events import Notice
    from edgar.skills.loader import discover, skill_dirs
    from edgar.skills.matcher import THRESHOLD, Matcher

    if settings.skills.enabled:
        found, warnings = discover(skill_dirs(session.root, user_dir(),
                                              claude=settings.skills.claude_skills))
        for warning in warnings:  # a broken SKILL.md is skipped and said, never fatal
            print(f"edgar: skipped {warning}", file=sys.stderr)
            session.bus.publish(Notice(level="warning", message=f"skipped {warning}",
                                       session_id=session.id))
        threshold = settings.skills.threshold
        session.skills = Matcher(found, threshold=THRESHOLD if threshold is None else threshold,
                                 refractory_turns=settings.skills.refractory_turns,
                                 limit=settings.skills.max_per_surface,
                                 clock=lambda: session.turns)
    if not no_verify:
        verify.attach(session, settings.verify)
    session.compactor = Compactor(settings, session.bus)


def _say_problems(app: App, problems: list[str]) -> None:
    """Each config problem as a warning Notice once the session runs (its renderer and the
    ``-p`` printer subscribe after ``build``); the session goes on without that entry."""
    from edgar.events import Notice

    def say() -> None:
        for message in problems:
            app.bus.publish(Notice(level="warning", message=message, session_id=app.session.id))

    if problems:
        app.starts.insert(0, say)


def attach_mcp(app: App) -> None:
    """MCP servers (``edgar/mcp``) when any is configured; nothing is imported otherwise."""
    from edgar.mcp.config import any_configured

    settings, session = app.settings, app.session
    if not any_configured(app.root, settings.mcp.servers):
        return
    from edgar.config import user_dir
    from edgar.mcp.config import load_servers
    from edgar.mcp.manager import McpServers
    from edgar.trusted import project_trusted

    problems: list[str] = []
    specs = load_servers(app.root, user_dir(), settings.mcp.servers, os.environ, problems)
    _say_problems(app, problems)  # a broken entry is skipped and said; the session goes on
    if not specs:
        return
    mcp = settings.mcp
    servers = McpServers(specs, root=app.root, tools=session.tools, publish=app.bus.publish,
                         session_id=session.id, trusted=project_trusted(app.root),
                         startup_timeout=mcp.startup_timeout, call_timeout=mcp.call_timeout,
                         trust_read_only_hint=mcp.trust_read_only_hint,
                         sandbox=mcp_sandbox(app.root, app.bus, session.id, mcp.network))
    app.mcp = servers
    app.starts.append(servers.begin)
    app.async_closers.append(servers.close)
    session.waits.append(servers.ready)


def attach_hooks(app: App, *, resumed: bool = False) -> None:
    """User hooks (``edgar/hooks``): the guard for the two that may block, bus subscribers
    for the rest (ADR-0044). Nothing is imported when no hook is configured."""
    settings, session = app.settings, app.session
    if not settings.hooks:
        return
    from edgar.config import user_dir
    from edgar.events import ToolFinished, ToolProposed, TurnFinished
    from edgar.hooks.config import load_hooks
    from edgar.hooks.runner import Hooks
    from edgar.trusted import project_trusted

    problems: list[str] = []
    specs = load_hooks(app.root, user_dir(), settings.hooks, problems)
    _say_problems(app, problems)
    if not specs:
        return
    hooks = Hooks(specs, root=app.root, session_id=session.id, publish=app.bus.publish,
                  trusted=project_trusted(app.root), permission_mode=lambda: session.gate.mode,
                  sandbox=session.sandbox)
    app.hooks = hooks
    session.guard = hooks
    session.waits.append(hooks.drain)
    app.bus.subscribe(ToolProposed, hooks.on_tool_proposed)
    app.bus.subscribe(ToolFinished, hooks.on_tool_finished)
    app.bus.subscribe(TurnFinished, hooks.on_turn_finished)
    app.starts.append(lambda: hooks.begin(resumed))
    app.async_closers.append(hooks.close)
