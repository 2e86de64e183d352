"""What the parts of a turn may see of the session: narrow Protocols that ``core.session``'s
``Session`` satisfies by its shape (issue 27 item 3).

Guarantees:
- The model call, compaction (a ``BeforeStep``) and the stop hooks (verify, Stop and
  SubagentStop user hooks, each an ``AfterStop``) take one of these views, never ``Session``:
  none of them can reach the session's tools' gate, its queue or its wiring, and nothing the
  session imports imports it back (the architecture test checks the graph for circles).
- This module imports only leaves (bus, conversation, providers, tools, sandbox, the prompt's
  fact shape); it never imports ``core.session`` or a module that does.
- A field a view declares as a plain attribute is one its user assigns (the model call adds
  usage and cost); everything else is read-only (a property).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from edgar.bus import Bus
from edgar.conversation import Message, Usage
from edgar.core.context import FactLike
from edgar.providers.base import Provider
from edgar.tools.base import Tool

if TYPE_CHECKING:  # the sandbox's session half loads with the first command, not at start
    from edgar.sandbox.session import SessionSandbox

__all__ = ["CallView", "Marks", "StepView", "StopView", "CompactGuard"]


class Marks(Protocol):
    """Where a view's user leaves a mark for ``-c``/``-r`` (the session log)."""

    def mark(self, what: str, **data: Any) -> None: ...


class CompactGuard(Protocol):
    """The user hooks' say on compaction (PreCompact)."""

    async def before_compact(self, trigger: str, instructions: str) -> str | None: ...


class CallView(Protocol):
    """What one model call reads and adds to: the provider, the bus it publishes on, and the
    session's running usage and cost."""

    usage: Usage
    cost: float
    cost_known: bool

    @property
    def bus(self) -> Bus: ...

    @property
    def provider(self) -> Provider: ...


class StepView(CallView, Protocol):
    """What a ``BeforeStep`` hook (compaction) may read and change: the conversation the model
    sees (changed in place), the tools' specs, the active facts, the log, the PreCompact hooks."""

    @property
    def id(self) -> str: ...

    @property
    def root(self) -> Path: ...

    @property
    def messages(self) -> list[Message]: ...

    @property
    def tools(self) -> Mapping[str, Tool]: ...

    @property
    def guard(self) -> CompactGuard | None: ...

    @property
    def log(self) -> Marks | None: ...

    def facts(self) -> Sequence[FactLike]: ...


class StopView(Protocol):
    """What an ``AfterStop`` hook may read: which session, where, the sandbox its commands
    run in, and the bus to say what it did."""

    @property
    def id(self) -> str: ...

    @property
    def root(self) -> Path: ...

    @property
    def bus(self) -> Bus: ...

    @property
    def sandbox(self) -> SessionSandbox | None: ...
