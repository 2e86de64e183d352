"""Builders for synthetic Claude Code records (tests only)."""

from __future__ import annotations

import io
import itertools
import json

from edgar.transcripts.claude_code import (
    Anomaly,
    Exchange,
    Malformed,
    ScanResult,
    Typed,
    scan_stream,
)

_ids = itertools.count(1)
SESSION = "s-1"


def _base(kind: str, **extra) -> dict:
    n = next(_ids)
    rec = {"type": kind, "uuid": f"u-{n}", "sessionId": SESSION,
           "timestamp": f"2026-01-01T00:00:{n % 60:02d}Z"}
    rec.update(extra)
    return rec


def user(content, **extra) -> dict:
    return _base("user", message={"role": "user", "content": content}, **extra)


def human(content, **extra) -> dict:
    """A modern typed prompt: origin marker + promptSource."""
    return user(content, origin={"kind": "human"},
                promptSource=extra.pop("promptSource", "typed"), **extra)


def tool_result(text="ok", **extra) -> dict:
    return user([{"type": "tool_result", "tool_use_id": "t", "content": text}],
                toolUseResult={"stdout": text}, **extra)


def asst(mid, *blocks, usage=None, model="claude-x", **extra) -> dict:
    message = {"id": mid, "type": "message", "role": "assistant", "model": model,
               "content": list(blocks)}
    if usage is not None:
        message["usage"] = usage
    return _base("assistant", message=message, requestId=extra.pop("requestId", f"req-{mid}"),
                 **extra)


def text(t):
    return {"type": "text", "text": t}


def thinking(t):
    return {"type": "thinking", "thinking": t, "signature": "sig"}


def tool_use(name):
    return {"type": "tool_use", "id": f"toolu-{next(_ids)}", "name": name, "input": {}}


def usage(i=0, o=0, cw=0, cr=0):
    return {"input_tokens": i, "output_tokens": o, "cache_creation_input_tokens": cw,
            "cache_read_input_tokens": cr}


def queue(operation, content=None, **extra) -> dict:
    rec = {"type": "queue-operation", "operation": operation, "sessionId": SESSION,
           "timestamp": "2026-01-01T00:01:00Z"}
    if content is not None:
        rec["content"] = content
    rec.update(extra)
    return rec


def queued_command(prompt, origin=None, **att) -> dict:
    attachment = {"type": "queued_command", "prompt": prompt,
                  "commandMode": att.pop("commandMode", "prompt")}
    if origin is not None:
        attachment["origin"] = origin
    attachment.update(att)
    return _base("attachment", attachment=attachment)


def lines(*records) -> bytes:
    out = []
    for r in records:
        if isinstance(r, bytes):
            out.append(r if r.endswith(b"\n") else r + b"\n")
        elif isinstance(r, str):
            out.append(r.encode() + b"\n")
        else:
            out.append(json.dumps(r).encode() + b"\n")
    return b"".join(out)


def run(*records, name="main.jsonl", **kw) -> list:
    return run_bytes(lines(*records), name, **kw)


def run_bytes(data: bytes, name="main.jsonl", **kw) -> list:
    return list(scan_stream(io.BytesIO(data), name, **kw))


def typed(items) -> list[Typed]:
    return [i for i in items if isinstance(i, Typed)]


def texts(items) -> list[str]:
    return [t.text for t in typed(items)]


def exchanges(items) -> list[Exchange]:
    return [i for i in items if isinstance(i, Exchange)]


def malformed(items) -> list[Malformed]:
    return [i for i in items if isinstance(i, Malformed)]


def anomalies(items) -> list[Anomaly]:
    return [i for i in items if isinstance(i, Anomaly)]


def result(items) -> ScanResult:
    assert isinstance(items[-1], ScanResult)
    return items[-1]
