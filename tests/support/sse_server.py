"""A real HTTP/1.1 server on 127.0.0.1 that answers like a model provider, from a script.

Guarantees:
- ``POST /v1/messages`` (Anthropic) and ``POST /v1/chat/completions`` (OpenAI-compatible)
  pop the next scripted ``Reply`` of their path; an unscripted request gets HTTP 418 (never
  retried by edgar, so a missing script fails fast and visibly).
- A streamed reply is sent with chunked transfer encoding, one chunk per SSE block, so a
  ``drop_after`` cut is a broken body the client must notice (not a clean end of stream);
  ``stall_after`` holds the connection silent to provoke a read timeout.
- Every request is recorded (path, lower-cased headers, parsed JSON body, arrival time).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "sse"
ANTHROPIC = "/v1/messages"
OPENAI = "/v1/chat/completions"


@dataclass
class Reply:
    """One scripted answer: a JSON/bytes body with a status, or a list of SSE blocks."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None
    body: bytes | None = None
    events: list[str] | None = None
    drop_after: int | None = None     # cut the connection after N blocks
    stall_after: int | None = None    # go silent after N blocks ...
    stall: float = 3.0                # ... for this many seconds
    chunk_size: int | None = None     # send blocks joined, in chunks of this size (benchmarks)
    delay: float = 0.0                # seconds between blocks (so each is its own network read)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any
    at: float
    peer: tuple[str, int] = ("", 0)   # the client's address: the same port = a reused connection


def blocks(text: str) -> list[str]:
    """Split SSE text into blocks (each ends with a blank line), comments kept as written."""
    parts = [p for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    return [p + "\n\n" for p in parts]


def recording(name: str) -> list[str]:
    """The SSE blocks of ``tests/data/sse/<name>.sse``."""
    return blocks((DATA / f"{name}.sse").read_text(encoding="utf-8"))


def stream(name_or_blocks: str | list[str], **kw: Any) -> Reply:
    events = recording(name_or_blocks) if isinstance(name_or_blocks, str) else name_or_blocks
    return Reply(events=events, **kw)


def anthropic_event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def openai_chunk(data: dict[str, Any] | str) -> str:
    return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def handle(self) -> None:
        # the client hung up: its business
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            super().handle()

    def do_POST(self) -> None:
        at = time.time()
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        owner = self.server.owner
        headers = {k.lower(): v for k, v in self.headers.items()}
        owner._record(Recorded(self.path, headers, body, at, tuple(self.client_address[:2])))
        reply = owner._next(self.path)
        try:
            if reply is None:
                self._plain(418, {"error": {"message": f"no scripted reply for {self.path}"}}, {})
            elif reply.events is None:
                data = (reply.body if reply.body is not None
                        else json.dumps(reply.json or {}).encode())
                self._plain(reply.status, data, reply.headers)
            else:
                self._stream(reply)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _plain(self, status: int, data: Any, headers: dict[str, str]) -> None:
        if not isinstance(data, bytes):
            data = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, reply: Reply) -> None:
        self.send_response(reply.status)
        headers = {"content-type": "text/event-stream", "cache-control": "no-cache",
                   **reply.headers}
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        events = reply.events or []
        if reply.chunk_size:
            data = "".join(events).encode()
            for i in range(0, len(data), reply.chunk_size):
                self._chunk(data[i:i + reply.chunk_size])
            self.wfile.write(b"0\r\n\r\n")
            return
        for n, event in enumerate(events):
            if reply.drop_after is not None and n >= reply.drop_after:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)  # no terminating chunk: a broken body
                self.close_connection = True
                return
            if reply.stall_after is not None and n >= reply.stall_after:
                time.sleep(reply.stall)
                self.close_connection = True
                return
            if reply.delay and n:
                time.sleep(reply.delay)
            self._chunk(event.encode())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: SSEServer


class SSEServer:
    """Start with ``with SSEServer() as s:``; script with ``s.anthropic(...)``/``s.openai(...)``."""

    def __init__(self) -> None:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._lock = threading.Lock()
        self._queues: dict[str, deque[Reply]] = {}
        self.requests: list[Recorded] = []
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> SSEServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> SSEServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def script(self, path: str, *replies: Reply) -> None:
        with self._lock:
            self._queues.setdefault(path, deque()).extend(replies)

    def anthropic(self, *replies: Reply) -> None:
        self.script(ANTHROPIC, *replies)

    def openai(self, *replies: Reply) -> None:
        self.script(OPENAI, *replies)

    def invalid_requests(self) -> list[str]:
        """Every recorded request body checked against the official SDKs' request types
        (``support.sdk_types``): the problems, as ``request N: path: what`` lines."""
        from support.sdk_types import problems_of

        out: list[str] = []
        for n, rec in enumerate(self.requests):
            out += [f"request {n} ({rec.path}): {p}" for p in
                    problems_of(rec.path, rec.headers, rec.body)]
        return out

    def bodies(self, path: str | None = None) -> list[Any]:
        return [r.body for r in self.requests if path is None or r.path == path]

    def _next(self, path: str) -> Reply | None:
        with self._lock:
            queue = self._queues.get(path)
            return queue.popleft() if queue else None

    def _record(self, rec: Recorded) -> None:
        with self._lock:
            self.requests.append(rec)
