"""MCP prompts as slash commands and resources as ``@server:uri`` (pure).

Guarantees (pure):
- ``command_name`` is ``mcp__SERVER__PROMPT`` (Claude Code's naming, ``schema.tool_name``'s
  rule: other characters become ``_``, a long name is cut with a stable hash).
- ``bind`` maps the words after ``/mcp__srv__prompt`` to the prompt's declared arguments in
  order, as Claude Code does (space-separated; quotes group words, as in a shell). Words past
  the last argument join the last one (never dropped); a required argument with no word is
  ``PromptArgsError`` naming it and the usage; a prompt with no arguments given words is
  one too (they would be lost).
- ``usage`` is ``/mcp__srv__prompt ARG [OPTIONAL]``.
- ``RESOURCE`` finds ``@server:scheme://rest`` in a line; ``resource_refs`` returns each
  (server, uri) once, in order, for the servers named in ``servers`` only (any other
  ``@x:y`` is left as text).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection
from dataclasses import dataclass

from edgar.mcp.schema import tool_name


@dataclass(frozen=True, slots=True)
class PromptArg:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, slots=True)
class PromptInfo:
    """One prompt a server offers (``prompts/list``)."""

    name: str
    description: str = ""
    arguments: tuple[PromptArg, ...] = ()


class PromptArgsError(ValueError):
    """The words typed do not fit the prompt's arguments; the message says how."""


def command_name(server: str, prompt: str) -> str:
    return tool_name(server, prompt)


def usage(command: str, arguments: tuple[PromptArg, ...]) -> str:
    words = [a.name.upper() if a.required else f"[{a.name.upper()}]" for a in arguments]
    return " ".join([f"/{command}", *words])


def words_of(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:          # an unclosed quote: plain words, as typed
        return text.split()


def bind(command: str, arguments: tuple[PromptArg, ...], text: str) -> dict[str, str]:
    """The ``prompts/get`` arguments for the words typed after the command."""
    words = words_of(text)
    if not arguments:
        if words:
            raise PromptArgsError(f"/{command} takes no arguments (usage: {usage(command, ())})")
        return {}
    if len(words) > len(arguments):
        words = [*words[:len(arguments) - 1], " ".join(words[len(arguments) - 1:])]
    bound = {arg.name: word for arg, word in zip(arguments, words, strict=False)}
    missing = [a.name for a in arguments if a.required and a.name not in bound]
    if missing:
        raise PromptArgsError(f"/{command} needs {', '.join(missing)} "
                              f"(usage: {usage(command, arguments)})")
    return bound


RESOURCE = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*://[^\s]*)")


def resource_refs(line: str, servers: Collection[str]) -> list[tuple[str, str]]:
    """Each ``@server:uri`` in ``line`` naming one of ``servers``, once, in order."""
    out: list[tuple[str, str]] = []
    for match in RESOURCE.finditer(line):
        ref = (match.group(1), match.group(2).rstrip(".,;:!?)\"'"))
        if ref[0] in servers and ref not in out:
            out.append(ref)
    return out
