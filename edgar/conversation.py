"""The conversation vocabulary every layer shares: messages, their blocks, tool specs, usage.

Guarantees:
- Imports nothing from edgar (floor 1): core, tools, the session log, the token counter and
  the providers all import these types from here, never from ``providers``.
- Provider-neutral: each provider module translates these to and from its own wire format.
- Blocks are frozen values; a ``Message`` is mutable only in that the loop builds its list.
- ``Message.to_json``/``from_json`` round-trip every block (the session log's format,
  ADR-0003); ``from_json`` skips block types it does not know rather than failing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

__all__ = ["Attachment", "TextBlock", "ImageBlock", "ThinkingBlock", "RedactedThinkingBlock",
           "ServerBlock", "ToolUseBlock",
           "ToolResultBlock", "Block", "Message", "ToolSpec", "Usage"]


@dataclass(frozen=True, slots=True)
class TextBlock:
    """Plain text, from the person (user) or the model (assistant)."""

    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An image the model sees: base64 ``data`` of ``media_type`` (PNG, JPEG, GIF or WebP),
    within the providers' limits (``edgar.images`` makes every one). ``source`` names where it
    came from (a path, an MCP tool) for people; ``width``/``height`` are its pixels."""

    media_type: str
    data: str
    source: str = ""
    width: int = 0
    height: int = 0
    type: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """Model reasoning; kept so providers that need it back (Anthropic signatures) get it."""

    text: str
    signature: str = ""
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True, slots=True)
class RedactedThinkingBlock:
    """Reasoning the provider encrypted (Anthropic ``redacted_thinking``): sent back byte for
    byte."""

    data: str
    type: Literal["redacted_thinking"] = "redacted_thinking"


@dataclass(frozen=True, slots=True)
class ServerBlock:
    """A block only its provider understands, kept exactly as it came and sent back as it is
    (Anthropic's ``server_tool_use`` and ``web_search_tool_result`` of its web search)."""

    data: dict[str, Any]
    type: Literal["server"] = "server"


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    """The model asks for a tool; ``input`` is ``{}`` when its JSON did not parse."""

    id: str
    name: str
    input: dict[str, Any]
    type: Literal["tool_use"] = "tool_use"


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    """What a tool returned to the model. The only place tool output lives; ``images`` are
    the pictures it returned (``read`` of a PNG, an MCP tool's image content)."""

    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"
    images: tuple[ImageBlock, ...] = ()


Block = (TextBlock | ImageBlock | ThinkingBlock | RedactedThinkingBlock | ServerBlock
         | ToolUseBlock | ToolResultBlock)
_KINDS: dict[str, type[Block]] = {"text": TextBlock, "image": ImageBlock,
                                   "thinking": ThinkingBlock, "server": ServerBlock,
                                   "redacted_thinking": RedactedThinkingBlock,
                                   "tool_use": ToolUseBlock, "tool_result": ToolResultBlock}


@dataclass(slots=True)
class Message:
    """One message of the conversation the model sees."""

    role: Literal["user", "assistant"]
    content: list[Block]

    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "content": [asdict(b) for b in self.content]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Message:
        blocks: list[Block] = []
        for raw in data.get("content", []):
            cls = _KINDS.get(raw.get("type"))
            if cls is ToolResultBlock and "images" in raw:
                raw = {**raw, "images": tuple(ImageBlock(**i) for i in raw["images"])}
            if cls is not None:
                blocks.append(cls(**raw))
        return Message(role=data["role"], content=blocks)


Attachment = tuple[str, str | ImageBlock]
"""(source, body) of something the person attached without typing it: ``@path``, ``stdin``,
``/command``; the body is text, or an image."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model is told about it: name, description, JSON Schema of its input."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one model response (cumulative for that response, never summed twice).

    Invariant: ``reported`` is False when the provider sent no usage at all; the counts are
    then unknown (shown as null), not zero, and a sum with an unreported part is unreported.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    reported: bool = True

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.reported and other.reported,
        )

    @property
    def total(self) -> int:
        return (self.input_tokens + self.output_tokens + self.cache_write_tokens
                + self.cache_read_tokens)
