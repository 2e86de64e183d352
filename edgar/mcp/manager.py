"""The servers of one session: start in parallel, offer their tools, say when one goes away.

Guarantees:
- ``start`` starts every server at once, each bounded by ``mcp.startup_timeout``; one that
  fails is one Notice (``mcp: server "git" exited (code 1): …``) and the others go on.
- A server's tools are in the session's tool set exactly while it is connected: when it
  dies they are removed and one Notice says so; the session goes on.
- Project servers (``.mcp.json``, project ``config.toml``) start only when the project is
  trusted; user servers always. A tool name already taken (a built-in, another server) is
  skipped with a Notice, never shadowed.
- ``close`` ends every server (each stdio process group is killed) and waits for them.
- A stdio server runs in ``confine(network, writable)``: the session's sandbox widened by
  ``[mcp] network`` or its entry's ``network``, its entry's ``writable`` and the download
  cache (``edgar.mcp.confine``, ADR-0102). One that fails at start with the network off
  and looks like a download gets a hint naming the sandbox and the switch.
- A connected server's prompts are offered as ``mcp__SERVER__PROMPT`` commands
  (``prompts``) exactly while it is connected; a name taken by another server's prompt is
  skipped with a Notice. ``get_prompt`` and ``read_resource`` are bounded by
  ``mcp.call_timeout`` and raise ``McpUnavailable`` with edgar's reason.
- The SDK is imported (``edgar.mcp.sdk``) only when ``start`` has a server to start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from edgar.events import Event, Notice, NoticeLevel
from edgar.mcp.config import ServerSpec
from edgar.mcp.confine import cache_env, network_hint
from edgar.mcp.prompts import PromptInfo, command_name
from edgar.mcp.tool import McpTool
from edgar.spawn import Confinement, child_env, one_line, settings_env
from edgar.tools.base import Tool


@dataclass
class ServerState:
    spec: ServerSpec
    state: str = "configured"      # starting, connected, failed, exited, untrusted, stopped
    detail: str = ""
    tools: list[str] = field(default_factory=list)
    link: Any = None
    remote: list[str] = field(default_factory=list)   # the server's own names for its tools


class McpUnavailable(Exception):
    """A prompt or resource could not be had; the message is edgar's, one line."""


@dataclass(frozen=True)
class Offered:
    """A server's prompt as a slash command."""

    server: str
    prompt: PromptInfo


Confine = Callable[[bool, tuple[str, ...]], Confinement]


class Row(NamedTuple):
    """One server for ``/mcp`` and ``edgar mcp list``."""

    name: str
    transport: str
    state: str
    tool_count: int
    detail: str
    tools: tuple[str, ...] = ()


class McpServers:
    def __init__(self, specs: list[ServerSpec], *, root: Path, tools: dict[str, Tool],
                 publish: Callable[[Event], None], session_id: str, trusted: bool,
                 startup_timeout: float = 15.0, call_timeout: float = 120.0,
                 trust_read_only_hint: bool = False, confine: Confine | None = None,
                 network: bool = False, cache: Path | None = None,
                 max_message: int = 64 << 20, lapsed: str | None = None):
        self.confine, self.network, self.cache = confine, network, cache
        self.max_message = max_message
        self.root, self.tools, self.publish, self.session_id = root, tools, publish, session_id
        self.trusted, self.lapsed = trusted, lapsed   # lapsed: why trust lapsed, if it did
        self.startup_timeout, self.call_timeout = startup_timeout, call_timeout
        self.trust_read_only_hint = trust_read_only_hint
        self.servers = {s.name: ServerState(s) for s in specs}
        self.prompts: dict[str, Offered] = {}   # command name (no slash) -> prompt
        self._watchers: list[asyncio.Task[None]] = []
        self._started: asyncio.Task[None] | None = None

    def _say(self, level: NoticeLevel, message: str) -> None:
        self.publish(Notice(level=level, message=message, session_id=self.session_id))

    def begin(self) -> None:
        """Start every server in the background (call inside the running loop)."""
        if self._started is None:
            self._started = asyncio.create_task(self.start(), name="mcp-start")

    async def ready(self) -> None:
        """Wait until every server has connected or failed (a no-op once that is so)."""
        if self._started is not None:
            await asyncio.shield(self._started)
        for server in self.servers.values():  # died since the last model call
            if server.link is not None and server.link.died.is_set():
                self._gone(server)

    async def start(self) -> None:
        todo = []
        for server in self.servers.values():
            if server.spec.origin == "project" and not self.trusted:
                server.state = "untrusted"
                server.detail = "the project is not trusted (edgar trust)"
                why = self.lapsed or "the project is not trusted; `edgar trust` trusts it"
                self._say("warning", f'mcp: project server "{server.spec.name}" '
                          f"({server.spec.where}) not started: {why}")
                continue
            todo.append(server)
        if todo:
            import importlib

            # the SDK costs about a second to import: in a thread, so the prompt stays live
            await asyncio.to_thread(importlib.import_module, "edgar.mcp.sdk")
            await asyncio.gather(*(self._start_one(s) for s in todo))

    async def _start_one(self, server: ServerState) -> None:
        from edgar.mcp import sdk

        spec = server.spec
        box: Confinement | None = None
        network = self.network or spec.network
        if spec.transport == "stdio":
            extra: dict[str, str] = {}
            writable = spec.writable
            if self.cache is not None:
                # made before the sandbox: a writable root must exist to be granted
                self.cache.mkdir(parents=True, exist_ok=True, mode=0o700)
                extra, writable = cache_env(self.cache), (*writable, str(self.cache))
            box = self.confine(network, writable) if self.confine is not None else None
            link = sdk.Link(spec.name, argv=[spec.command, *spec.args], cwd=self.root,
                            env=child_env({**settings_env(box), **extra, **spec.env}),
                            sandbox=box,
                            max_message=self.max_message)
        else:
            link = sdk.Link(spec.name, url=spec.url, headers=spec.headers,
                            sse=spec.transport == "sse")
        server.link, server.state = link, "starting"
        try:
            infos = await link.start(self.startup_timeout)
        except sdk.StartError as exc:
            why = str(exc)
            if box is not None:
                hint = network_hint(spec.command, spec.args, link.stderr_text(),
                                    network=network, confined=box.get().policy.confined,
                                    name=spec.name)
                why = f"{why}; {hint}" if hint else why
            server.state, server.detail = "failed", why
            self._say("error", f'mcp: server "{spec.name}" {why}; its tools are not available')
            return
        server.state = "connected"
        for info in infos:
            tool = McpTool(spec.name, info.name, info.description, info.input_schema,
                           info.read_only, link, self.call_timeout, self.trust_read_only_hint)
            if tool.name in self.tools:
                self._say("warning", f'mcp: server "{spec.name}" tool {info.name!r} skipped: '
                          f"the name {tool.name} is already taken")
                continue
            if tool.schema_changed:
                # providers reject some schemas outright; a narrowed schema beats no tool
                server.detail = "some input schemas were simplified for the provider"
            self.tools[tool.name] = tool
            server.tools.append(tool.name)
            server.remote.append(info.name)
        self._offer_prompts(server)
        self._watchers.append(asyncio.create_task(self._watch(server)))

    def _offer_prompts(self, server: ServerState) -> None:
        link = server.link
        if link.prompts_error:
            self._say("warning", f'mcp: server "{server.spec.name}" prompts not listed: '
                      f"{link.prompts_error}")
        for prompt in link.prompts:
            name = command_name(server.spec.name, prompt.name)
            if name in self.prompts:
                self._say("warning", f'mcp: server "{server.spec.name}" prompt '
                          f"{prompt.name!r} skipped: /{name} is already taken")
                continue
            self.prompts[name] = Offered(server.spec.name, prompt)

    def _connected(self, name: str) -> Any:
        server = self.servers.get(name)
        if server is None or server.state != "connected" or server.link is None:
            state = "not configured" if server is None else server.state
            raise McpUnavailable(f'mcp server "{name}" is {state}')
        return server.link

    async def get_prompt(self, command: str, args: dict[str, str]) -> str:
        """The text of the prompt behind ``/command`` for these arguments."""
        offered = self.prompts.get(command)
        if offered is None:
            raise McpUnavailable(f"/{command} is not a prompt of a connected server")
        link = self._connected(offered.server)
        return await self._bounded(link.get_prompt(offered.prompt.name, args),
                                   f'prompt {offered.prompt.name!r} of "{offered.server}"')

    async def read_resource(self, server: str, uri: str) -> str:
        """The text of resource ``uri`` of ``server``."""
        link = self._connected(server)
        return await self._bounded(link.read_resource(uri), f"@{server}:{uri}")

    async def _bounded(self, work: Any, what: str) -> str:
        try:
            return str(await asyncio.wait_for(work, self.call_timeout))
        except TimeoutError:
            raise McpUnavailable(f"{what}: no answer within {self.call_timeout:g}s") from None
        except (ConnectionError, McpUnavailable) as exc:
            raise McpUnavailable(f"{what}: {exc}") from None
        except Exception as exc:   # the SDK's MCPError and validation errors: the server said no
            raise McpUnavailable(
                f"{what}: {one_line(str(exc), 200) or type(exc).__name__}") from None

    def connected(self) -> list[str]:
        """The names of the servers connected now."""
        return [n for n, s in self.servers.items() if s.state == "connected"]

    async def _watch(self, server: ServerState) -> None:
        await server.link.died.wait()
        self._gone(server)

    def _gone(self, server: ServerState) -> None:
        """Once per server: its tools leave the session and the person is told why."""
        if server.state != "connected":
            return
        self._drop(server)
        server.state, server.detail = "exited", server.link.reason
        self._say("error", f'mcp: server "{server.spec.name}" {server.link.reason}; its '
                  f"{len(server.tools)} tool(s) are gone for this session")

    def _drop(self, server: ServerState) -> None:
        for name in server.tools:
            self.tools.pop(name, None)
        for name in [n for n, o in self.prompts.items() if o.server == server.spec.name]:
            del self.prompts[name]

    async def close(self) -> None:
        if self._started is not None and not self._started.done():
            self._started.cancel()
            await asyncio.gather(self._started, return_exceptions=True)
        for task in self._watchers:
            task.cancel()
        links = [s.link for s in self.servers.values() if s.link is not None]
        await asyncio.gather(*(link.close() for link in links), return_exceptions=True)
        for server in self.servers.values():
            self._drop(server)
            if server.state == "connected":
                server.state = "stopped"

    def rows(self) -> list[Row]:
        """(name, transport, state, tool count, detail, tool names) for ``/mcp`` and
        ``edgar mcp list``."""
        return [Row(s.spec.name, s.spec.transport, s.state, len(s.tools),
                    s.detail or s.spec.where, tuple(s.remote)) for s in self.servers.values()]
