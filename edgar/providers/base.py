"""The provider seam: one neutral conversation shape, one stream shape, one error type.

Guarantees:
- The loop talks to every provider through ``Provider.stream(request)``, an async iterator
  of ``StreamEvent`` values ending in exactly one ``Finished`` — or raising ``ProviderError``.
- The conversation itself (``Message``, blocks, ``ToolSpec``, ``Usage``) is
  ``edgar.conversation``; each provider module converts it to and from its own wire format.
- ``ProviderError`` messages are written by edgar (provider, status, what to do) and never
  include a key.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any, Protocol

from edgar.conversation import Message, ToolSpec, Usage

__all__ = [
    "ModelRequest", "TextChunk", "ThinkingChunk", "RedactedThinking", "ServerPart", "ToolCall",
    "Finished",
    "STOP_REASONS", "StreamEvent", "Provider", "ProviderError",
]


@dataclass(slots=True)
class ModelRequest:
    """One request. ``max_tokens`` None: the provider's configured ``max_tokens`` (what the
    person set is what is sent); a number: the smaller of it and the configured one (a
    summary's or a ping's own cap). ``server_tools``: provider-side tools (Anthropic's web
    search) sent as they are, after the client tools."""

    system: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int | None = None
    server_tools: list[dict[str, Any]] = field(default_factory=list)

    def output_limit(self, configured: int) -> int:
        return configured if self.max_tokens is None else min(self.max_tokens, configured)


# --- stream -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TextChunk:
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingChunk:
    """Reasoning text as it streams. A chunk with a ``signature`` closes one thinking block:
    the text since the previous close is that block's (so two blocks stay two blocks)."""

    text: str
    signature: str = ""


@dataclass(frozen=True, slots=True)
class RedactedThinking:
    """One whole ``redacted_thinking`` block, in its place among the others."""

    data: str


@dataclass(frozen=True, slots=True)
class ServerPart:
    """One whole block the provider ran itself (a web search and its results), to keep and
    send back exactly as it came; never run by edgar."""

    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete tool call. ``input`` is None when the model's JSON did not parse."""

    id: str
    name: str
    input: dict[str, Any] | None


# Why a response stopped, in the neutral words the loop acts on (docs/providers.md lists the
# outcome of each). Anything else a server says is passed on as it came.
STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn",
                "model_context_window_exceeded")


@dataclass(frozen=True, slots=True)
class Finished:
    """The end of one response. ``stop_reason`` is neutral (``STOP_REASONS``);
    ``wire_stop_reason`` is the provider's own word (``"length"``) for messages.
    ``usage.reported`` is False when the server sent no usage at all; ``billed_usd`` is the
    server's own figure where it sends one, used when edgar's price table has no price."""

    stop_reason: str
    usage: Usage
    model: str = ""
    wire_stop_reason: str = ""
    billed_usd: float | None = None   # what the server says it charged (OpenRouter's usage.cost)


StreamEvent = TextChunk | ThinkingChunk | RedactedThinking | ServerPart | ToolCall | Finished


class ProviderError(Exception):
    """A provider failed. ``message`` says what happened and what the person can do."""

    def __init__(self, provider: str, message: str, status: int | None = None,
                 retryable: bool = False, usage_error: bool = False):
        super().__init__(message)
        self.provider = provider
        self.message = message
        self.status = status
        self.retryable = retryable
        # usage_error: the person's setup is wrong (no key, bad model) -> exit 2, not 1
        self.usage_error = usage_error
        # what the failed response had reported before it failed (kept, and billed)
        self.usage: Usage | None = None
        # the request was longer than the model's context window ("prompt is too long",
        # context_length_exceeded): compacting the conversation may let it through
        self.context_exceeded = False
        self.model = ""


class Provider(Protocol):
    name: str
    model: str

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """A generator, not just an iterator: ``model_call`` closes it (``aclosing``) so a
        cancelled or failed call releases its connection at once."""
        ...

    async def aclose(self) -> None:
        ...
