"""Which hooks a session has: ``[[hooks.EVENT]]`` tables in user and project config.toml.

Guarantees:
- Events are Claude Code's names (https://code.claude.com/docs/en/hooks#hook-lifecycle).
  ``EVENTS`` are the ones edgar fires; an event Claude Code has and edgar does not fire
  (``PermissionRequest``, ``SubagentStart``, …) is one located warning naming it, and its
  hooks are skipped; any other name is one located problem (file:line). The other entries
  load.
- User hooks and project hooks both load (a project list never replaces the user's); each
  ``HookSpec`` says its origin, so project hooks can wait for trust.
- A ``timeout`` left out is Claude Code's default for the event: 600 s, 30 s for
  UserPromptSubmit, and SessionEnd hooks share a 1.5 s budget (raised to the longest
  timeout set on one of them, at most 60 s).
- ``network`` and ``writable`` are edgar's own per-hook sandbox opt-ins; a project hook has
  them only once the project is trusted, since untrusted project hooks do not run at all.
- A matcher that can never match (a regex that does not compile) or an ``if`` that is not a
  permission rule is a located problem. ``if`` (one rule, e.g. ``Bash(rm *)``) runs the hook
  only for tool calls it matches, any piece of a compound command counting, as Claude Code
  does; ``args`` is Claude Code's exec form (the command run directly, no shell).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from edgar.hooks.matcher import check

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
          "PostToolUseFailure", "Notification", "Stop", "SubagentStop", "PreCompact",
          "SessionEnd")
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
# Claude Code's other events (hooks reference, 2026): read, named, never fired by edgar
NOT_FIRED = ("Setup", "UserPromptExpansion", "PermissionRequest", "PermissionDenied",
             "PostToolBatch", "MessageDisplay", "SubagentStart", "TaskCreated", "TaskCompleted",
             "StopFailure", "TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged",
             "DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove", "PostCompact",
             "PreModelSwitch", "PostModelSwitch", "Elicitation", "ElicitationResult")
DEFAULT_TIMEOUT = 600.0
TIMEOUTS = {"UserPromptSubmit": 30.0}
SESSION_END_BUDGET, SESSION_END_MAX = 1.5, 60.0


@dataclass(frozen=True)
class HookSpec:
    event: str
    command: str
    matcher: str = "*"
    timeout: float | None = None     # None: the event's default (``timeout_for``)
    origin: Literal["user", "project"] = "user"
    where: str = "settings"
    network: bool = False
    writable: tuple[str, ...] = ()
    condition: str | None = None            # Claude Code's ``if``: one permission rule
    args: tuple[str, ...] | None = None     # Claude Code's exec form: no shell

    def seconds(self) -> float:
        return self.timeout if self.timeout is not None else TIMEOUTS.get(self.event,
                                                                          DEFAULT_TIMEOUT)


def session_end_budget(specs: list[HookSpec]) -> float:
    """How long SessionEnd hooks may take together (Claude Code's budget)."""
    longest = max((s.timeout for s in specs if s.event == "SessionEnd" and s.timeout), default=0)
    return min(max(SESSION_END_BUDGET, longest), SESSION_END_MAX)


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
        if event in NOT_FIRED:
            problems.append(f"{where}: hook event {event} is Claude Code's, but edgar does not "
                            f"fire it; its hooks do not run (edgar fires {', '.join(EVENTS)})")
            continue
        if event not in EVENTS:
            problems.append(f"{where}: unknown hook event {event!r} (one of {', '.join(EVENTS)})")
            continue
        for entry in entries if isinstance(entries, list) else []:
            get = entry.get if isinstance(entry, dict) else lambda k, d=None, e=entry: getattr(
                e, "if_" if k == "if" else k, d)
            command = get("command")
            if not isinstance(command, str) or not command.strip():
                problems.append(f"{where}: hook {event}: \"command\" must be a non-empty string")
                continue
            matcher = get("matcher", "*") or "*"
            bad = check(matcher)
            if bad:
                problems.append(f"{where}: hook {event}: {bad}; this hook never runs")
                continue
            timeout = get("timeout", None)
            writable = get("writable", None) or ()
            condition, args = get("if", None), get("args", None)
            if condition is not None:
                from edgar.tools.rules import RuleError, parse_rule

                try:
                    parse_rule(condition)
                except RuleError as exc:
                    problems.append(f"{where}: hook {event}: \"if\": {exc}; this hook never runs")
                    continue
            out.append(HookSpec(event, command, matcher,
                                float(timeout) if timeout else None, origin, where,
                                bool(get("network", False)), tuple(str(w) for w in writable),
                                condition, tuple(str(a) for a in args) if args is not None else None))
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
