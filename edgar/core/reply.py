"""One model response as conversation blocks, exactly as the provider streamed them.

Guarantees:
- Blocks keep the order they arrived in. Each thinking block stays one block with its own
  signature (a signed ``ThinkingChunk`` closes the block it ends), so two blocks are never
  merged into one whose signature no longer matches; ``redacted_thinking`` is kept byte for
  byte in its place, and so is a block the provider ran itself (``ServerPart``: a web search
  and its results).
- Text is never sent back blank: text that is only whitespace is not a block (the Anthropic
  API rejects whitespace-only text blocks, and every later turn of the session with it).
- A tool call whose arguments did not parse becomes a ``ToolUseBlock`` with ``{}`` (the
  conversation stays valid); whether it runs is the loop's decision, not this module's.
- Pure: no I/O, no events.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from edgar.conversation import (
    Block,
    RedactedThinkingBlock,
    ServerBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from edgar.providers.base import (
    RedactedThinking,
    ServerPart,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCall,
)


@dataclass
class Reply:
    """Feed it every stream event of one response; ``blocks()`` is the assistant message."""

    _blocks: list[Block] = field(default_factory=list)
    _text: list[str] = field(default_factory=list)       # the open text block
    _thinking: list[str] = field(default_factory=list)   # the open thinking block
    calls: list[ToolCall] = field(default_factory=list)
    _shown: list[str] = field(default_factory=list)      # every text chunk, as streamed

    def feed(self, item: StreamEvent) -> None:
        if isinstance(item, TextChunk):
            self._close_thinking()
            self._text.append(item.text)
            self._shown.append(item.text)
        elif isinstance(item, ThinkingChunk):
            self._close_text()
            self._thinking.append(item.text)
            if item.signature:
                self._close_thinking(item.signature)
        elif isinstance(item, RedactedThinking):
            self._close_text()
            self._close_thinking()
            self._blocks.append(RedactedThinkingBlock(item.data))
        elif isinstance(item, ServerPart):
            self._close_text()
            self._close_thinking()
            self._blocks.append(ServerBlock(item.data))
        elif isinstance(item, ToolCall):
            self._close_text()
            self._close_thinking()
            self.calls.append(item)
            self._blocks.append(ToolUseBlock(item.id, item.name,
                                             item.input if item.input is not None else {}))

    def _close_text(self) -> None:
        text = "".join(self._text)
        self._text = []
        if text.strip():
            self._blocks.append(TextBlock(text))

    def _close_thinking(self, signature: str = "") -> None:
        text = "".join(self._thinking)
        self._thinking = []
        if text or signature:
            self._blocks.append(ThinkingBlock(text, signature))

    def blocks(self) -> list[Block]:
        """The response so far as blocks (open text and thinking closed, nothing lost)."""
        self._close_text()
        self._close_thinking()
        return list(self._blocks)

    def text(self) -> str:
        """The answer text so far exactly as it streamed (what the person saw)."""
        return "".join(self._shown)
