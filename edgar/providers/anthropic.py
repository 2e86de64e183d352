"""Anthropic Messages API (``POST {base}/v1/messages``, streaming) without the SDK.

Guarantees:
- A missing key is a ``ProviderError(usage_error=True)`` raised by the constructor, before any
  request. The key goes in ``x-api-key`` or ``Authorization: Bearer`` (``providers.anthropic.auth``)
  and nowhere else. Base URL: ``ANTHROPIC_BASE_URL`` > ``providers.anthropic.base_url`` > default.
- ``temperature`` is sent only when configured and only to versions before 2026-10-21, which
  reject it (configuring it with the new version is a usage error, not a silent drop).
- Stream: ``text_delta`` -> ``TextChunk`` as it arrives; ``thinking_delta`` -> ``ThinkingChunk``
  (never mixed into the answer), the block's ``signature`` as one ``ThinkingChunk("", sig)``
  at its stop; ``input_json_delta`` is assembled and parsed at block stop -> ``ToolCall``
  (``input=None`` when it does not parse). Usage is cumulative: ``message_delta`` overwrites.
  ``Finished`` comes after ``message_stop``; a stream cut before it is an error, not success.
- Tool results go back as ``user`` ``tool_result`` blocks; signed thinking blocks go back as is.
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

from edgar.config import ProviderSettings
from edgar.conversation import (
    Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock, Usage,
)
from edgar.providers.base import (
    Finished, ModelRequest, ProviderError, StreamEvent, TextChunk, ThinkingChunk, ToolCall,
)
from edgar.providers.http import Connection, WireProvider, parse_json
from edgar.providers.http_errors import Hints, stream_error

DEFAULT_BASE = "https://api.anthropic.com"
SAMPLING_REMOVED = "2026-10-21"  # first anthropic-version that rejects temperature/top_p/top_k
_CACHE = {"type": "ephemeral"}


class AnthropicProvider(WireProvider):
    name = "anthropic"

    def __init__(self, model: str, settings: ProviderSettings):
        self.model = model
        self._decoder = _Decoder
        self.settings = settings
        key_env = settings.api_key_env or "ANTHROPIC_API_KEY"
        key = os.environ.get(key_env, "").strip()
        if not key:
            raise ProviderError("anthropic", f"anthropic: no API key — set {key_env} (export "
                                f"{key_env}=...) or choose another --model", usage_error=True)
        if settings.temperature is not None and settings.version >= SAMPLING_REMOVED:
            raise ProviderError("anthropic", f"anthropic: anthropic-version {settings.version} "
                                "does not accept temperature — remove providers.anthropic."
                                "temperature or set providers.anthropic.version = "
                                "\"2023-06-01\"", usage_error=True)
        base = os.environ.get("ANTHROPIC_BASE_URL") or settings.base_url or DEFAULT_BASE
        base = base.rstrip("/")
        auth = ({"authorization": f"Bearer {key}"} if settings.auth == "bearer"
                else {"x-api-key": key})
        headers = {"anthropic-version": settings.version, **auth, **settings.headers}
        hints = Hints("anthropic", model, key_env, "ANTHROPIC_BASE_URL", base)
        self._conn = Connection(settings, hints, base + "/v1/messages", headers, key)

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON sent for ``request`` (public: tests check it without a server)."""
        max_tokens = min(request.max_tokens, self.settings.max_tokens)
        body: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens,
                                "messages": to_wire(request.messages), "stream": True}
        if request.system:
            # A cache breakpoint on the system prompt: it repeats on every call of a session.
            body["system"] = [{"type": "text", "text": request.system, "cache_control": _CACHE}]
        if request.tools:
            body["tools"] = [{"name": t.name, "description": t.description,
                              "input_schema": t.input_schema} for t in request.tools]
        budget = self.settings.thinking_budget
        if budget and max_tokens > budget:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if self.settings.temperature is not None and self.settings.version < SAMPLING_REMOVED:
            body["temperature"] = self.settings.temperature
        return body



def to_wire(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        blocks: list[dict[str, Any]] = []
        for b in message.content:
            if isinstance(b, TextBlock) and b.text:  # the API rejects empty text blocks
                blocks.append({"type": "text", "text": b.text})
            elif isinstance(b, ThinkingBlock) and b.signature:  # unsigned thinking is refused
                blocks.append({"type": "thinking", "thinking": b.text, "signature": b.signature})
            elif isinstance(b, ToolUseBlock):
                blocks.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
            elif isinstance(b, ToolResultBlock):
                blocks.append({"type": "tool_result", "tool_use_id": b.tool_use_id,
                               "content": b.content, "is_error": b.is_error})
        # tool_result blocks must open a user turn
        blocks.sort(key=lambda blk: blk["type"] != "tool_result")
        if blocks:
            out.append({"role": message.role, "content": blocks})
    if out and out[-1]["role"] == "user":
        # Second cache breakpoint: the newest turn, so the next call reads the whole prefix.
        last = out[-1]["content"][-1]
        out[-1]["content"][-1] = {**last, "cache_control": _CACHE}
    return out


class _Decoder:
    """State of one streamed message: open blocks by index, usage, stop reason."""

    def __init__(self, hints: Hints, model: str):
        self.hints = hints
        self.model = model
        self.done = False
        self.stop_reason: str | None = None
        self.usage: dict[str, int] = {}
        self.blocks: dict[int, dict[str, Any]] = {}

    def feed(self, event: str, data: str) -> Sequence[StreamEvent]:
        if event == "ping":
            return ()
        obj = parse_json(data)
        if not isinstance(obj, dict):
            return ()
        kind = obj.get("type", event)
        if kind == "content_block_delta":
            delta = obj.get("delta") or {}
            dtype = delta.get("type")
            if dtype == "text_delta":
                return (TextChunk(delta.get("text", "")),)
            block = self.blocks.get(obj.get("index", -1))
            if block is None:
                return ()
            if dtype == "input_json_delta":
                block["json"].append(delta.get("partial_json", ""))
            elif dtype == "thinking_delta":
                return (ThinkingChunk(delta.get("thinking", "")),)
            elif dtype == "signature_delta":
                block["signature"] += delta.get("signature", "")
            return ()
        if kind == "content_block_start":
            block = obj.get("content_block") or {}
            self.blocks[obj.get("index", -1)] = {
                "type": block.get("type"), "id": block.get("id", ""), "name": block.get("name", ""),
                "json": [], "input": block.get("input") or {}, "signature": block.get("signature", "")}
            if block.get("type") == "text" and block.get("text"):
                return (TextChunk(block["text"]),)
            return ()
        if kind == "content_block_stop":
            return self._close(self.blocks.pop(obj.get("index", -1), None))
        if kind == "message_start":
            message = obj.get("message") or {}
            self.model = message.get("model") or self.model
            self._usage(message.get("usage"))
        elif kind == "message_delta":
            self.stop_reason = (obj.get("delta") or {}).get("stop_reason") or self.stop_reason
            self._usage(obj.get("usage"))
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            err = obj.get("error") or {}
            raise stream_error(self.hints, str(err.get("message", "")), str(err.get("type", "")))
        return ()

    def _close(self, block: dict[str, Any] | None) -> Sequence[StreamEvent]:
        if block is None:
            return ()
        if block["type"] == "tool_use":
            raw = "".join(block["json"]).strip()
            try:
                # no deltas: some proxies send the whole input in content_block_start
                parsed = json.loads(raw) if raw else block["input"]
            except ValueError:
                parsed = None
            tool_input = parsed if isinstance(parsed, dict) else None
            return (ToolCall(block["id"], block["name"], tool_input),)
        if block["type"] == "thinking" and block["signature"]:
            return (ThinkingChunk("", signature=block["signature"]),)
        return ()

    def _usage(self, raw: Any) -> None:
        # Cumulative counts: a later value replaces an earlier one, it is never added to it.
        if isinstance(raw, dict):
            for key, value in raw.items():
                if isinstance(value, int):
                    self.usage[key] = value

    def finish(self) -> Sequence[StreamEvent]:
        if not self.done:
            raise ProviderError(self.hints.provider, f"{self.hints.provider}: the stream ended "
                                "before the answer was complete (truncated) — the partial answer "
                                "is kept; try again")
        u = self.usage
        usage = Usage(u.get("input_tokens", 0), u.get("output_tokens", 0),
                      u.get("cache_creation_input_tokens", 0), u.get("cache_read_input_tokens", 0))
        return (Finished(self.stop_reason or "end_turn", usage, self.model),)
