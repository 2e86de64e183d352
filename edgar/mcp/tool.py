"""An MCP server's tool as an edgar ``Tool``: same harness, same events, same permissions.

Guarantees:
- The model sees ``mcp__SERVER__TOOL`` with the server's schema made provider-safe
  (``edgar.mcp.schema``); arguments go to the server as the model wrote them (an object).
- Permission: ``shell`` access (ask in ``ask`` and ``auto-edit``, refused in ``read-only``),
  except a tool the server marks ``readOnlyHint`` when the person set
  ``mcp.trust_read_only_hint``: then ``read``.
- Failures are shapes with ``program`` = the server name: ``isError`` → ``mcp_error``, no
  answer in time → ``timeout``, a dead or broken connection → ``mcp_error``. The server's
  words reach the model only, in the tool result; its image parts reach it as images
  (``edgar.images``: resized or refused within the providers' limits, said in the text).
- The server's progress notifications are the call's live output (``ctx.output``), shown
  as a shell command's output is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any, Protocol

from edgar.conversation import ImageBlock, ToolSpec
from edgar.mcp.schema import description, input_schema, tool_name
from edgar.tools.base import Tool, ToolContext, ToolFailure, ToolOutcome


class Answer(Protocol):
    """What a server answered a call with (``edgar.mcp.sdk.Reply``)."""

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def images(self) -> tuple[ImageBlock, ...]: ...


class Caller(Protocol):
    died: asyncio.Event
    reason: str

    async def call(self, tool: str, args: dict[str, Any], timeout: float,
                   progress: Callable[[str], None] | None = None) -> Answer:
        """The server's answer."""


class McpTool(Tool):
    def __init__(self, server: str, remote: str, text: str, schema: Any, read_only: bool,
                 link: Caller, timeout: float, trust_read_only_hint: bool = False):
        self.name = tool_name(server, remote)
        self.description = description(text, server)
        self.server, self.remote, self.link, self.timeout = server, remote, link, timeout
        self.read_only = read_only
        self.access = "read" if read_only and trust_read_only_hint else "shell"
        self.schema, self.schema_changed = input_schema(schema)
        self._spec = ToolSpec(self.name, self.description, self.schema)

    def spec(self) -> ToolSpec:
        return self._spec

    def parse(self, raw: Any) -> Any:
        if not isinstance(raw, dict):
            raise ToolFailure("validation", "invalid arguments: expected an object")
        return raw

    def summary(self, args: dict[str, Any]) -> str:
        return f"{self.name} {json.dumps(args, ensure_ascii=False, default=str)[:160]}"

    async def run(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        try:
            reply = await asyncio.wait_for(self.link.call(self.remote, args, self.timeout,
                                                          ctx.output), self.timeout)
        except TimeoutError:
            raise ToolFailure("timeout", f"mcp server {self.server} did not answer "
                              f"{self.remote} within {self.timeout:g}s",
                              program=self.server) from None
        except Exception as exc:  # the SDK's protocol errors, or the connection went away
            # a dying server closes the pipe a moment before its exit code is known
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.link.died.wait(), 2.0)
            if self.link.died.is_set():
                raise ToolFailure("mcp_error", f"mcp server {self.server} {self.link.reason}",
                                  program=self.server) from None
            raise ToolFailure("mcp_error", f"mcp server {self.server} refused {self.remote}: "
                              f"{str(exc)[:2000] or type(exc).__name__}",
                              program=self.server) from None
        if reply.is_error:
            raise ToolFailure("mcp_error", reply.text, program=self.server)
        return ToolOutcome(reply.text, images=reply.images)
