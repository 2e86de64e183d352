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
from typing import Any, Callable

from edgar.bus import Bus
from edgar.config import Settings
from edgar.conversation import Message
from edgar.core.project import ensure_state_dir
from edgar.core.session import Session
from edgar.core.sessionlog import SessionLog, sessions_dir
from edgar.events import Event
from edgar.memory.redact import Redactor, looks_secret_name
from edgar.memory.store import MemoryStore
from edgar.providers import make_provider
from edgar.tools.permissions import Confirm, PermissionGate
from edgar.tools.registry import default_tools

LEARNING = "edgar.learning"


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


def build(root: Path, settings: Settings, *, confirm: Confirm | None = None,
          session_id: str | None = None, history: list[Message] | None = None,
          no_history: bool = False, no_verify: bool = False,
          learning: bool = True) -> App:
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
                      tools=default_tools(), gate=PermissionGate(settings.permission_mode, confirm),
                      memory=memory)
    if session_id:
        session.id = session_id
    if history:
        session.messages = list(history)
    log = SessionLog(sessions_dir(state) / f"{session.id}.jsonl", redact)
    log_holder.append(log)
    session.log = log
    bus.subscribe(Event, log.on_event)
    app = App(root, state, settings, bus, session, redact, memory)
    app.closers.extend([memory.close, log.close])
    attach_helpers(session, settings, no_verify=no_verify)
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


def attach_helpers(session: Session, settings: Settings, *, no_verify: bool = False) -> None:
    """Skills (matcher), verify (an after-stop hook) and compaction for one session."""
    import sys

    from edgar import verify
    from edgar.config import user_dir
    from edgar.core.compaction import Compactor
    from edgar.events import ModelResponded, Notice, ToolFinished
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
    if not no_verify and (settings.verify.command or "").strip():
        verifier = verify.Verifier(settings.verify)
        session.bus.subscribe(ToolFinished, verifier.on_tool)
        session.after_stop.append(verifier)
    compactor = Compactor(settings)
    session.bus.subscribe(ModelResponded, compactor.on_response)
    session.compactor = compactor
    session.before_step.append(compactor)
