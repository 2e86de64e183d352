"""``-p --output-format stream-json|json`` and ``--input-format stream-json`` in Claude Code's
shapes.

Guarantees:
- ``stream-json`` writes one JSON object per line, flushed as it happens, of the four types
  Claude Code's headless mode documents (code.claude.com/docs/en/headless, the Agent SDK's
  ``SDKMessage``): first ``system``/``init`` (``cwd``, ``session_id``, ``tools`` in Claude Code's
  names, ``mcp_servers`` with ``name`` and ``status``, ``model``, ``permissionMode``,
  ``slash_commands``, ``apiKeySource``, ``output_style``); then an ``assistant`` line per model
  message (``message`` with ``id``, ``role``, ``model``, ``content`` blocks — ``text``,
  ``thinking``, ``tool_use`` with Claude Code's tool names and input keys — and ``usage``) and a
  ``user`` line per message of tool results (``tool_result`` blocks), both with
  ``parent_tool_use_id: null`` and ``session_id``; last a ``result`` line per turn. Every line
  carries a ``uuid``.
- ``result`` has Claude Code's fields: ``subtype`` (``success``, ``error_max_turns``,
  ``error_during_execution``), ``is_error``, ``duration_ms``, ``duration_api_ms`` (the turn's
  time outside tool calls), ``num_turns``, ``result``, ``session_id``, ``total_cost_usd`` (0
  when the provider reported no price; edgar's own ``cost_usd`` is then null), ``usage`` with
  Claude Code's token keys, ``permission_denials``; ``errors`` when the turn failed.
- The typed prompt and attachments are not echoed (Claude Code echoes them only with
  ``--replay-user-messages``); subagents' messages are not lines (they are not the session's).
- ``user_text`` reads one ``--input-format stream-json`` line (``{"type": "user", "message":
  {"role": "user", "content": …}}``, content a string or text blocks) and returns its text, or
  raises ``StreamInputError`` saying what is wrong with it; ``tool_list`` splits
  ``--allowedTools`` values as Claude Code does. Both are pure.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import IO, Any

from edgar.conversation import Message, ToolResultBlock, Usage
from edgar.events import Event, ModelResponded, ToolFinished


class StreamInputError(ValueError):
    """A ``--input-format stream-json`` line that is not a user message edgar can run."""


def uuid() -> str:
    """A random (version 4) UUID in its usual spelling, without importing uuid (start-up)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def claude_usage(usage: Usage, known: bool = True) -> dict[str, int]:
    """edgar's token counts under Claude Code's (the Messages API's) names; 0 when unknown."""
    if not known:
        return {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0}
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": usage.cache_write_tokens,
            "cache_read_input_tokens": usage.cache_read_tokens}


def result_fields(result: Any, session_id: str, denials: list[dict[str, object]],
                  tool_seconds: float) -> dict[str, Any]:
    """The fields of Claude Code's ``result`` message for one finished turn (a ``TurnResult``)."""
    is_error = result.outcome != "ok"
    subtype = ("success" if not is_error else "error_max_turns"
               if result.error is not None and result.error.kind == "max_turns"
               else "error_during_execution")
    duration_ms = round(result.duration * 1000)
    fields: dict[str, Any] = {
        "type": "result", "subtype": subtype, "is_error": is_error,
        "duration_ms": duration_ms,
        "duration_api_ms": max(0, duration_ms - round(tool_seconds * 1000)),
        "num_turns": result.loop_steps,   # Claude Code's meaning: agentic round trips
        "result": result.text, "session_id": session_id,
        "total_cost_usd": result.cost if result.cost is not None else 0.0,
        "usage": claude_usage(result.usage, result.usage.reported),
        "permission_denials": denials,
    }
    if is_error:
        fields["errors"] = [result.error_message or f"the turn ended: {result.outcome}"]
    return fields


def tool_list(values: Iterable[str]) -> list[str]:
    """``--allowedTools`` values as rules: each value split at commas and spaces outside
    parentheses (``"Bash(git log:*) Edit,Read"`` is three rules), empty pieces dropped."""
    rules: list[str] = []
    for value in values:
        depth, piece = 0, ""
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")" and depth:
                depth -= 1
            if depth == 0 and (ch == "," or ch.isspace()):
                if piece:
                    rules.append(piece)
                piece = ""
                continue
            piece += ch
        if piece:
            rules.append(piece)
    return rules


def user_text(line: str) -> str:
    """The text of one ``--input-format stream-json`` line; ``StreamInputError`` says why not."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise StreamInputError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("type") != "user":
        kind = data.get("type") if isinstance(data, dict) else type(data).__name__
        raise StreamInputError(f"expected a {{\"type\": \"user\", \"message\": …}} line, got "
                               f"type {kind!r}")
    message = data.get("message")
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        raise StreamInputError("'message' must be an object with role \"user\"")
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise StreamInputError("'message.content' must be a string or a list of blocks")
    parts: list[str] = []
    for index, block in enumerate(content):
        if not isinstance(block, dict) or block.get("type") != "text" \
                or not isinstance(block.get("text"), str):
            kind = block.get("type") if isinstance(block, dict) else type(block).__name__
            raise StreamInputError(f"'message.content[{index}]': only text blocks are read "
                                   f"(got {kind!r})")
        parts.append(block["text"])
    return "\n\n".join(parts)


class ClaudeStream:
    """The ``stream-json`` writer: a ``MessageSink`` of the session's messages and a bus
    subscriber for what a message does not carry (its usage, the tool time)."""

    def __init__(self, out: IO[str]):
        self.out = out
        self.session_id = ""
        self.root = ""
        self.model = ""
        self.usage: Usage | None = None   # of the last model response, for its message
        self.tool_seconds = 0.0           # depth-0 tool time of the running turn

    def write(self, record: dict[str, Any]) -> None:
        record.setdefault("uuid", uuid())
        self.out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self.out.flush()

    def init(self, *, session_id: str, cwd: str, root: str, model: str, tools: list[str],
             servers: list[dict[str, str]], mode: str, commands: list[str]) -> None:
        self.session_id, self.root, self.model = session_id, root, model
        self.write({"type": "system", "subtype": "init", "cwd": cwd, "session_id": session_id,
                    "tools": tools, "mcp_servers": servers, "model": model,
                    "permissionMode": mode, "slash_commands": commands,
                    "apiKeySource": "none", "output_style": "default"})

    def on_event(self, event: Event) -> None:
        match event:
            case ModelResponded(depth=0):
                self.usage = event.usage
                if event.model:
                    self.model = event.model
            case ToolFinished(depth=0):
                self.tool_seconds += event.duration

    def message(self, message: Message) -> None:
        from edgar.hooks.transcript import claude_block

        if message.role == "user" and not any(isinstance(b, ToolResultBlock)
                                              for b in message.content):
            return   # what was sent, not what happened: Claude Code does not echo it either
        blocks = [b for b in (claude_block(x, self.root) for x in message.content)
                  if b is not None and (message.role == "assistant" or b["type"] == "tool_result")]
        if not blocks:
            return
        body: dict[str, Any] = {"role": message.role, "content": blocks}
        if message.role == "assistant":
            usage, self.usage = self.usage, None
            body = {"id": f"msg_{os.urandom(12).hex()}", "type": "message", "role": "assistant",
                    "model": self.model, "content": blocks, "stop_reason": None,
                    "stop_sequence": None,
                    "usage": claude_usage(usage or Usage(), usage is not None)}
        self.write({"type": message.role, "message": body, "parent_tool_use_id": None,
                    "session_id": self.session_id})

    def result(self, result: Any, denials: list[dict[str, object]]) -> None:
        self.write(result_fields(result, self.session_id, denials, self.tool_seconds))
        self.tool_seconds = 0.0
