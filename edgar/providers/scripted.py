"""A deterministic provider that replays a JSONL script: the seam for tests and the demo.

Each line is one model response (every key optional)::

    {"text": "…", "thinking": "…", "tool_calls": [{"name": "shell", "input": {"command": "ls"}}],
     "usage": {"input_tokens": 12, "output_tokens": 7}, "delay_s": 0.0, "model": "…",
     "error": {"status": 529, "message": "overloaded", "after_chars": 10}}

Guarantees:
- The whole file is validated when the provider is made; a malformed line is a usage
  error naming the file and the line. Lines pydantic accepted before (the same JSON, the same
  schema) are read from ``<user dir>/script-cache.json`` (``edgar.declared.results.Memo``,
  ADR-0081), so replaying a known script imports no pydantic.
- One script serves the whole process: every model call, a subagent's included, takes the
  next line. Running out of lines is a clear ``ProviderError``.
- ``delay_s`` is spread over the streamed chunks, so cancellation mid-stream is testable.
- With ``EDGAR_SCRIPTED_RECORD=PATH`` every request received is appended to PATH as one
  JSON line (system, messages, tool names): what tests assert on.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any, ClassVar

from edgar.conversation import Usage
from edgar.declared import ConfigDict, Field, Model
from edgar.providers.base import (
    Finished,
    ModelRequest,
    ProviderError,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCall,
)


class _Strict(Model):
    # Closed and strict: an unknown key or a wrong type in a test script fails loudly
    # instead of replaying something else.
    model_config = ConfigDict(extra="forbid", strict=True)


class ScriptToolCall(_Strict):
    """One tool call the scripted model makes."""

    name: str
    input: dict[str, Any] | str = Field(default_factory=dict)  # a str is sent as raw (bad) JSON
    id: str | None = None


class ScriptUsage(_Strict):
    """Token counts reported for the line."""

    input_tokens: int = Field(0, ge=0)
    output_tokens: int = Field(0, ge=0)
    cache_write_tokens: int = Field(0, ge=0)
    cache_read_tokens: int = Field(0, ge=0)


class ScriptError(_Strict):
    """Fail this response (after streaming ``after_chars`` of text)."""

    status: int | None = None
    message: str = "scripted provider error"
    after_chars: int = Field(0, ge=0)   # stream this much text first, then fail mid-stream


class ScriptLine(_Strict):
    """One model response."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[ScriptToolCall] = Field(default_factory=list)
    usage: ScriptUsage = Field(default_factory=ScriptUsage)
    delay_s: float = Field(0.0, ge=0)
    model: str | None = None
    stop_reason: str | None = None
    error: ScriptError | None = None


def parse_script(path: Path) -> list[ScriptLine]:
    try:
        raw_lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ProviderError("scripted", f"cannot read script {path}: {exc}",
                            usage_error=True) from None
    from edgar.declared.results import Memo
    from edgar.paths import user_dir

    memo = Memo.open(user_dir() / MEMO, [__file__, *results_sources()])
    lines: list[ScriptLine] = []
    for number, raw in enumerate(raw_lines, 1):
        if not raw.strip() or raw.lstrip().startswith("//"):
            continue
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("each line must be a JSON object")
            lines.append(memo.validated(ScriptLine, data))
        except json.JSONDecodeError as exc:
            raise ProviderError("scripted", f"{path}:{number}: not valid JSON ({exc.msg})",
                                usage_error=True) from None
        except ValueError as exc:   # pydantic's ValidationError is a ValueError
            from pydantic import ValidationError

            if isinstance(exc, ValidationError):
                error = exc.errors(include_url=False)[0]
                where = ".".join(str(p) for p in error["loc"])
                raise ProviderError("scripted", f"{path}:{number}: field '{where}': "
                                    f"{error['msg']}", usage_error=True) from None
            raise ProviderError("scripted", f"{path}:{number}: {exc}", usage_error=True) from None
    memo.save()
    return lines


MEMO = "script-cache.json"


def results_sources() -> list[str]:
    """The files the script lines' schema is made of, besides this one."""
    from edgar.declared.results import module_file

    return [module_file(name) for name in ("edgar.declared", "edgar.declared.pydantic_models",
                                           "edgar.declared.results")]


def _chunks(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text) or ([text] if text else [])


class ScriptedProvider:
    name = "scripted"
    _shared: ClassVar[dict[Path, ScriptedProvider]] = {}

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.model = str(path)
        self.lines = parse_script(self.path)
        self.cursor = 0
        self._calls = 0
        self._record = os.environ.get("EDGAR_SCRIPTED_RECORD")
        self._model = "scripted"   # a line without "model" keeps the last one named

    @classmethod
    def shared(cls, path: str) -> ScriptedProvider:
        key = Path(path).resolve()
        if key not in cls._shared:
            cls._shared[key] = cls(path)
        return cls._shared[key]

    def _record_request(self, request: ModelRequest) -> None:
        if not self._record:
            return
        entry = {"system": request.system, "messages": [m.to_json() for m in request.messages],
                 "tools": [t.name for t in request.tools]}
        with open(self._record, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        self._record_request(request)
        if self.cursor >= len(self.lines):
            raise ProviderError("scripted", f"the script {self.path} has no more responses "
                                f"(it has {len(self.lines)}); add lines to continue")
        line = self.lines[self.cursor]
        self.cursor += 1
        self._model = line.model or self._model
        pieces = _chunks(line.text)
        steps = max(1, len(pieces))
        pause = line.delay_s / steps
        if line.thinking:
            yield ThinkingChunk(line.thinking, signature="scripted")
        sent = 0
        for piece in pieces:
            if line.error and sent >= line.error.after_chars:
                break
            if pause:
                await asyncio.sleep(pause)
            sent += len(piece)
            yield TextChunk(piece)
        if not pieces and pause:
            await asyncio.sleep(line.delay_s)
        if line.error:
            raise ProviderError("scripted", f"scripted provider: {line.error.message}"
                                + (f" (HTTP {line.error.status})" if line.error.status else ""),
                                status=line.error.status)
        for call in line.tool_calls:
            self._calls += 1
            args = call.input if isinstance(call.input, dict) else None
            yield ToolCall(call.id or f"call_{self._calls}", call.name, args)
        usage = Usage(line.usage.input_tokens, line.usage.output_tokens,
                      line.usage.cache_write_tokens, line.usage.cache_read_tokens)
        stop = line.stop_reason or ("tool_use" if line.tool_calls else "end_turn")
        yield Finished(stop, usage, self._model)

    async def aclose(self) -> None:
        return None
