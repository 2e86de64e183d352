"""``edgar mcp list`` and ``edgar mcp trust``: the MCP servers this project would start.

Guarantees:
- ``list`` starts every configured server exactly as a session would (same config, same
  trust rule, same timeout, same sandbox), prints one row per server — name, transport,
  state, tool count, where it is configured or why it failed — and under it the names of
  its tools, then ends them all. No model is called.
- ``trust`` records that the person trusts this project's own config (servers, hooks).
- A config mistake is one ``edgar: …`` line and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import TYPE_CHECKING

from edgar.events import Event, Notice

if TYPE_CHECKING:
    from edgar.mcp.manager import Row


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="edgar mcp", description="MCP servers of this project")
    sub = p.add_subparsers(dest="what", required=True)
    sub.add_parser("list", help="start each configured server, show its state and tools")
    sub.add_parser("trust", help="trust this project's .mcp.json, servers and hooks")
    return p


def format_rows(rows: list[Row], names: bool = True) -> list[str]:
    if not rows:
        return ["no MCP servers configured (.mcp.json, or [mcp.servers.NAME] in config.toml)"]
    width = max(4, *(len(r.name) for r in rows))
    out = [f"{'NAME':<{width}}  TRANSPORT  STATE       TOOLS  DETAIL"]
    for r in rows:
        out.append(f"{r.name:<{width}}  {r.transport:<9}  {r.state:<10}  {r.tool_count:>5}  "
                   f"{r.detail}")
        if names and r.tools:
            out.append(f"{'':<{width}}  tools: {', '.join(r.tools)}")
    return out


async def _list(root, settings) -> int:
    from edgar.config.trust import trusted as project_trusted
    from edgar.mcp.config import load_servers
    from edgar.mcp.manager import McpServers
    from edgar.paths import user_dir

    problems: list[str] = []
    specs = load_servers(root, user_dir(), settings.mcp.servers, os.environ, problems)
    for problem in problems:
        print(f"edgar: {problem}", file=sys.stderr)
    said: list[str] = []

    def publish(event: Event) -> None:
        if isinstance(event, Notice):
            said.append(event.message)

    from edgar.cli.sandboxes import Sandboxes
    from edgar.paths import cache_dir

    boxes = Sandboxes(root, settings)
    servers = McpServers(specs, root=root, tools={}, publish=publish, session_id="",
                         trusted=project_trusted(root),
                         startup_timeout=settings.mcp.startup_timeout, confine=boxes,
                         network=settings.mcp.network, cache=cache_dir() / "mcp",
                         max_message=settings.mcp.max_message_bytes)
    try:
        await servers.start()
        for line in format_rows(servers.rows()):
            print(line)
    finally:
        await servers.close()
        boxes.close()
    return 0


def run(argv: list[str]) -> int:
    from edgar.config import ConfigError, load
    from edgar.core.project import find_root

    args = _parser().parse_args(argv)
    root = find_root()
    if args.what == "trust":
        from edgar.config.trust import trust

        trust(root)
        print(f"trusted {root}: its .mcp.json servers, [mcp.servers] and hooks will run")
        return 0
    try:
        settings = load(root)
    except ConfigError as exc:
        print(f"edgar: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(_list(root, settings))
