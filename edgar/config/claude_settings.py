"""Claude Code's settings files, read where Claude Code reads them (ADR-0079).

Guarantees:
- The files, lowest precedence first, as Claude Code orders them: the user's
  ``settings.json`` in Claude Code's user dir (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``),
  the project's ``.claude/settings.json`` (shared) and ``.claude/settings.local.json``
  (personal). Each ``ClaudeFile`` says its scope; the two project files are origin
  ``project``: what in them runs code or widens permissions waits for ``edgar trust``
  (``edgar.config.trust`` digests both).
- edgar honours ``hooks`` (``edgar.hooks.config``), ``permissions.allow``/``deny``/``ask``
  (``rules_of``, ``edgar.tools.permission_config``) and ``env`` (``env_of``: variables set
  for the session's commands, hooks and MCP servers; one Claude Code reads itself, such as
  ``ANTHROPIC_MODEL``, is named by ``not_for_commands``). ``$schema`` is metadata.
  Every other key is named by ``unhonoured`` with its file and line, once, so nothing a
  person set is dropped silently.
- ``disableAllHooks`` (``hooks_off``, ADR-0112): ``true`` in a file turns off the Claude Code
  hooks of that file and of every file of lower precedence; for each file the highest file
  at or above it that sets the key decides (``false`` there keeps them on). A project file's
  value counts only in a trusted project (a cloned repository cannot switch the person's
  guard hooks off). edgar's own ``[hooks]`` are not affected: they are edgar's config.
- A file that cannot be read, is not JSON or is not an object is one located problem
  (``path:line:col``); nothing from it applies and the other files still do.
- Only ``json``: nothing here imports pydantic, the SDKs or the hooks runner.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from edgar.config.lines import json_line

Scope = Literal["user", "project", "local"]
PROJECT_FILES: tuple[str, ...] = (".claude/settings.json", ".claude/settings.local.json")
HONOURED = ("hooks", "permissions", "env", "disableAllHooks")
# variables Claude Code itself reads: set for commands too, but they change nothing in edgar
CLAUDE_OWN_VARS = ("ANTHROPIC_", "CLAUDE_", "DISABLE_", "MCP_", "MAX_MCP_", "MAX_THINKING_",
                   "BASH_DEFAULT_", "BASH_MAX_", "OTEL_", "USE_BUILTIN_RIPGREP")
METADATA = ("$schema",)
PERMISSION_KINDS = ("allow", "deny", "ask")


class ClaudeFile:
    """One settings file as read: its text for line numbers, its object. (A plain class, not
    a dataclass: this module is on every start's path, ADR-0079.)"""

    __slots__ = ("data", "path", "scope", "text")

    def __init__(self, path: Path, scope: Scope, text: str, data: dict[str, Any]):
        self.path, self.scope, self.text, self.data = path, scope, text, data

    @property
    def origin(self) -> Literal["user", "project"]:
        return "user" if self.scope == "user" else "project"

    @property
    def name(self) -> str:
        """How a person names it: ``~/.claude/settings.json``, ``.claude/settings.json``."""
        return "~/.claude/settings.json" if self.scope == "user" else PROJECT_FILES[
            self.scope == "local"]

    def where(self, *needles: str) -> str:
        """``path:line`` of the first line holding every needle in order (JSON-quoted
        keys), else of the first needle, else line 1."""
        return f"{self.path}:{json_line(self.text, needles)}"


def paths(root: Path | None, claude_home: Path) -> list[tuple[Scope, Path]]:
    """Where the files are, lowest precedence first."""
    out: list[tuple[Scope, Path]] = [("user", claude_home / "settings.json")]
    if root is not None:
        out += [("project", root / PROJECT_FILES[0]), ("local", root / PROJECT_FILES[1])]
    return out


def read_file(scope: Scope, path: Path, problems: list[str]) -> ClaudeFile | None:
    """One file, or None (absent, or broken: then a located problem is appended)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{path}: cannot read it ({exc.strerror}); nothing in it applies")
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        problems.append(f"{path}:{line}: not valid UTF-8; nothing in it applies")
        return None
    if not text.strip():
        return None   # an empty file sets nothing, as in Claude Code
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); "
                        "nothing in it applies")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path}:1: expected a JSON object ({{\"hooks\": …, \"permissions\": "
                        "…}}); nothing in it applies")
        return None
    return ClaudeFile(path, scope, text, data)


def read_all(root: Path | None, claude_home: Path, problems: list[str]) -> list[ClaudeFile]:
    """Every settings file that exists and parses, lowest precedence first."""
    found = (read_file(scope, path, problems) for scope, path in paths(root, claude_home))
    return [f for f in found if f is not None]


def unhonoured(files: list[ClaudeFile]) -> list[str]:
    """One line per file naming the keys edgar reads there but does not honour."""
    out = []
    for file in files:
        keys = [k for k in file.data if k not in HONOURED and k not in METADATA]
        permissions = file.data.get("permissions")
        if isinstance(permissions, dict) and "permissions" in HONOURED:
            keys += [f"permissions.{k}" for k in permissions if k not in PERMISSION_KINDS]
        if keys:
            shown = ", ".join(keys)
            out.append(f"{file.where(keys[0].split('.')[-1])}: edgar does not honour "
                       f"{shown} (Claude Code's; edgar reads {', '.join(HONOURED)} here)")
    return out


def rules_of(file: ClaudeFile, kind: str, problems: list[str]) -> list[tuple[str, str]]:
    """(rule text, where) of ``permissions.<kind>``; a value of the wrong shape is a
    located problem and skipped."""
    permissions = file.data.get("permissions")
    if permissions is None:
        return []
    if not isinstance(permissions, dict):
        if kind == "allow":   # said once per file, not once per kind
            problems.append(f"{file.where('permissions')}: \"permissions\" must be an object "
                            "of allow/deny/ask lists; ignored")
        return []
    values = permissions.get(kind)
    if values is None:
        return []
    if not isinstance(values, list):
        problems.append(f"{file.where('permissions', kind)}: permissions.{kind} must be a "
                        "list of rules; ignored")
        return []
    out = []
    for value in values:
        if isinstance(value, str):
            out.append((value, file.where("permissions", kind, value)))
        else:
            problems.append(f"{file.where('permissions', kind)}: permissions.{kind}: "
                            f"{json.dumps(value)} is not a rule (a string); ignored")
    return out


def env_of(file: ClaudeFile, problems: list[str]) -> dict[str, str]:
    """``env``: variables set for the session's commands. A name or value that is not a
    string (numbers and booleans are written as JSON text, as Claude Code does) is a
    located problem and skipped."""
    env = file.data.get("env")
    if env is None:
        return {}
    if not isinstance(env, dict):
        problems.append(f"{file.where('env')}: \"env\" must be an object of NAME: value; "
                        "ignored")
        return {}
    out: dict[str, str] = {}
    for name, value in env.items():
        if not name or "=" in name or "\0" in name:
            problems.append(f"{file.where('env', name)}: env: {name!r} is not a variable "
                            "name; ignored")
        elif isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, (str, int, float)) and "\0" not in str(value):
            out[name] = str(value)
        else:
            problems.append(f"{file.where('env', name)}: env.{name}: the value must be a "
                            "string; ignored")
    return out


def not_for_commands(file: ClaudeFile, values: dict[str, str]) -> list[str]:
    """One line naming the variables of ``env`` that configure Claude Code itself: edgar sets
    them for commands as Claude Code does, but does not read them."""
    own = [name for name in values if name.startswith(CLAUDE_OWN_VARS)]
    if not own:
        return []
    return [f"{file.where('env', own[0])}: env: {', '.join(own)} configure Claude Code itself; "
            "edgar sets them for commands but does not read them (edgar's own settings are "
            "config.toml and EDGAR_* variables)"]


def hooks_off(files: list[ClaudeFile], trusted: bool,
              notes: list[str] | None = None) -> list[bool]:
    """For each of ``files`` (lowest precedence first): whether ``disableAllHooks`` turns its
    hooks off. What decided, or was not counted, is added to ``notes``."""
    off = [False] * len(files)
    decided: bool | None = None
    for i in range(len(files) - 1, -1, -1):
        file = files[i]
        value = file.data.get("disableAllHooks")
        if value is not None and not isinstance(value, bool):
            if notes is not None:
                notes.append(f"{file.where('disableAllHooks')}: disableAllHooks must be true "
                             "or false; ignored")
            value = None
        if value is not None and file.origin == "project" and not trusted:
            if notes is not None and value:
                notes.append(f"{file.where('disableAllHooks')}: disableAllHooks waits for "
                             "`edgar trust` (a project's file cannot turn your hooks off "
                             "before that)")
            value = None
        if value is not None and decided is None:   # the highest file that sets it decides
            decided = value
        off[i] = bool(decided)
    return off
