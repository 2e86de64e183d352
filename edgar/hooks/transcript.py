"""The session as a Claude-Code-shaped JSONL transcript: what a hook's ``transcript_path`` names.

Guarantees:
- One line per conversation message, written (one ``write`` of a whole line) as the message
  is appended, so the file is current whenever a hook runs. A resumed session's earlier
  messages are written first, once.
- Lines have the shape Claude Code writes to ``~/.claude/projects/…/SESSION.jsonl``
  (``../shared/claude-code-format.md``): ``type`` ``user``/``assistant``, ``uuid`` and
  ``parentUuid`` chaining the lines in order, ``sessionId``, ``timestamp``, ``cwd``,
  ``version``, ``isSidechain``, ``userType``, and ``message`` with ``role`` and ``content``
  blocks (``text``, ``thinking``, ``redacted_thinking``, ``tool_use`` with Claude Code's tool
  names and input keys, ``tool_result``).
- Every string passes ``redact`` before it reaches the disk (design.md §3.6); the file is
  0600 in a 0700 directory.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from edgar import __version__
from edgar.conversation import (
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from edgar.core.sessionlog import scrub
from edgar.tools.vocabulary import claude_input, claude_name


def claude_block(block: Any, root: str) -> dict[str, Any] | None:
    """One block as Claude Code writes it, or None for a block it has no form for."""
    match block:
        case TextBlock():
            return {"type": "text", "text": block.text}
        case ThinkingBlock():
            return {"type": "thinking", "thinking": block.text, "signature": block.signature}
        case RedactedThinkingBlock():
            return {"type": "redacted_thinking", "data": block.data}
        case ToolUseBlock():
            return {"type": "tool_use", "id": block.id, "name": claude_name(block.name),
                    "input": claude_input(block.name, block.input, root)}
        case ToolResultBlock():
            return {"type": "tool_result", "tool_use_id": block.tool_use_id,
                    "content": block.content, "is_error": block.is_error}
    return None


class Transcript:
    def __init__(self, path: Path, *, session_id: str, root: Path,
                 redact: Callable[[str], str], history: Iterable[Message] = ()):
        self.path, self.session_id, self.root = path, session_id, str(root)
        self._redact = redact
        self._parent: str | None = None
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fresh = not path.exists()
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(self._fd, 0o600)
        if fresh:
            for message in history:
                self.message(message)

    def message(self, message: Message) -> None:
        uuid = os.urandom(16).hex()
        blocks = [b for b in (claude_block(x, self.root) for x in message.content) if b is not None]
        record: dict[str, Any] = {
            "parentUuid": self._parent, "isSidechain": False, "userType": "external",
            "cwd": self.root, "sessionId": self.session_id, "version": f"edgar {__version__}",
            "type": message.role, "uuid": uuid,
            "timestamp": datetime.datetime.now(datetime.UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "message": {"role": message.role, "content": blocks},
        }
        if message.role == "assistant":
            record["message"].update({"id": f"msg_{uuid[:24]}", "type": "message"})
        self._parent = uuid
        line = json.dumps(scrub(record, self._redact), ensure_ascii=False) + "\n"
        os.write(self._fd, line.encode("utf-8"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
