"""Claude Code's tool vocabulary beside edgar's: names and argument keys at the hook and rule
boundary (https://code.claude.com/docs/en/hooks#pretooluse-input, tools-reference).

Guarantees (pure, no I/O):
- ``claude_name`` is the name Claude Code gives the tool (``shell`` → ``Bash``, ``read`` →
  ``Read``, ``task`` → ``Agent``, ``web_fetch`` → ``WebFetch``, ``todo_write`` →
  ``TodoWrite``); an MCP tool (``mcp__server__tool``) and any tool without a counterpart keep
  their own name. ``names`` is every name a matcher or a rule may use for one tool: Claude
  Code's, its older one (``Task`` for ``Agent``) and edgar's.
- ``claude_input`` writes edgar's arguments as Claude Code's ``tool_input``: ``path`` →
  ``file_path`` for Read/Write/Edit, absolute (as Claude Code sends it, so a hook matching
  paths is not bypassed by a relative spelling); Glob's and Grep's ``path`` absolute too; the
  Bash ``timeout`` in (whole) milliseconds. Every other key passes as it is.
- ``edgar_input`` is its inverse for a hook's ``updatedInput``: ``edgar_input(t,
  claude_input(t, a, root), root) == a`` for every tool and argument set edgar produces
  (timeouts to the millisecond, relative paths in normal form); a
  path inside the root comes back relative to it, any other path stays absolute (the tool
  then refuses it as it refuses any path outside the root).
- ``permission_mode`` is edgar's mode in Claude Code's words (``ask`` → ``default``,
  ``auto-edit`` → ``acceptEdits``, ``yes`` → ``bypassPermissions``, ``read-only`` and
  ``plan`` → ``plan``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

CLAUDE_NAMES: dict[str, str] = {
    "shell": "Bash", "read": "Read", "write": "Write", "edit": "Edit", "glob": "Glob",
    "grep": "Grep", "task": "Agent", "web_fetch": "WebFetch", "todo_write": "TodoWrite",
}
# names Claude Code used before (the Agent tool was called Task) or spells differently
OLDER: dict[str, tuple[str, ...]] = {"task": ("Task",)}
FILE_KEY = {"read": "file_path", "write": "file_path", "edit": "file_path",
            "glob": "path", "grep": "path"}
MODES = {"ask": "default", "auto-edit": "acceptEdits", "yes": "bypassPermissions",
         "read-only": "plan", "plan": "plan"}


def claude_name(tool: str) -> str:
    return CLAUDE_NAMES.get(tool, tool)


def names(tool: str) -> tuple[str, ...]:
    """Every name of ``tool`` a hook matcher or a permission rule may use, Claude Code's first."""
    found = [claude_name(tool), *OLDER.get(tool, ()), tool]
    return tuple(dict.fromkeys(found))


def edgar_name(name: str) -> str | None:
    """edgar's tool for a Claude Code name (``Bash`` → ``shell``), or None when it has none."""
    for tool, claude in CLAUDE_NAMES.items():
        if name == claude or name in OLDER.get(tool, ()):
            return tool
    return None


def _absolute(path: str, root: str) -> str:
    return os.path.normpath(os.path.join(root, os.path.expanduser(path)))


def _relative(path: str, root: str) -> str:
    root = os.path.normpath(root)
    if not os.path.isabs(path):
        return path
    norm = os.path.normpath(path)
    if norm == root:
        return "."
    if norm.startswith(root.rstrip("/") + "/"):
        return norm[len(root.rstrip("/")) + 1:]
    return path


def claude_input(tool: str, args: Mapping[str, Any], root: str) -> dict[str, Any]:
    """edgar's arguments as Claude Code's ``tool_input`` for the same call."""
    out = dict(args)
    key = FILE_KEY.get(tool)
    if key is not None and isinstance(out.get("path"), str):
        out[key] = _absolute(out.pop("path"), root)
    if tool == "shell" and isinstance(out.get("timeout"), (int, float)) and not isinstance(
            out.get("timeout"), bool):
        out["timeout"] = round(out["timeout"] * 1000)   # Claude Code's Bash timeout is in ms
    return out


def edgar_input(tool: str, given: Mapping[str, Any], root: str) -> dict[str, Any]:
    """A Claude Code ``tool_input`` (a hook's ``updatedInput``) in edgar's keys."""
    out = dict(given)
    key = FILE_KEY.get(tool)
    if key is not None and isinstance(out.get(key), str):
        out["path"] = _relative(out.pop(key), root)
    if tool == "shell" and isinstance(out.get("timeout"), (int, float)) and not isinstance(
            out.get("timeout"), bool):
        seconds = out["timeout"] / 1000
        out["timeout"] = int(seconds) if seconds.is_integer() else seconds
    return out


def permission_mode(mode: str) -> str:
    return MODES.get(mode, "default")
