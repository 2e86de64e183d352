"""The one module that imports the ``mcp`` SDK: a live connection to one server.

Guarantees:
- Nothing else in edgar imports ``mcp``, ``mcp_types`` or ``anyio`` (tests/unit/test_mcp_*
  checks the import graph); the rest of edgar sees ``Link``, ``ToolInfo`` and ``Reply``.
- The SDK's ``Client`` is entered and left inside one task of edgar's own asyncio loop (its
  anyio task groups require that); tool calls come from other tasks and are awaited there.
- Transports: stdio, streamable HTTP and the older HTTP+SSE (``sse``), all the SDK's
  ``Client`` over edgar's own stdio transport or the SDK's HTTP ones.
- stdio servers start through ``edgar.spawn`` (own process group, built environment); their
  stderr is kept as a bounded tail for the message when they fail; a line on stdout that is
  not JSON-RPC before the handshake ends the start with a clear reason. A message may be any
  length up to ``max_message`` bytes (``mcp/framing.py``); a longer one ends the connection
  with that reason (the server's tools leave the session), never silently.
- A server's progress notifications for a call reach ``progress`` as one line each
  (``progress 3/10: message``), the call's live output.
- A server's prompts are listed once at start (``Link.prompts``, when it declares the
  capability; a listing that fails leaves none and says why in ``Link.prompts_error``);
  ``get_prompt`` and ``read_resource`` return text: each part that is not text is named in
  one bracketed line, never dropped silently.
- ``Link.died`` is set once when the connection ends for any reason other than ``close``;
  ``Link.reason`` then says why in edgar's words (exit code, last stderr line).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib.metadata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from edgar.conversation import ImageBlock
from edgar.mcp.framing import DEFAULT_BOUND, MessageTooLarge, read_line
from edgar.mcp.prompts import PromptArg, PromptInfo
from edgar.spawn import Confinement, kill_tree, one_line, spawn

SUPPORTED = ((2, 0), (3, 0))  # [lowest, first unsupported) major.minor of the SDK
STDERR_TAIL = 4096


def sdk_version() -> tuple[int, int]:
    parts = importlib.metadata.version("mcp").split(".")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def version_supported() -> bool:
    low, high = SUPPORTED
    return low <= sdk_version() < high


@dataclass(frozen=True)
class ToolInfo:
    name: str
    description: str
    input_schema: Any
    read_only: bool


@dataclass(frozen=True)
class Reply:
    """A tool result: its text parts, its images as model-ready blocks (``edgar.images``),
    and one line for each part that cannot be sent (audio; an image that was refused)."""

    text: str
    is_error: bool
    images: tuple[ImageBlock, ...] = ()


class StartError(Exception):
    """The server could not be started or did not finish the handshake; message is edgar's."""


class _Stdio:
    """A Transport over a process edgar spawned (the SDK's own stdio client spawns by itself,
    which would bypass ``edgar.spawn`` and hide the exit code and stderr)."""

    def __init__(self, link: Link, argv: list[str], cwd: Path, env: Mapping[str, str]):
        self.link, self.argv, self.cwd, self.env = link, argv, cwd, env
        self.proc: asyncio.subprocess.Process | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.eof = False

    async def __aenter__(self) -> Any:
        import shutil

        # checked here, not left to the sandbox launcher, so the message is the same with
        # and without confinement
        if shutil.which(self.argv[0], path=self.env.get("PATH")) is None:
            raise StartError(f"cannot start {self.argv[0]!r}: no such program"
                             + ("" if "/" in self.argv[0] else " on its PATH"))
        try:
            self.proc = await spawn(self.argv, cwd=self.cwd, env=self.env,
                                    sandbox=self.link.sandbox)
        except OSError as exc:
            raise StartError(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        to_session, self.read = anyio.create_memory_object_stream[Any](16)
        self.write, from_session = anyio.create_memory_object_stream[SessionMessage](16)
        self.tasks = [asyncio.create_task(self._stdout(to_session)),
                      asyncio.create_task(self._stdin(from_session)),
                      asyncio.create_task(self._stderr())]
        return self.read, self.write

    async def _stdout(self, out: Any) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        async with out:
            while True:
                try:
                    line = await read_line(self.proc.stdout, self.link.max_message)
                except MessageTooLarge as exc:
                    # the reply is lost: end the connection with the reason, so its tools
                    # leave the session and the call fails now, not at its timeout
                    self.link.oversize = str(exc)
                    await kill_tree(self.proc, grace=0.5)
                    break
                if line is None:
                    self.eof = True
                    break
                text = line.decode("utf-8", "replace").strip()
                if not text:
                    continue
                try:
                    message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
                except ValueError as exc:
                    if not self.link.garbage:
                        self.link.garbage = repr(one_line(text, 80))
                    await out.send(exc)
                    continue
                await out.send(SessionMessage(message))
        code = await self.proc.wait()
        self.link.exited(code)

    async def _stdin(self, source: Any) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        with contextlib.suppress(OSError, anyio.ClosedResourceError, anyio.EndOfStream):
            async with source:
                async for message in source:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    self.proc.stdin.write(data.encode() + b"\n")
                    await self.proc.stdin.drain()

    async def _stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(4096):
            self.link.stderr.extend(chunk)

    async def __aexit__(self, *exc: object) -> None:
        proc = self.proc
        if proc is not None and self.eof:
            # the server closed its stdout first: it is ending on its own, so its exit code
            # is the reason the session ended, not something edgar did
            with contextlib.suppress(TimeoutError):
                self.link.exited(await asyncio.wait_for(asyncio.shield(proc.wait()), 1.0))
        self.link.ending = True  # from here on an exit is edgar's doing, not the server dying
        if proc is not None:
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
            try:
                await asyncio.wait_for(asyncio.shield(proc.wait()), 1.0)
            except TimeoutError:
                await kill_tree(proc, grace=1.0)
            await kill_tree(proc, grace=0.5)  # descendants left in its group
            # the pumps end at EOF once the group is gone; then the pipes are closed cleanly
            await asyncio.wait(self.tasks, timeout=1.0)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.read.aclose()
            await self.write.aclose()


class Link:
    """One connection: ``start`` → ``tools`` → ``call``… → ``close``."""

    def __init__(self, name: str, *, argv: list[str] | None = None, cwd: Path | None = None,
                 env: Mapping[str, str] | None = None, url: str = "",
                 headers: Mapping[str, str] | None = None, sandbox: Confinement | None = None,
                 max_message: int = DEFAULT_BOUND, sse: bool = False):
        self.name = name
        self.sse = sse
        self.sandbox = sandbox
        self.argv, self.cwd, self.env = argv, cwd, env or {}
        self.url, self.headers = url, dict(headers or {})
        self.stderr: collections.deque[int] = collections.deque(maxlen=STDERR_TAIL)
        self.garbage = ""
        self.oversize = ""
        self.max_message = max_message
        self.exit_code: int | None = None
        self.died = asyncio.Event()
        self.reason = ""
        self.closing = False
        self.ending = False
        self.prompts: list[PromptInfo] = []
        self.prompts_error = ""
        self._client: Any = None
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[list[ToolInfo]] | None = None
        self._task: asyncio.Task[None] | None = None

    def exited(self, code: int) -> None:
        """The stdio process ended: unless edgar ended it, that is the server dying."""
        if self.ending:
            return
        self.exit_code = code
        if not self.closing and not self.died.is_set():
            self.reason = self._why("exited")
            self.died.set()
        self._stop.set()

    def stderr_text(self) -> str:
        """The kept tail of the server's stderr."""
        return bytes(self.stderr).decode("utf-8", "replace")

    def stderr_line(self) -> str:
        text = bytes(self.stderr).decode("utf-8", "replace").strip().splitlines()
        return one_line(text[-1]) if text else ""

    def _why(self, fallback: str) -> str:
        tail = self.stderr_line()
        if self.oversize:
            why = (f"sent {self.oversize}; mcp.max_message_bytes bounds one message")
        elif self.garbage:
            why = f"wrote something that is not JSON-RPC on stdout ({self.garbage})"
        elif self.exit_code is not None:
            why = f"exited (code {self.exit_code})"
        else:
            why = fallback
        return f"{why}: {tail}" if tail else why

    def _transport(self) -> Any:
        if self.argv is not None:
            return _Stdio(self, self.argv, self.cwd or Path.cwd(), self.env)
        if self.sse:   # the older HTTP+SSE transport (Claude Code's ``type: "sse"``)
            return sse_client(self.url, headers=self.headers, timeout=30.0,
                              sse_read_timeout=300.0)
        client = httpx2.AsyncClient(headers=self.headers,
                                    timeout=httpx2.Timeout(30.0, read=300.0))
        return streamable_http_client(self.url, http_client=client)

    async def _run(self) -> None:
        assert self._ready is not None
        try:
            async with Client(self._transport(), mode="auto",
                              client_info=mcp_types.Implementation(name="edgar",
                                                                   version="0")) as client:
                self._client = client
                tools = await self._list(client)
                self.prompts = await self._list_prompts(client)
                if not self._ready.done():
                    self._ready.set_result(tools)
                await self._stop.wait()
        except BaseException as exc:  # the SDK raises many kinds; all mean "gone"
            if not self._ready.done():
                message = str(exc) if isinstance(exc, StartError) else self._why(
                    f"failed during the handshake ({type(exc).__name__}: "
                    f"{one_line(str(exc), 200)})")
                self._ready.set_exception(StartError(message))
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            self._client = None
            if not self.closing and not self.died.is_set():
                self.reason = self._why("closed the connection")
                self.died.set()

    async def _list(self, client: Any) -> list[ToolInfo]:
        out: list[ToolInfo] = []
        cursor = None
        for _ in range(100):  # a server that pages forever cannot hang the start
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                hints = tool.annotations
                out.append(ToolInfo(tool.name, tool.description or "", tool.input_schema,
                                    bool(hints is not None and hints.read_only_hint)))
            cursor = page.next_cursor
            if not cursor:
                break
        return out

    async def _list_prompts(self, client: Any) -> list[PromptInfo]:
        try:
            if client.server_capabilities.prompts is None:
                return []
            out: list[PromptInfo] = []
            cursor = None
            for _ in range(100):
                page = await client.list_prompts(cursor=cursor)
                for prompt in page.prompts:
                    args = tuple(PromptArg(a.name, a.description or "", bool(a.required))
                                 for a in prompt.arguments or [])
                    out.append(PromptInfo(prompt.name, prompt.description or "", args))
                cursor = page.next_cursor
                if not cursor:
                    break
            return out
        except Exception as exc:  # a server's broken listing costs its prompts, not its tools
            self.prompts_error = one_line(f"{type(exc).__name__}: {exc}", 200)
            return []

    async def get_prompt(self, name: str, args: dict[str, str]) -> str:
        """The prompt's messages as one text (an assistant message is marked as one)."""
        client = self._client
        if client is None:
            raise ConnectionError(self.reason or "not connected")
        result = await client.get_prompt(name, args)
        parts: list[str] = []
        for message in result.messages:
            text = _content_text(message.content)
            parts.append(f"[assistant]\n{text}" if message.role == "assistant" else text)
        return "\n\n".join(parts) if parts else "(the prompt has no messages)"

    async def read_resource(self, uri: str) -> str:
        """The resource's contents as text; a binary part is named, not sent."""
        client = self._client
        if client is None:
            raise ConnectionError(self.reason or "not connected")
        result = await client.read_resource(uri)
        parts: list[str] = []
        for item in result.contents:
            text = getattr(item, "text", None)
            if isinstance(text, str):
                parts.append(text)
            else:
                size = len(getattr(item, "blob", "") or "") * 3 // 4
                parts.append(f"[binary resource {item.uri} ({item.mime_type or 'no type'}, "
                             f"about {size} bytes): not attached]")
        return "\n".join(parts) if parts else "(the resource is empty)"

    async def start(self, timeout: float) -> list[ToolInfo]:
        """The server's tools once the handshake is done; StartError with edgar's reason."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = asyncio.create_task(self._run(), name=f"mcp:{self.name}")
        garbage_seen = asyncio.create_task(self._watch_garbage())
        either: set[asyncio.Future[Any]] = {self._ready, garbage_seen}   # of two result types
        try:
            done, _ = await asyncio.wait(either, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            garbage_seen.cancel()
        if self._ready.done():
            return self._ready.result()
        # the reason before close(): killing it gives an exit code that is edgar's doing
        why = self._why("") if self.garbage else self._why(
            f"did not finish the handshake within {timeout:g}s")
        await self.close()
        if self._ready.done() and not self._ready.cancelled():
            self._ready.exception()  # retrieved: the reason above is the one that counts
        raise StartError(why)

    async def _watch_garbage(self) -> None:
        while not self.garbage:
            await asyncio.sleep(0.05)

    async def call(self, tool: str, args: dict[str, Any], timeout: float,
                   progress: Callable[[str], None] | None = None) -> Reply:
        client = self._client
        if client is None:
            raise ConnectionError(self.reason or "not connected")

        async def said(done: float, total: float | None, message: str | None) -> None:
            # a progress notification becomes one line of the call's live output
            if progress is not None:
                of = f"/{total:g}" if total else ""
                progress(f"progress {done:g}{of}"
                         f"{': ' + one_line(message, 200) if message else ''}\n")

        # the caller bounds the wait (asyncio.wait_for), so a timeout is edgar's "timeout"
        result = await client.call_tool(tool, args, progress_callback=said)
        text, pictures = _flatten(result, tool)
        return Reply(text, bool(result.is_error), pictures)

    async def close(self) -> None:
        self.closing = True
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), 5.0)
            except (TimeoutError, Exception):
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


def _flatten(result: Any, tool: str) -> tuple[str, tuple[ImageBlock, ...]]:
    parts: list[str] = []
    pictures: list[ImageBlock] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            picture, said = _picture(block, tool)
            if picture is not None:
                pictures.append(picture)
            if said:
                parts.append(said)
        elif kind == "audio":
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[audio {getattr(block, 'mime_type', '')}, about {size} bytes: not "
                         "sent — edgar's providers take no audio in a tool result]")
        elif kind == "resource":
            inner = block.resource
            text = getattr(inner, "text", None)
            parts.append(text if isinstance(text, str) else f"[binary resource {inner.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(f"[{kind or 'unknown'} content not shown]")
    if not parts and result.structured_content is not None:
        import json

        parts.append(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    if not parts and pictures:
        parts.append(f"({len(pictures)} image{'s' * (len(pictures) != 1)})")
    return ("\n".join(parts) if parts else "(no content)"), tuple(pictures)


def _content_text(block: Any) -> str:
    """One prompt message's content as text; what is not text is named in brackets."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        inner = block.resource
        text = getattr(inner, "text", None)
        return text if isinstance(text, str) else f"[binary resource {inner.uri}: not sent]"
    if kind in ("image", "audio"):
        size = len(getattr(block, "data", "") or "") * 3 // 4
        return (f"[{kind} {getattr(block, 'mime_type', '')}, about {size} bytes, in the "
                "prompt: not sent — edgar sends a prompt's text only]")
    if kind == "resource_link":
        return f"[resource link {block.uri}]"
    return f"[{kind or 'unknown'} content in the prompt: not sent]"


def _picture(block: Any, tool: str) -> tuple[ImageBlock | None, str]:
    """An MCP image part as the model's picture, and what to say about it ("" for nothing)."""
    import base64
    import binascii

    from edgar import images

    try:
        data = base64.b64decode(getattr(block, "data", "") or "", validate=True)
    except (binascii.Error, ValueError):
        return None, "[an image that is not valid base64: not sent]"
    try:
        ready = images.to_block(data, tool)
    except images.ImageRefused as exc:
        return None, f"[{exc}]"
    return ready.block, (f"[{ready.note}]" if ready.note else "")
