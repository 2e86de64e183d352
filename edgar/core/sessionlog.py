"""The session log: an append-only, redacted JSONL file per session.

Guarantees:
- Every line is one JSON object written with a single ``write`` of a complete line, so a
  crash leaves at most one torn last line; ``load`` skips (and counts) torn lines.
- Every string in a line — keys of every object too — passes ``redact`` before it reaches
  the disk (design.md §3.6). The file is 0600, also when it existed before (tightened on open).
- Lines are ``{"kind": "event", …}`` (bus events, streamed deltas excepted),
  ``{"kind": "message", …}`` (the conversation, which is what ``-c``/``-r`` restore) or
  ``{"kind": "system", "text", "facts", "day"}`` (the session's frozen system prompt and what
  the model was told since, restored by ``-c``/``-r`` too; ADR-0042).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from edgar.conversation import Message
from edgar.events import Event, TextDelta, ThinkingDelta, ToolOutput, to_dict

SKIP = (TextDelta, ThinkingDelta, ToolOutput)  # streamed pieces and progress: not kept


def scrub(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [scrub(v, redact) for v in value]
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: scrub(v, redact) for k, v in value.items()}
    return value


class SessionLog:
    def __init__(self, path: Path, redact: Callable[[str], str]):
        self.path = path
        self._redact = redact
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(self._fd, 0o600)

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(scrub(record, self._redact), ensure_ascii=False) + "\n"
        os.write(self._fd, line.encode("utf-8"))

    def on_event(self, event: Event) -> None:
        if not isinstance(event, SKIP):
            self._write({"kind": "event", "at": time.time(), **to_dict(event)})

    def message(self, message: Message) -> None:
        self._write({"kind": "message", "at": time.time(), **message.to_json()})

    def mark(self, what: str, **data: Any) -> None:
        self._write({"kind": what, "at": time.time(), **data})

    def close(self) -> None:
        try:
            os.close(self._fd)
        except OSError:
            pass


@dataclass
class Loaded:
    messages: list[Message] = field(default_factory=list)
    events: int = 0
    torn: list[int] = field(default_factory=list)   # line numbers skipped
    prompt: dict[str, Any] | None = None            # the last "system" mark (ADR-0042)


def load(path: Path) -> Loaded:
    out = Loaded()
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                record = json.loads(raw)
                if not isinstance(record, dict):
                    raise ValueError
                if record.get("kind") == "message":
                    out.messages.append(Message.from_json(record))
                elif record.get("kind") == "clear":
                    out.messages.clear()
                elif record.get("kind") == "system":
                    out.prompt = record
                    out.events += 1
                elif record.get("kind") == "compacted":
                    out.messages = [Message.from_json(m) for m in record.get("messages", [])]
                else:
                    out.events += 1
            except (ValueError, KeyError, TypeError):
                out.torn.append(number)
    return out


def sessions_dir(state: Path) -> Path:
    return state / "sessions"


def list_sessions(state: Path) -> list[Path]:
    folder = sessions_dir(state)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
