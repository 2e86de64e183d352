"""The session log: an append-only, redacted JSONL file per session.

Guarantees:
- Every line is one JSON object written with a single ``write`` of a complete line, so a
  crash leaves at most one torn last line; ``load`` skips (and counts) torn lines.
- Every string in a line — keys of every object too — passes ``redact`` before it reaches
  the disk (design.md §3.6). The file is 0600, also when it existed before (tightened on open).
  ``redact`` is a pure function of its text (the project's one ``Redactor``, its secrets fixed
  when the session starts), so a short string seen before in this session (a key, a tool
  name, an id: at most ``MEMO_CHARS`` long, ``MEMO_ENTRIES`` of them) is written as it was
  redacted the first time instead of being scanned again (issue 26 item 1).
- Lines are ``{"kind": "event", …}`` (bus events, streamed deltas excepted),
  ``{"kind": "message", …}`` (the conversation, which is what ``-c``/``-r`` restore) or
  ``{"kind": "system", "text", "facts", "day"}`` (the session's frozen system prompt and what
  the model was told since, restored by ``-c``/``-r`` too; ADR-0042).
- An image's bytes are not text and are not put through ``redact`` or into the line: each is
  kept once, 0600, as ``<session>.images/<sha256>`` beside the log, and the line holds
  ``{"type": "image", "media_type", "sha256", …}`` (ADR-0106). ``load`` puts the bytes back
  when the file is there and its hash matches; otherwise the image becomes a text block
  saying it was not kept, so a resumed session still makes a valid request. A provider's own
  block (``server``: encrypted web search results) is kept the same way, as its JSON.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def images_dir(log: Path) -> Path:
    return log.with_suffix(".images")


def _has_image(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_image(v) for v in value)
    if isinstance(value, dict):
        return value.get("type") in ("image", "server") or any(
            _has_image(v) for v in value.values() if isinstance(v, (list, tuple, dict)))
    return False


def _stash(value: Any, folder: Path) -> Any:
    """``value`` with every image's base64 moved to a file of its own (named by its hash)."""
    if isinstance(value, (list, tuple)):
        return [_stash(v, folder) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "image" and isinstance(value.get("data"), str):
        import base64

        digest = _keep(base64.b64decode(value["data"]), folder)
        return {k: v for k, v in value.items() if k != "data"} | {"sha256": digest}
    if value.get("type") == "server" and isinstance(value.get("data"), dict):
        # a provider's own block (encrypted search results): opaque, kept exact like an image
        raw = json.dumps(value["data"], ensure_ascii=False).encode("utf-8")
        return {"type": "server", "sha256": _keep(raw, folder), "json": True}
    return {k: _stash(v, folder) for k, v in value.items()}


def _keep(raw: bytes, folder: Path) -> str:
    import hashlib

    digest = hashlib.sha256(raw).hexdigest()
    target = folder / digest
    if not target.exists():
        folder.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
    return digest


def _restore(value: Any, folder: Path) -> Any:
    """The images of a loaded line given their bytes back (or a note where they are gone)."""
    if isinstance(value, list):
        return [_restore(v, folder) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "server" and isinstance(value.get("sha256"), str):
        raw = _read(folder, value["sha256"])
        if raw:
            return {"type": "server", "data": json.loads(raw)}
        return {"type": "text", "text": "[a web search was here; its record is gone]"}
    if value.get("type") == "image" and isinstance(value.get("sha256"), str):
        import base64

        raw = _read(folder, value["sha256"])
        if raw:
            return {k: v for k, v in value.items() if k != "sha256"} | {
                "data": base64.b64encode(raw).decode("ascii")}
        return {"type": "text", "text": f"[an image ({value.get('source') or 'attached'}) was "
                "here; its copy is gone, so it is not shown again]"}
    out = {k: _restore(v, folder) for k, v in value.items()}
    if isinstance(out.get("images"), list):   # a tool result: a lost image becomes its note
        kept = [i for i in out["images"] if isinstance(i, dict) and i.get("type") == "image"]
        lost = [i["text"] for i in out["images"] if i not in kept and isinstance(i, dict)]
        out["images"] = kept
        if lost and isinstance(out.get("content"), str):
            out["content"] = "\n".join([out["content"], *lost])
    return out


def _read(folder: Path, digest: str) -> bytes:
    """The kept bytes named ``digest``, or b"" when they are gone or not what was kept."""
    import hashlib

    try:
        raw = (folder / digest).read_bytes() if len(digest) == 64 else b""
    except OSError:
        return b""
    return raw if hashlib.sha256(raw).hexdigest() == digest else b""


MEMO_CHARS, MEMO_ENTRIES = 256, 4096


class SessionLog:
    def __init__(self, path: Path, redact: Callable[[str], str]):
        self.path = path
        self._scan = redact
        self._memo: dict[str, str] = {}
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(self._fd, 0o600)

    def _redact(self, text: str) -> str:
        done = self._memo.get(text)
        if done is None:
            done = self._scan(text)
            if len(text) <= MEMO_CHARS and len(self._memo) < MEMO_ENTRIES:
                self._memo[text] = done
        return done

    def _write(self, record: dict[str, Any]) -> None:
        if _has_image(record.get("content") or record.get("messages")):
            record = _stash(record, images_dir(self.path))
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
        with contextlib.suppress(OSError):
            os.close(self._fd)


@dataclass
class Loaded:
    messages: list[Message] = field(default_factory=list)
    events: int = 0
    torn: list[int] = field(default_factory=list)   # line numbers skipped
    prompt: dict[str, Any] | None = None            # the last "system" mark (ADR-0042)


def load(path: Path) -> Loaded:
    out = Loaded()
    folder = images_dir(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                record = json.loads(raw)
                if not isinstance(record, dict):
                    raise ValueError
                if b'"sha256"' in raw:
                    record = _restore(record, folder)
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
            except (ValueError, KeyError, TypeError, AttributeError):
                out.torn.append(number)   # torn, or a line of the wrong shape: skipped
    return out


def sessions_dir(state: Path) -> Path:
    return state / "sessions"


def list_sessions(state: Path) -> list[Path]:
    folder = sessions_dir(state)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
