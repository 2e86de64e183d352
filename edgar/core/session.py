"""One conversation: its id, settings, provider, tools, history and optional helpers.

Guarantees: a Session is the only state a turn reads or changes; the messages list is the
conversation the model sees, and every message appended through ``append`` is also written
to the session log (redacted), so ``-c``/``-r`` restore exactly what the model saw, and to
the ``transcript`` when hooks are configured.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from edgar.bus import Bus
from edgar.config import Settings
from edgar.conversation import Message, Usage
from edgar.core.queue import PromptQueue
from edgar.core.reminders import PromptState
from edgar.core.turn import AfterStop, BeforeStep, SkillSource
from edgar.providers.base import Provider
from edgar.tools.base import Tool, ToolGuard
from edgar.tools.permissions import PermissionGate
from edgar.tools.todo_list import TodoList

if TYPE_CHECKING:
    from edgar.core.checkpoints import Checkpoints
    from edgar.core.compaction import Compactor
    from edgar.core.instructions import NestedInstructions
    from edgar.core.sessionlog import SessionLog
    from edgar.memory.store import Fact, MemoryStore
    from edgar.sandbox.session import SessionSandbox
    from edgar.tools.committed import Baseline


class Guard(ToolGuard, Protocol):
    """User hooks that may say no or add to what the model sees (ADR-0044, ADR-0100): before a
    prompt is sent, around a tool call (``ToolGuard``), before compaction."""

    async def before_prompt(self, text: str) -> str | None:
        """None to send the prompt, else why it is not sent (the person sees it)."""

    def prompt_context(self) -> list[str]:
        """What hooks added for the model to go with the prompt just allowed (SessionStart's
        and UserPromptSubmit's context), each once; empty when there is none."""
        ...

    async def before_compact(self, trigger: str, instructions: str) -> str | None:
        """PreCompact: None to compact, else why the hooks said no (the person sees it)."""


class MessageSink(Protocol):
    """Somewhere else each appended message is written (a hook's ``transcript_path``)."""

    def message(self, message: Message) -> None: ...


class Planner(Protocol):
    """Who sees the plan a model ends plan mode with (the REPL's question; none in ``-p``)."""

    async def review(self, plan: str, then: str) -> bool:
        """True when the person approves it and the turn goes on in mode ``then``."""


def new_id() -> str:
    # 12 random hex digits, as uuid4().hex[:12] gave (its first 48 bits are random), without
    # importing uuid, which imports platform (~4 ms of start-up on every run).
    return os.urandom(6).hex()


@dataclass
class Session:
    root: Path
    settings: Settings
    bus: Bus
    provider: Provider
    tools: dict[str, Tool]
    gate: PermissionGate
    id: str = field(default_factory=new_id)
    messages: list[Message] = field(default_factory=list)
    queue: PromptQueue = field(default_factory=PromptQueue)
    log: SessionLog | None = None
    memory: MemoryStore | None = None
    skills: SkillSource | None = None
    compactor: Compactor | None = None      # also in before_step; named for /compact
    before_step: list[BeforeStep] = field(default_factory=list)
    nested: NestedInstructions | None = None   # instruction files of touched dirs
    checkpoints: Checkpoints | None = None      # copies of changed files, for /undo
    display_output: Callable[[str, str], None] | None = None  # (call id, text): the screen only
    after_stop: list[AfterStop] = field(default_factory=list)
    sandbox: SessionSandbox | None = None   # how this session's commands run
    guard: Guard | None = None
    planner: Planner | None = None            # None: a plan is the turn's result (-p)
    todos: TodoList = field(default_factory=TodoList)   # the model's checklist (todo_write)
    transcript: MessageSink | None = None    # the Claude-Code-shaped copy hooks read
    # awaited before every model call: MCP servers still starting, hooks still running
    waits: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    cost: float = 0.0
    cost_known: bool = True
    usage: Usage = field(default_factory=Usage)
    turns: int = 0
    prompt: PromptState = field(default_factory=PromptState)   # byte-stable system prompt
    baseline: Baseline | None = None   # the commit and moment it began on (tools/committed.py)

    def append(self, message: Message) -> None:
        self.messages.append(message)
        if self.log is not None:
            self.log.message(message)
        if self.transcript is not None:
            self.transcript.message(message)

    async def ready(self) -> None:
        """Wait for background work the next model call depends on (tools, formatters)."""
        for wait in list(self.waits):
            await wait()

    def facts(self) -> list[Fact]:
        """Active facts for the system prompt (newest first, within the budget)."""
        if self.memory is None:
            return []
        try:
            return self.memory.active(self.settings.memory.budget_chars)
        except Exception:  # a broken store must not stop the person working
            return []

    @property
    def model_name(self) -> str:
        return f"{self.provider.name}:{self.provider.model}"
