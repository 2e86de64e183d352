"""OpenAI-compatible chat completions (``POST {base}/chat/completions``, streaming).

One module for OpenAI, OpenRouter, Ollama, vLLM, llama.cpp server and LM Studio.

Guarantees:
- Base URL: ``OPENAI_BASE_URL`` > ``providers.openai.base_url`` > ``https://api.openai.com/v1``.
  A missing key is a ``ProviderError(usage_error=True)`` before any request when the base URL
  is OpenAI's own; local servers (Ollama, llama.cpp, ...) are called without a key.
- The request carries ``stream_options.include_usage`` so the final chunk holds usage; the
  system prompt is the first ``system`` message; tool calls go back as assistant
  ``tool_calls`` (``function.arguments`` a JSON string) and results as ``role: "tool"``
  messages with ``tool_call_id``.
- Stream: ``delta.content`` -> ``TextChunk``; ``reasoning_content``/``reasoning`` (llama.cpp,
  vLLM, OpenRouter) -> ``ThinkingChunk``; ``delta.tool_calls`` fragments are joined by
  ``index`` — a fragment with a new ``id`` at a used index is a new call (Ollama reuses 0) —
  and parsed when the choice finishes. Error objects in the stream or as the body (``{"error"}``,
  vLLM's ``{"object": "error"}``) raise ``ProviderError``. A stream that ends without a
  ``finish_reason`` is truncated: an error, never success.
- Usage: ``input_tokens`` counts uncached prompt tokens (``prompt_tokens`` minus
  ``cached_tokens``) so cost is not charged twice; the last usage seen wins.
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
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from edgar.providers import wire
from edgar.providers.base import (
    Finished,
    ModelRequest,
    ProviderError,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCall,
)
from edgar.providers.http import Connection, WireProvider
from edgar.providers.http_errors import Hints, error_detail, error_status, stream_error, truncated

DEFAULT_BASE = "https://api.openai.com/v1"
# OpenAI's finish reasons in the neutral (Anthropic-style) words the rest of edgar uses
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use",
                "length": "max_tokens", "content_filter": "refusal"}


class OpenAIProvider(WireProvider):
    name = "openai"

    def __init__(self, model: str, settings: ProviderSettings):
        self.model = model
        self._decoder = _Decoder
        self.settings = settings
        key_env = settings.api_key_env or "OPENAI_API_KEY"
        key = os.environ.get(key_env, "").strip()
        base = (os.environ.get("OPENAI_BASE_URL") or settings.base_url or DEFAULT_BASE).rstrip("/")
        self.official = "api.openai.com" in base
        if not key and self.official:
            raise ProviderError("openai", f"openai: no API key — set {key_env} (export "
                                f"{key_env}=...), or point OPENAI_BASE_URL at a local server",
                                usage_error=True)
        headers = {**({"authorization": f"Bearer {key}"} if key else {}), **settings.headers}
        hints = Hints("openai", model, key_env, "OPENAI_BASE_URL", base)
        self._conn = Connection(settings, hints, base + "/chat/completions", headers, key or None)

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON sent for ``request`` (public: tests check it without a server)."""
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.extend(to_wire(request.messages))
        if "claude" in self.model.lower():
            # Claude through a gateway that passes cache_control on (OpenRouter, LiteLLM):
            # the same breakpoints as the Anthropic protocol, on content parts.
            mark_cache_parts(messages)
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True,
                                "stream_options": {"include_usage": True}}
        # OpenAI's newer models refuse max_tokens; most local servers only know max_tokens.
        limit = request.output_limit(self.settings.max_tokens)
        body["max_completion_tokens" if self.official else "max_tokens"] = limit
        if request.tools:
            body["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.input_schema}}
                for t in request.tools]
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return body



def to_wire(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        # whitespace-only text is dropped, as for Anthropic (a blank turn is never sent)
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        text = text if text.strip() else ""
        if message.role == "assistant":
            calls = [{"id": b.id, "type": "function",
                      "function": {"name": b.name, "arguments": json.dumps(b.input)}}
                     for b in message.content if isinstance(b, ToolUseBlock)]
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            if text or calls:
                out.append(entry)
            continue
        # Tool messages must follow the assistant message that called them, before user text.
        pictures: list[dict[str, Any]] = []
        for b in message.content:
            if isinstance(b, ToolResultBlock):
                content = f"Error: {b.content}" if b.is_error else b.content
                out.append({"role": "tool", "tool_call_id": b.tool_use_id, "content": content})
                if b.images:   # a tool message holds text only: its images follow as user parts
                    pictures.append({"type": "text", "text": f"(the images {b.tool_use_id} "
                                     "returned)"})
                    pictures += [_image(i) for i in b.images]
        parts: list[dict[str, Any]] = []
        for b in message.content:
            if isinstance(b, TextBlock) and b.text.strip():
                parts.append({"type": "text", "text": b.text})
            elif isinstance(b, ImageBlock):
                parts.append(_image(b))
        if pictures or any(p["type"] == "image_url" for p in parts):
            out.append({"role": "user", "content": pictures + parts})
        elif text:
            out.append({"role": "user", "content": text})
    return out


def _image(block: ImageBlock) -> dict[str, Any]:
    return {"type": "image_url",
            "image_url": {"url": f"data:{block.media_type};base64,{block.data}"}}


_CACHE = {"type": "ephemeral"}


def mark_cache_parts(messages: list[dict[str, Any]]) -> None:
    """``cache_control`` on the system message and on the newest user or tool message (at
    most 2 of Anthropic's 4 breakpoints): their text becomes one content part carrying it."""
    def mark(message: dict[str, Any]) -> None:
        if isinstance(message.get("content"), str) and message["content"]:
            message["content"] = [{"type": "text", "text": message["content"],
                                   "cache_control": _CACHE}]
    if messages and messages[0]["role"] == "system":
        mark(messages[0])
    for message in reversed(messages):
        if message["role"] in ("user", "tool"):
            mark(message)
            break


class _Decoder:
    """State of one streamed completion: tool-call fragments, finish reason, usage."""

    def __init__(self, hints: Hints, model: str):
        self.hints = hints
        self.model = model
        self.done = False
        self.finish_reason: str | None = None
        self.refused = False
        self.counts: dict[str, int] | None = None
        self.billed: float | None = None
        self.calls: list[dict[str, Any]] = []
        self.slot: dict[int, int] = {}    # stream index -> position in self.calls

    def feed(self, event: str, data: str) -> Sequence[StreamEvent]:
        if data.strip() == "[DONE]":
            self.done = True
            return ()
        obj = wire.data(data, "chunk")
        if obj is None:
            return ()
        if not isinstance(obj, dict):
            raise wire.WireTypeError("a chunk is not a JSON object")
        if "error" in obj or obj.get("object") == "error":
            detail, _ = error_detail(obj)
            raise stream_error(self.hints, detail, error_status(obj))
        usage = wire.take(obj, "usage", dict, "chunk")
        if usage is not None:
            self.counts = _counts(usage)     # cumulative: the latest report wins
            # OpenRouter's usage accounting: the credits (USD) the call cost
            self.billed = wire.take(usage, "cost", float, "chunk.usage", self.billed)
        self.model = wire.take(obj, "model", str, "chunk") or self.model
        choices = wire.take(obj, "choices", list, "chunk", [])
        if not choices:
            return ()
        choice = choices[0]
        if not isinstance(choice, dict):
            raise wire.WireTypeError("field chunk.choices[0] is not an object")
        where = "chunk.choices[0].delta"
        delta = wire.take(choice, "delta", dict, "chunk.choices[0]", {})
        out: list[StreamEvent] = []
        for key in ("reasoning_content", "reasoning"):
            reasoning = wire.take(delta, key, str, where)
            if reasoning:
                out.append(ThinkingChunk(reasoning))
                break
        content = wire.take(delta, "content", str, where)
        if content:
            out.append(TextChunk(content))
        refusal = wire.take(delta, "refusal", str, where)
        if refusal:   # the model declined: shown as its answer, and the turn ends in error
            self.refused = True
            out.append(TextChunk(refusal))
        for n, fragment in enumerate(wire.take(delta, "tool_calls", list, where, [])):
            if not isinstance(fragment, dict):
                raise wire.WireTypeError(f"field {where}.tool_calls[{n}] is not an object")
            self._merge(fragment, f"{where}.tool_calls[{n}]")
        reason = wire.take(choice, "finish_reason", str, "chunk.choices[0]")
        if reason:
            self.finish_reason = reason
            out.extend(self._complete_calls())
        return out

    def _merge(self, fragment: dict[str, Any], where: str) -> None:
        index = wire.take(fragment, "index", int, where, len(self.calls))
        fn = wire.take(fragment, "function", dict, where, {})
        call_id = wire.take(fragment, "id", str, where)
        pos = self.slot.get(index)
        current = self.calls[pos] if pos is not None else None
        if current is None or (call_id and current["id"] and call_id != current["id"]):
            current = {"id": call_id or "", "name": "", "args": []}
            self.slot[index] = len(self.calls)
            self.calls.append(current)
        if call_id and not current["id"]:
            current["id"] = call_id
        name = wire.take(fn, "name", str, f"{where}.function")
        if name:
            current["name"] += name
        args = fn.get("arguments")
        if isinstance(args, dict):   # some servers send parsed arguments
            args = json.dumps(args)
        elif args is not None and not isinstance(args, str):
            raise wire.WireTypeError(f"field {where}.function.arguments is not a string")
        if args:
            current["args"].append(args)

    def _complete_calls(self) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for n, call in enumerate(self.calls):
            raw = "".join(call["args"]).strip()
            try:
                parsed = json.loads(raw) if raw else {}
            except ValueError:
                parsed = None
            out.append(ToolCall(call["id"] or f"call_{n}", call["name"],
                                parsed if isinstance(parsed, dict) else None))
        self.calls, self.slot = [], {}
        return out

    def usage(self) -> Usage | None:
        """What the server reported so far, or None when it reported nothing."""
        u = self.counts
        if u is None:
            return None
        cached, written = u["cached"], u["written"]
        # prompt_tokens include the cached and the newly cached tokens: not charged twice
        return Usage(max(u["prompt"] - cached - written, 0), u["completion"], written, cached)

    def whole(self, body: Any) -> Sequence[StreamEvent] | None:
        """A complete ``chat.completion`` body, read as one chunk holding all of it."""
        if not isinstance(body, dict) or not isinstance(body.get("choices"), list) \
                or not body["choices"] or "error" in body:
            return None
        choice = body["choices"][0]
        if not isinstance(choice, dict):
            raise wire.WireTypeError("field completion.choices[0] is not an object")
        message = wire.take(choice, "message", dict, "completion.choices[0]", {})
        chunk = {**body, "choices": [{"index": 0, "delta": message,
                                      "finish_reason": choice.get("finish_reason") or "stop"}]}
        return [*self.feed("", json.dumps(chunk)), *self.finish()]

    def finish(self) -> Sequence[StreamEvent]:
        if self.finish_reason is None:
            raise truncated(self.hints, "without a finish reason")
        usage = self.usage() or Usage(reported=False)
        reason = STOP_REASONS.get(self.finish_reason, self.finish_reason)
        if self.refused:
            reason = "refusal"
        billed = self.billed
        return (Finished(reason, usage, self.model, self.finish_reason, billed),)


def _counts(usage: dict[str, Any]) -> dict[str, int]:
    """Every token count an OpenAI-compatible server may send (OpenAI, OpenRouter's usage
    accounting, LiteLLM), each type-checked."""
    where = "chunk.usage"
    details = wire.take(usage, "prompt_tokens_details", dict, where, {})
    dwhere = f"{where}.prompt_tokens_details"
    cached = wire.take(details, "cached_tokens", int, dwhere)
    if cached is None:   # LiteLLM passes Anthropic's own names along
        cached = wire.take(usage, "cache_read_input_tokens", int, where)
    written = wire.take(details, "cache_write_tokens", int, dwhere)
    if written is None:
        written = wire.take(details, "cache_creation_tokens", int, dwhere)
    if written is None:
        written = wire.take(usage, "cache_creation_input_tokens", int, where)
    return {"prompt": wire.take(usage, "prompt_tokens", int, where, 0),
            "completion": wire.take(usage, "completion_tokens", int, where, 0),
            "cached": cached or 0, "written": written or 0}
