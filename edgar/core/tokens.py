"""Token accounting for the context: an estimate, calibrated by what the provider reports.

Guarantees:
- Before the first response every count is ``ceil(chars / 4)``; after a response whose
  request size in characters is known, counts use that request's measured tokens-per-char
  (``input + cache_read + cache_write`` tokens over its characters), clamped to a sane band
  so one odd usage report cannot make the estimate absurd.
- Every function here is pure except ``Ledger.observe``; nothing calls a model.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass

from edgar.conversation import (
    ImageBlock,
    Message,
    ServerBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)

DEFAULT_RATIO = 0.25           # tokens per character before any provider has answered
RATIO_BAND = (0.1, 1.0)        # code ~0.3, prose ~0.25, CJK ~1: outside this, usage is odd
MIN_CALIBRATION = 2_000        # chars: below this a provider's fixed overhead skews the ratio
MESSAGE_OVERHEAD = 16          # characters' worth of role markers and separators per message


def image_chars(block: ImageBlock) -> int:
    """An image's weight in characters: Anthropic bills about width × height / 750 tokens."""
    return max(block.width * block.height // 750, 85) * 4


def block_chars(block: object) -> int:
    if isinstance(block, ImageBlock):
        return image_chars(block)
    if isinstance(block, ServerBlock):
        return len(json.dumps(block.data, ensure_ascii=False))
    if isinstance(block, TextBlock):
        return len(block.text)
    if isinstance(block, ThinkingBlock):
        return len(block.text)
    if isinstance(block, ToolUseBlock):
        return len(block.name) + len(json.dumps(block.input, ensure_ascii=False))
    if isinstance(block, ToolResultBlock):
        return len(block.content) + sum(image_chars(i) for i in block.images)
    return 0


def message_chars(message: Message) -> int:
    return MESSAGE_OVERHEAD + sum(block_chars(b) for b in message.content)


def tools_chars(tools: Iterable[ToolSpec]) -> int:
    return sum(len(t.name) + len(t.description) + len(json.dumps(t.input_schema)) for t in tools)


def request_chars(system: str, messages: Iterable[Message], tools: Iterable[ToolSpec]) -> int:
    """The size of a request in characters: what calibration and estimates are made on."""
    return len(system) + sum(message_chars(m) for m in messages) + tools_chars(tools)


def prompt_tokens(usage: Usage) -> int:
    """Tokens the provider read for a request: uncached input plus both cache kinds."""
    return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens


@dataclass
class Ledger:
    """Tokens-per-character for one session, calibrated by provider usage."""

    ratio: float = DEFAULT_RATIO
    calibrated: bool = False
    last_prompt_tokens: int | None = None

    def tokens(self, chars: int) -> int:
        return math.ceil(chars * self.ratio)

    def message_tokens(self, message: Message) -> int:
        return self.tokens(message_chars(message))

    def messages_tokens(self, messages: Iterable[Message]) -> int:
        return sum(self.message_tokens(m) for m in messages)

    def observe(self, request_chars: int, usage: Usage) -> None:
        """Calibrate from one response: its request had ``request_chars`` characters."""
        measured = prompt_tokens(usage)
        if measured <= 0 or request_chars < MIN_CALIBRATION:
            return  # no input tokens reported (a script), or too small a request to tell
        self.last_prompt_tokens = measured
        low, high = RATIO_BAND
        self.ratio = min(high, max(low, measured / request_chars))
        self.calibrated = True
