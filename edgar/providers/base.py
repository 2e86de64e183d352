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

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Protocol, Union

from edgar.conversation import Message, ToolSpec, Usage

__all__ = [
    "ModelRequest", "TextChunk", "ThinkingChunk", "ToolCall", "Finished", "StreamEvent",
    "Provider", "ProviderError",
]


@dataclass(slots=True)
class ModelRequest:
    system: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int = 8192


# --- stream -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TextChunk:
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingChunk:
    text: str
    signature: str = ""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete tool call. ``input`` is None when the model's JSON did not parse."""

    id: str
    name: str
    input: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Finished:
    stop_reason: str
    usage: Usage
    model: str = ""


StreamEvent = Union[TextChunk, ThinkingChunk, ToolCall, Finished]


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


class Provider(Protocol):
    name: str
    model: str

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        ...

    async def aclose(self) -> None:
        ...
