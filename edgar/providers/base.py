"""The provider seam: one neutral conversation shape, one stream shape, one error type.

Guarantees:
- The loop talks to every provider through ``Provider.stream(request)``, an async iterator
  of ``StreamEvent`` values ending in exactly one ``Finished`` — or raising ``ProviderError``.
- Conversation blocks are provider-neutral; each provider module converts them to and from
  its own wire format.
- ``ProviderError`` messages are written by edgar (provider, status, what to do) and never
  include a key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Literal, Protocol, Union

from edgar.events import Usage

__all__ = [
    "TextBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "Block", "Message",
    "ToolSpec", "ModelRequest", "TextChunk", "ThinkingChunk", "ToolCall", "Finished",
    "StreamEvent", "Provider", "ProviderError", "Usage",
]


# --- conversation -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """Model reasoning; kept so providers that need it back (Anthropic signatures) get it."""

    text: str
    signature: str = ""
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]
    type: Literal["tool_use"] = "tool_use"


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    """What a tool returned to the model. The only place tool output lives."""

    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"


Block = Union[TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock]


@dataclass(slots=True)
class Message:
    role: Literal["user", "assistant"]
    content: list[Block]

    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {"role": self.role, "content": [asdict(b) for b in self.content]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> "Message":
        kinds = {"text": TextBlock, "thinking": ThinkingBlock, "tool_use": ToolUseBlock,
                 "tool_result": ToolResultBlock}
        blocks: list[Block] = []
        for raw in data.get("content", []):
            cls = kinds.get(raw.get("type"))
            if cls is not None:
                blocks.append(cls(**{k: v for k, v in raw.items()}))
        return Message(role=data["role"], content=blocks)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


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
