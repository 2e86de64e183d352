"""Anthropic Messages API (``POST {base}/v1/messages``, streaming) without the SDK.

Guarantees:
- A missing key is a ``ProviderError(usage_error=True)`` raised by the constructor, before any
  request. The key goes in ``x-api-key`` or ``Authorization: Bearer`` (``providers.anthropic.auth``)
  and nowhere else. Base URL: ``ANTHROPIC_BASE_URL`` > ``providers.anthropic.base_url`` > default.
- ``temperature`` is sent only when configured and only to versions before 2026-10-21, which
  reject it (configuring it with the new version is a usage error, not a silent drop).
- What is configured is sent: ``max_tokens`` (a request's own cap only lowers it),
  ``thinking = "adaptive"`` as ``{"type": "adaptive"}`` (a usage error for a model the table
  says does not take it), ``thinking_budget`` as ``{"type": "enabled", "budget_tokens": …}``
  whenever the response may hold it; ``notes()`` says what the API deprecates in that.
- Stream: ``text_delta`` -> ``TextChunk`` as it arrives; ``thinking_delta`` -> ``ThinkingChunk``
  (never mixed into the answer), the block's ``signature`` as one ``ThinkingChunk("", sig)``
  at its stop; ``input_json_delta`` is assembled and parsed at block stop -> ``ToolCall``
  (``input=None`` when it does not parse). Usage is cumulative: ``message_delta`` overwrites.
  ``Finished`` comes after ``message_stop``; a stream cut before it is an error, not success.
- Tool results go back as ``user`` ``tool_result`` blocks; signed thinking blocks go back as is;
  a block of a tool the server ran (``server_tool_use``, ``web_search_tool_result``) is kept
  whole (``ServerPart``) and goes back exactly as it came. ``[web] search = true`` offers the
  server's ``web_search`` tool (``web_search_20250305``) with every request.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from edgar.config import ProviderSettings
from edgar.conversation import (
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    ServerBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from edgar.providers import wire
from edgar.providers.base import (
    Finished,
    ModelRequest,
    ProviderError,
    RedactedThinking,
    ServerPart,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCall,
)
from edgar.providers.http import Connection, WireProvider
from edgar.providers.http_errors import Hints, stream_error, truncated
from edgar.providers.models import anthropic_version, enabled_deprecated, takes_adaptive

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
        self.version = settings.version or anthropic_version()
        if settings.thinking == "adaptive" and not takes_adaptive(model):
            raise ProviderError("anthropic", f'anthropic: {model} does not take thinking = '
                                '"adaptive" (Claude 4.6 and later do) — set providers.anthropic.'
                                'thinking_budget instead, or choose another --model',
                                usage_error=True)
        if settings.temperature is not None and self.version >= SAMPLING_REMOVED:
            raise ProviderError("anthropic", f"anthropic: anthropic-version {self.version} "
                                "does not accept temperature — remove providers.anthropic."
                                "temperature or set providers.anthropic.version = "
                                "\"2023-06-01\"", usage_error=True)
        base = os.environ.get("ANTHROPIC_BASE_URL") or settings.base_url or DEFAULT_BASE
        base = base.rstrip("/")
        auth = ({"authorization": f"Bearer {key}"} if settings.auth == "bearer"
                else {"x-api-key": key})
        headers = {"anthropic-version": self.version, **auth, **settings.headers}
        hints = Hints("anthropic", model, key_env, "ANTHROPIC_BASE_URL", base)
        self._conn = Connection(settings, hints, base + "/v1/messages", headers, key)

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON sent for ``request`` (public: tests check it without a server)."""
        max_tokens = request.output_limit(self.settings.max_tokens)
        messages = to_wire(request.messages)
        mark_cache(messages)
        body: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens,
                                "messages": messages, "stream": True}
        if request.system:
            # A cache breakpoint on the system prompt (with the tools before it): byte-stable
            # for the whole session (core/context.py), so every call reads it from the cache.
            body["system"] = [{"type": "text", "text": request.system, "cache_control": _CACHE}]
        if request.tools or request.server_tools:
            body["tools"] = [{"name": t.name, "description": t.description,
                              "input_schema": t.input_schema} for t in request.tools]
            body["tools"] += request.server_tools
        budget = self.settings.thinking_budget
        if self.settings.thinking == "adaptive":
            body["thinking"] = {"type": "adaptive"}
        elif budget and max_tokens > budget:
            # a request with its own lower cap (a summary, a ping) cannot hold the budget:
            # the API refuses budget_tokens >= max_tokens, so that one call thinks not at all
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if self.settings.temperature is not None and self.version < SAMPLING_REMOVED:
            body["temperature"] = self.settings.temperature
        return body

    def notes(self) -> list[str]:
        """What the person should hear at the start about this provider's settings."""
        if self.settings.thinking_budget and enabled_deprecated(self.model):
            return [f"providers.anthropic.thinking_budget sends thinking.type = \"enabled\", "
                    f"which the API deprecates for {self.model}: set thinking = \"adaptive\" "
                    "(and remove thinking_budget)"]
        return []


def to_wire(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        blocks: list[dict[str, Any]] = []
        for b in message.content:
            if isinstance(b, TextBlock) and b.text.strip():  # the API rejects blank text blocks
                blocks.append({"type": "text", "text": b.text})
            elif isinstance(b, ThinkingBlock) and b.signature:  # unsigned thinking is refused
                blocks.append({"type": "thinking", "thinking": b.text, "signature": b.signature})
            elif isinstance(b, ServerBlock):
                blocks.append(dict(b.data))
            elif isinstance(b, RedactedThinkingBlock):
                blocks.append({"type": "redacted_thinking", "data": b.data})
            elif isinstance(b, ToolUseBlock):
                blocks.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
            elif isinstance(b, ImageBlock):
                blocks.append(_image(b))
            elif isinstance(b, ToolResultBlock):
                content: str | list[dict[str, Any]] = b.content
                if b.images:   # a tool's pictures travel inside its result, after its text
                    content = ([{"type": "text", "text": b.content}] if b.content.strip() else [])
                    content += [_image(i) for i in b.images]
                blocks.append({"type": "tool_result", "tool_use_id": b.tool_use_id,
                               "content": content, "is_error": b.is_error})
        # tool_result blocks must open a user turn (a stable sort: the rest keep their order)
        blocks.sort(key=lambda blk: blk["type"] != "tool_result")
        if blocks:
            out.append({"role": message.role, "content": blocks})
    return out


def _image(block: ImageBlock) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block.media_type,
                                        "data": block.data}}


MAX_BREAKPOINTS = 4   # the API's documented maximum of cache_control blocks per request


def mark_cache(messages: list[dict[str, Any]]) -> None:
    """Cache breakpoints for the longest stable prefix, besides the system prompt's: the last
    block of the newest message (the next call reads everything up to it) and of the newest
    user message before it (where the previous call wrote, within the API's lookback)."""
    marked = 0
    for message in reversed(messages):
        if marked >= 2:
            break
        if marked == 1 and message["role"] != "user":
            continue
        content = message["content"]
        for i in range(len(content) - 1, -1, -1):
            if content[i]["type"] in ("thinking", "redacted_thinking"):  # cannot carry it
                continue
            content[i] = {**content[i], "cache_control": _CACHE}
            marked += 1
            break


class _Decoder:
    """State of one streamed message: open blocks by index, usage, stop reason."""

    def __init__(self, hints: Hints, model: str):
        self.hints = hints
        self.model = model
        self.done = False
        self.stop_reason: str | None = None
        self.counts: dict[str, int] = {}
        self.blocks: dict[int, dict[str, Any]] = {}

    def feed(self, event: str, data: str) -> Sequence[StreamEvent]:
        if event == "ping":
            return ()
        obj = wire.data(data, event or "stream")
        if not isinstance(obj, dict):
            if obj is None:
                return ()
            raise wire.WireTypeError(f"a {event or 'stream'} event is not a JSON object")
        kind = wire.take(obj, "type", str, event or "event", event)
        if kind == "content_block_delta":
            return self._delta(obj)
        if kind == "content_block_start":
            return self._start(obj)
        if kind == "content_block_stop":
            index = wire.take(obj, "index", int, kind, -1)
            return self._close(self.blocks.pop(index, None))
        if kind == "message_start":
            message = wire.take(obj, "message", dict, kind, {})
            self.model = wire.take(message, "model", str, f"{kind}.message") or self.model
            self._usage(wire.take(message, "usage", dict, f"{kind}.message"), f"{kind}.message")
        elif kind == "message_delta":
            delta = wire.take(obj, "delta", dict, kind, {})
            self.stop_reason = (wire.take(delta, "stop_reason", str, f"{kind}.delta")
                                or self.stop_reason)
            self._usage(wire.take(obj, "usage", dict, kind), kind)
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            err = wire.take(obj, "error", dict, kind, {})
            raise stream_error(self.hints, str(err.get("message") or ""),
                               str(err.get("type") or ""))
        return ()

    def _start(self, obj: dict[str, Any]) -> Sequence[StreamEvent]:
        where = "content_block_start.content_block"
        block = wire.take(obj, "content_block", dict, "content_block_start", {})
        btype = wire.take(block, "type", str, where, "")
        entry = {"type": btype, "id": "", "name": "", "json": [], "input": {}, "signature": "",
                 "data": "", "raw": None}
        if btype not in _OWN:   # a server tool's block (web search): kept whole, sent back
            entry["raw"] = block
        elif btype == "tool_use":
            entry["id"] = wire.take(block, "id", str, where, "")
            entry["name"] = wire.take(block, "name", str, where, "")
            entry["input"] = wire.take(block, "input", dict, where, {})
        elif btype == "thinking":
            entry["signature"] = wire.take(block, "signature", str, where, "")
        elif btype == "redacted_thinking":
            entry["data"] = wire.take(block, "data", str, where, "")
        self.blocks[wire.take(obj, "index", int, "content_block_start", -1)] = entry
        if btype == "text":
            text = wire.take(block, "text", str, where, "")
            return (TextChunk(text),) if text else ()
        if btype == "thinking":
            text = wire.take(block, "thinking", str, where, "")
            return (ThinkingChunk(text),) if text else ()
        return ()

    def _delta(self, obj: dict[str, Any]) -> Sequence[StreamEvent]:
        where = "content_block_delta.delta"
        delta = wire.take(obj, "delta", dict, "content_block_delta", {})
        dtype = wire.take(delta, "type", str, where)
        if dtype == "text_delta":
            return (TextChunk(wire.take(delta, "text", str, where, "")),)
        if dtype == "thinking_delta":
            return (ThinkingChunk(wire.take(delta, "thinking", str, where, "")),)
        block = self.blocks.get(wire.take(obj, "index", int, "content_block_delta", -1))
        if block is None:
            return ()
        if dtype == "input_json_delta":
            block["json"].append(wire.take(delta, "partial_json", str, where, ""))
        elif dtype == "signature_delta":
            block["signature"] += wire.take(delta, "signature", str, where, "")
        return ()

    def _close(self, block: dict[str, Any] | None) -> Sequence[StreamEvent]:
        if block is None:
            return ()
        if block["raw"] is not None:
            data = dict(block["raw"])
            raw = "".join(block["json"]).strip()
            if raw:   # server_tool_use streams its input like a tool_use does
                try:
                    data["input"] = json.loads(raw)
                except ValueError:
                    raise wire.WireTypeError(f"the input of a {block['type']} block is not "
                                             "valid JSON") from None
            return (ServerPart(data),)
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
        if block["type"] == "redacted_thinking" and block["data"]:
            return (RedactedThinking(block["data"]),)
        return ()

    def _usage(self, raw: dict[str, Any] | None, where: str) -> None:
        # Cumulative counts: a later value replaces an earlier one, it is never added to it.
        if raw is None:
            return
        for key in _USAGE_FIELDS:
            value = wire.take(raw, key, int, f"{where}.usage")
            if value is not None:
                self.counts[key] = value

    def usage(self) -> Usage | None:
        """What the server reported so far, or None when it reported nothing."""
        u = self.counts
        if not u:
            return None
        return Usage(u.get("input_tokens", 0), u.get("output_tokens", 0),
                     u.get("cache_creation_input_tokens", 0), u.get("cache_read_input_tokens", 0))

    def whole(self, body: Any) -> Sequence[StreamEvent] | None:
        """A complete ``Message`` body, replayed as the stream of it would have come."""
        if not isinstance(body, dict) or body.get("type") != "message":
            return None
        content = wire.take(body, "content", list, "message", [])
        events: list[StreamEvent] = []

        def feed(kind: str, **data: Any) -> None:
            events.extend(self.feed(kind, json.dumps({"type": kind, **data})))

        feed("message_start", message={**body, "content": []})
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                raise wire.WireTypeError(f"field message.content[{index}] is not an object")
            feed("content_block_start", index=index, content_block=block)
            feed("content_block_stop", index=index)
        feed("message_delta", delta={"stop_reason": body.get("stop_reason")},
             usage=body.get("usage"))
        feed("message_stop")
        return [*events, *self.finish()]

    def finish(self) -> Sequence[StreamEvent]:
        if not self.done:
            raise truncated(self.hints, "before message_stop")
        usage = self.usage() or Usage(reported=False)
        reason = self.stop_reason or "end_turn"
        return (Finished(reason, usage, self.model, reason),)


_OWN = ("text", "thinking", "redacted_thinking", "tool_use")   # block types edgar itself reads
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                 "cache_read_input_tokens")
