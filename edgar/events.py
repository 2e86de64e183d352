"""Every event that crosses edgar's bus.

Guarantees:
- Events are frozen values. Every one carries ``session_id``, ``turn_id`` and ``depth``
  (0 = the person's own session; a subagent's events carry its parent's depth + 1).
- No event carries tool output, stderr or exception text. A failure travels as an
  ``ErrorRecord``: four fields the harness computed itself (design.md §3.4).
- ``PromptTyped`` is text a person typed. Only ``cli/repl.py`` (in ``submit()``) and
  ``cli/oneshot.py`` (in ``run_prompt()``) construct it; tests/unit/test_architecture.py fails
  if any other file does (it checks files, not functions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from edgar.conversation import Usage

ErrorKind = Literal[
    "exit_nonzero",
    "exit_answer",       # a non-zero exit that is an answer (grep: no match); never a fact
    "timeout",
    "not_found",
    "permission_denied",
    "denied",
    "edit_no_match",
    "edit_not_unique",
    "validation",
    "cancelled",
    "provider_http",
    "io_error",
    "internal",
    "max_turns",
    "subagent_failed",
    "output_limit",      # a response cut off at max_tokens (or the context window)
    "refusal",           # the model declined to answer
    "mcp_error",         # an MCP server answered isError, refused the call, or went away
]
Outcome = Literal["ok", "error", "cancelled", "blocked"]
NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class ErrorRecord:
    """A failure as a shape: tool name, kind, exit code (or HTTP status) and program basename.

    Invariant: every field is chosen by the harness, never copied from what the failing
    command, the model or a server wrote.
    """

    tool: str
    kind: ErrorKind
    exit_code: int | None = None
    program: str | None = None


class Where(TypedDict):
    """``Event``'s three place fields, to spread into a constructor: ``TurnStarted(**where)``."""

    session_id: str
    turn_id: str
    depth: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event: where it happened. ``depth`` 0 is the person's own session."""

    session_id: str = ""
    turn_id: str = ""
    depth: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptTyped(Event):
    """A line a person typed (REPL) or passed as ``-p``. ``queued`` = typed while a turn ran.

    Invariant: ``text`` is exactly what was typed; nothing is appended to it. ``remember``:
    the line was ``# text`` (the person asked edgar to remember it; no turn starts).
    """

    text: str
    queued: bool = False
    remember: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Attached(Event):
    """Bodies the person attached without typing them (piped stdin, ``@path`` files).

    Invariant: never becomes a fact; ``sources`` names where each body came from.
    """

    bodies: tuple[str, ...]
    sources: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(Event):
    """A turn began (its id is ``turn_id``); ``model`` is the model it will call."""

    model: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueDelivered(Event):
    """``count`` queued lines were joined into one burst and delivered to the running turn."""

    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsActivated(Event):
    """Skills whose bodies were added to this turn's context."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta(Event):
    """A piece of the model's answer as it streamed. Model text, never a person's."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingDelta(Event):
    """A piece of the model's reasoning, kept apart from the answer."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolProposed(Event):
    """The model asked for a tool call. ``args`` are the model's, not the person's."""

    call_id: str
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutput(Event):
    """A running tool has printed ``lines`` lines (``size`` bytes) so far: progress only.

    Invariant: carries counts, never the output's text. The text goes only to the display
    sink ``cli/setup.py`` wires (the REPL's collapsed tail); learning ignores this event.
    """

    call_id: str
    tool: str
    lines: int = 0
    size: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFinished(Event):
    """A tool call ended. ``files`` are paths it changed; ``error`` is set iff ``ok`` is false."""

    call_id: str
    tool: str
    ok: bool
    files: tuple[str, ...] = ()
    duration: float = 0.0
    error: ErrorRecord | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyFinished(Event):
    """The configured check ran after edits."""

    command: str
    passed: bool
    exit_code: int | None
    duration: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponded(Event):
    """One model response finished. ``cost`` is None when the model has no known price."""

    model: str
    usage: Usage
    cost: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Compacted(Event):
    """Older turns were replaced by a visible summary; token estimates before and after."""

    tokens_before: int
    tokens_after: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnFinished(Event):
    """Fires exactly once per turn. ``error`` carries the shape of what ended it, if anything.

    ``blocked``: a UserPromptSubmit hook refused the prompt before any ``PromptTyped`` was
    published; nothing was sent to the model, learned or kept (ADR-0077)."""

    outcome: Outcome
    duration: float = 0.0
    cost: float | None = None
    tokens: int = 0
    error: ErrorRecord | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FactLearned(Event):
    """A fact became active because of this session, so the person can see it and undo it.

    Invariant: published only by the learning package, right after the store has made fact
    ``fact_id`` active; ``text`` is the text as stored (one redacted line), ``provenance``
    its provenance, and ``reactivated`` is true when a line typed now re-activated a fact that
    was pending, rejected or forgotten. ``replaced_id`` names the active fact this one
    superseded (ADR-0080), forgotten in the same transaction, and ``replaced_text`` its text;
    None and "" when it replaced none.
    """

    fact_id: int
    text: str
    provenance: str
    reactivated: bool = False
    replaced_id: int | None = None
    replaced_text: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class FactProposed(Event):
    """A typed clause read as a standing instruction without the directive form (issue 22).

    Invariant: published only by the learning package, right after the store has added fact
    ``fact_id`` as *pending* with provenance ``user-prompt-implicit`` (never active on its
    own); ``text`` is its stored text. Text already stored (a proposal turned down before, or
    a known rule) is not proposed again.
    """

    fact_id: int
    text: str
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Notice(Event):
    """Something the person should see that is not model text (a warning, a subscriber failure).

    Invariant: ``message`` is written by edgar, never copied from tool output. It may quote
    one bounded, single-line excerpt of what a program the person configured said (an MCP
    server's last stderr line, a hook's reason): Notices are shown and logged, never learned.
    """

    level: NoticeLevel
    message: str


ALL_EVENTS: tuple[type[Event], ...] = (
    PromptTyped, Attached, TurnStarted, QueueDelivered, SkillsActivated, TextDelta,
    ThinkingDelta, ToolProposed, ToolOutput, ToolFinished, VerifyFinished, ModelResponded,
    Compacted, TurnFinished, FactLearned, FactProposed, Notice,
)


def to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of the event with its type name under ``"type"``."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for name in event.__dataclass_fields__:
        out[name] = _plain(getattr(event, name))
    return out


def _plain(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {k: _plain(getattr(value, k)) for k in value.__dataclass_fields__}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
