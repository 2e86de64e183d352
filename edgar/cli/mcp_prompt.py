"""``/mcp__server__prompt ARGS`` and ``@server:uri`` in a line typed or given to ``-p``.

Guarantees:
- ``needs_servers`` is a cheap look at the line: only a line that starts with ``/mcp__`` or
  holds an ``@server:uri`` of a configured server waits for the servers to start.
- ``find`` says whether the line's first word names a connected server's prompt
  (``McpServers.prompts``); a built-in command or a command file of that name wins first
  (the callers ask them before).
- ``gather`` returns what the line attaches from MCP: the prompt's text (its words bound to
  the prompt's arguments in order, ``mcp/prompts.bind``), then each resource once. Any
  failure (a missing argument, a server that is not connected, an error or timeout from the
  server) is ``McpRefused`` with one line, before anything is published: the caller sends
  nothing.
- The prompt's text and the resources are the server's words, not the person's: they join
  the turn as ``Attached`` (sources ``/mcp__srv__prompt`` and ``@srv:uri``), never as a
  ``PromptTyped``; the ``PromptTyped`` is the line as typed, so nothing in them is learned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgar.mcp.prompts import RESOURCE, PromptArgsError, bind, resource_refs, usage

if TYPE_CHECKING:
    from edgar.conversation import Attachment
    from edgar.mcp.manager import McpServers, Offered


class McpRefused(Exception):
    """The line's prompt or resource cannot be had; the message is one line for the person."""


def _first_word(line: str) -> tuple[str, str]:
    word, _, rest = line.strip().partition(" ")
    return word[1:] if word.startswith("/") else "", rest.strip()


def needs_servers(line: str, servers: McpServers | None) -> bool:
    if servers is None:
        return False
    if line.lstrip().startswith("/mcp__"):
        return True
    return any(m.group(1) in servers.servers for m in RESOURCE.finditer(line))


def find(line: str, servers: McpServers | None) -> tuple[str, Offered, str] | None:
    """(command, prompt, argument text) when the line calls a server's prompt."""
    if servers is None:
        return None
    name, rest = _first_word(line)
    offered = servers.prompts.get(name) if name else None
    return None if offered is None else (name, offered, rest)


async def gather(line: str, servers: McpServers | None) -> list[Attachment]:
    """The prompt's text and the resources ``line`` names, as attachments."""
    from edgar.mcp.manager import McpUnavailable

    if servers is None:
        return []
    out: list[Attachment] = []
    found = find(line, servers)
    try:
        if found is not None:
            name, offered, rest = found
            try:
                args = bind(name, offered.prompt.arguments, rest)
            except PromptArgsError as exc:
                raise McpRefused(str(exc)) from None
            out.append((f"/{name}", await servers.get_prompt(name, args)))
        for server, uri in resource_refs(line, servers.servers):
            out.append((f"@{server}:{uri}", await servers.read_resource(server, uri)))
    except McpUnavailable as exc:
        raise McpRefused(str(exc)) from None
    return out


def listed(servers: McpServers | None) -> list[tuple[str, str, str]]:
    """(name, where, description) of each prompt, for ``/help``."""
    if servers is None:
        return []
    rows = []
    for name, offered in sorted(servers.prompts.items()):
        prompt = offered.prompt
        hint = usage(name, prompt.arguments).partition(" ")[2]
        text = " ".join(prompt.description.split())[:80] or "(no description)"
        rows.append((name, f"mcp {offered.server}", f"{hint} — {text}" if hint else text))
    return rows
