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
from typing import Any, Sequence

from edgar.config import ProviderSettings
from edgar.conversation import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from edgar.providers.base import (
    Finished, ModelRequest, ProviderError, StreamEvent, TextChunk, ThinkingChunk, ToolCall,
)
from edgar.providers.http import Connection, WireProvider, parse_json
from edgar.providers.http_errors import Hints, error_detail, stream_error

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
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True,
                                "stream_options": {"include_usage": True}}
        # OpenAI's newer models refuse max_tokens; most local servers only know max_tokens.
        limit = min(request.max_tokens, self.settings.max_tokens)
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
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
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
        for b in message.content:
            if isinstance(b, ToolResultBlock):
                content = f"Error: {b.content}" if b.is_error else b.content
                out.append({"role": "tool", "tool_call_id": b.tool_use_id, "content": content})
        if text:
            out.append({"role": "user", "content": text})
    return out


class _Decoder:
    """State of one streamed completion: tool-call fragments, finish reason, usage."""

    def __init__(self, hints: Hints, model: str):
        self.hints = hints
        self.model = model
        self.done = False
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.calls: list[dict[str, Any]] = []
        self.slot: dict[int, int] = {}    # stream index -> position in self.calls

    def feed(self, event: str, data: str) -> Sequence[StreamEvent]:
        if data == "[DONE]":
            self.done = True
            return ()
        obj = parse_json(data)
        if not isinstance(obj, dict):
            return ()
        if "error" in obj or obj.get("object") == "error":
            detail, kind = error_detail(obj)
            code = (obj.get("error") if isinstance(obj.get("error"), dict) else obj).get("code")
            raise stream_error(self.hints, detail, str(code) if isinstance(code, int) else kind)
        if isinstance(obj.get("usage"), dict):
            self.usage = obj["usage"]      # cumulative: the latest report wins
        self.model = obj.get("model") or self.model
        choices = obj.get("choices") or ()
        if not choices:
            return ()
        choice = choices[0]
        delta = choice.get("delta") or {}
        out: list[StreamEvent] = []
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            out.append(ThinkingChunk(reasoning))
        if delta.get("content"):
            out.append(TextChunk(delta["content"]))
        for fragment in delta.get("tool_calls") or ():
            self._merge(fragment)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
            out.extend(self._complete_calls())
        return out

    def _merge(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index", len(self.calls))
        fn = fragment.get("function") or {}
        call_id = fragment.get("id")
        pos = self.slot.get(index)
        current = self.calls[pos] if pos is not None else None
        if current is None or (call_id and current["id"] and call_id != current["id"]):
            current = {"id": call_id or "", "name": "", "args": []}
            self.slot[index] = len(self.calls)
            self.calls.append(current)
        if call_id and not current["id"]:
            current["id"] = call_id
        if fn.get("name"):
            current["name"] += fn["name"]
        args = fn.get("arguments")
        if isinstance(args, dict):   # some servers send parsed arguments
            args = json.dumps(args)
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

    def finish(self) -> Sequence[StreamEvent]:
        if self.finish_reason is None:
            raise ProviderError(self.hints.provider, f"{self.hints.provider}: the stream ended "
                                "without a finish reason (truncated) — the partial answer is "
                                "kept; try again")
        u = self.usage or {}
        cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        prompt = u.get("prompt_tokens") or 0
        usage = Usage(max(prompt - cached, 0), u.get("completion_tokens") or 0, 0, cached)
        reason = STOP_REASONS.get(self.finish_reason, self.finish_reason)
        return (Finished(reason, usage, self.model),)
