"""Servers that misbehave, for tests: ``garbage`` prints non-JSON-RPC on stdout and waits;
``exit`` writes a reason on stderr and exits 1 at once; ``hang`` says nothing at all;
``badschema`` is a real MCPServer whose tool schema a provider would reject."""

from __future__ import annotations

import sys
import time

kind = sys.argv[1]
if kind == "garbage":
    print("hello, I am not a protocol", flush=True)
    time.sleep(60)
elif kind == "exit":
    print("fatal: not a git repository", file=sys.stderr, flush=True)
    sys.exit(1)
elif kind == "hang":
    time.sleep(60)
elif kind == "badschema":
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params):
        # valid for MCP; OpenAI rejects a top-level anyOf, both reject the name
        schema = {"type": "object", "properties": {"a": {"type": "string"},
                                                   "b": {"type": "integer"}},
                  "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}
        return types.ListToolsResult(tools=[types.Tool(name="odd tool!", description="x" * 5000,
                                                       input_schema=schema)])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(type="text",
                                                               text=f"got {params.arguments}")])

    server = Server("badschema", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
