"""Which hooks a session has: ``[[hooks.EVENT]]`` tables in user and project config.toml.

Guarantees:
- Events are Claude Code's names: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse,
  Stop, SessionEnd. Any other name is one located problem (file:line); that entry is
  skipped, the others load.
- User hooks and project hooks both load (a project list never replaces the user's); each
  ``HookSpec`` says its origin, so project hooks can wait for trust.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")
TOOL_EVENTS = ("PreToolUse", "PostToolUse")


@dataclass(frozen=True)
class HookSpec:
    event: str
    command: str
    matcher: str = "*"
    timeout: float = 60.0
    origin: Literal["user", "project"] = "user"
    where: str = "settings"


def _line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return 1


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    if not path.is_file():
        return "", {}
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
        hooks = tomllib.loads(text).get("hooks", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return "", {}  # config.load has already said what is wrong with this file
    return text, hooks if isinstance(hooks, dict) else {}


def _specs(table: Mapping[str, Any], origin: Literal["user", "project"], path: Path | None, text: str,
           problems: list[str]) -> list[HookSpec]:
    out = []
    for event, entries in table.items():
        where = f"{path}:{_line_of(text, f'hooks.{event}')}" if path else "settings"
        if event not in EVENTS:
            problems.append(f"{where}: unknown hook event {event!r} (one of {', '.join(EVENTS)})")
            continue
        for entry in entries if isinstance(entries, list) else []:
            get = entry.get if isinstance(entry, dict) else lambda k, d=None, e=entry: getattr(e, k, d)
            command = get("command")
            if not isinstance(command, str) or not command.strip():
                problems.append(f"{where}: hook {event}: \"command\" must be a non-empty string")
                continue
            out.append(HookSpec(event, command, get("matcher", "*") or "*",
                                float(get("timeout", 60.0) or 60.0), origin, where))
    return out


def load_hooks(root: Path, user_dir: Path, configured: Mapping[str, Any],
               problems: list[str]) -> list[HookSpec]:
    """Every hook: user file, then project file; ``configured`` (the merged settings) when
    neither file has a ``[hooks]`` table (settings built in code)."""
    user_path, project_path = user_dir / "config.toml", root / ".edgar" / "config.toml"
    user_text, user_hooks = _read(user_path)
    project_text, project_hooks = _read(project_path)
    if not user_hooks and not project_hooks:
        return _specs(configured, "user", None, "", problems)
    return (_specs(user_hooks, "user", user_path, user_text, problems)
            + _specs(project_hooks, "project", project_path, project_text, problems))
