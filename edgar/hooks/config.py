"""Which hooks a session has: ``[[hooks.EVENT]]`` tables in user and project config.toml, and
the ``hooks`` of Claude Code's settings files (``edgar.config.claude_settings``).

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
- Claude Code's JSON shape (``{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type":
  "command", "command": "…", "timeout": 30}]}]}``) gives the same ``HookSpec``s, origin
  ``project`` for ``.claude/settings*.json``. ``type: "http"`` handlers are specs with a
  ``url`` (its ``command`` is the URL, so the same URL twice runs once), ``headers`` and
  ``allowedEnvVars``; a header naming a variable that list leaves out is named (Claude Code
  sends it empty). ``statusMessage`` and ``async`` (command hooks) are read. A handler edgar
  cannot run (``type`` ``prompt``, ``agent``, ``mcp_tool``; ``shell: "powershell"``; an http
  hook without an http(s) ``url``) is one located problem and does not run; a key edgar does
  not read (``once``, ``asyncRewake``…) is named and the hook runs without it; a value of the
  wrong type is located and that hook skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from edgar.config.lines import toml_line
from edgar.hooks.matcher import check

if TYPE_CHECKING:
    from edgar.config.claude_settings import ClaudeFile

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
    url: str | None = None                  # ``type: "http"``: POST here (``command`` is it)
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env: tuple[str, ...] = ()       # ``allowedEnvVars``: what headers may fill in
    status: str = ""                        # ``statusMessage``: said while it runs
    background: bool = False                # ``async``: runs without holding edgar up

    def seconds(self) -> float:
        return self.timeout if self.timeout is not None else TIMEOUTS.get(self.event,
                                                                          DEFAULT_TIMEOUT)


def session_end_budget(specs: list[HookSpec]) -> float:
    """How long SessionEnd hooks may take together (Claude Code's budget)."""
    longest = max((s.timeout for s in specs if s.event == "SessionEnd" and s.timeout), default=0)
    return min(max(SESSION_END_BUDGET, longest), SESSION_END_MAX)


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


def _toml_where(path: Path | None, text: str) -> Callable[[str], str]:
    return lambda event: f"{path}:{toml_line(text, ('hooks', event)) or 1}" if path else "settings"


def _specs(table: Mapping[str, Any], origin: Literal["user", "project"],
           where_of: Callable[[str], str], problems: list[str]) -> list[HookSpec]:
    out = []
    for event, entries in table.items():
        where = where_of(event)
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
            headers = get("headers", None) or {}
            out.append(HookSpec(event, command, matcher,
                                float(timeout) if timeout else None, origin, where,
                                bool(get("network", False)), tuple(str(w) for w in writable),
                                condition,
                                tuple(str(a) for a in args) if args is not None else None,
                                get("url", None), tuple(headers.items()),
                                tuple(get("allowedEnvVars", None) or ()),
                                get("statusMessage", None) or "", bool(get("async", False))))
    return out


def load_hooks(root: Path, user_dir: Path, configured: Mapping[str, Any],
               problems: list[str], claude: list[ClaudeFile] | None = None,
               trusted: bool = False) -> list[HookSpec]:
    """Every hook: user file, then project file; ``configured`` (the merged settings) when
    neither file has a ``[hooks]`` table (settings built in code); then the hooks of
    Claude Code's settings files (``claude``), lowest precedence first."""
    user_path, project_path = user_dir / "config.toml", root / ".edgar" / "config.toml"
    user_text, user_hooks = _read(user_path)
    project_text, project_hooks = _read(project_path)
    if not user_hooks and not project_hooks:
        own = _specs(configured, "user", _toml_where(None, ""), problems)
    else:
        own = (_specs(user_hooks, "user", _toml_where(user_path, user_text), problems)
               + _specs(project_hooks, "project", _toml_where(project_path, project_text),
                        problems))
    return own + claude_hooks(claude or [], problems, trusted)


# what a Claude Code handler may say that edgar reads; ``shell`` only as "bash"
HANDLER_KEYS = frozenset({"type", "command", "timeout", "if", "args", "network", "writable",
                          "shell", "statusMessage", "async"})
HTTP_KEYS = frozenset({"type", "url", "headers", "allowedEnvVars", "timeout", "if",
                       "statusMessage"})
_SHAPE = ('each entry is {"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}')


def claude_hooks(files: list[ClaudeFile], problems: list[str],
                 trusted: bool = False) -> list[HookSpec]:
    """The hooks of Claude Code's settings files, in Claude Code's JSON shape; those that
    ``disableAllHooks`` turns off are left out, and said (ADR-0112)."""
    from edgar.config.claude_settings import hooks_off

    out: list[HookSpec] = []
    off = hooks_off(files, trusted, problems)
    for file, is_off in zip(files, off, strict=True):
        table = file.data.get("hooks")
        if table is None:
            continue
        if is_off:
            if isinstance(table, dict) and table:
                problems.append(f"{file.where('hooks')}: disableAllHooks is true: the Claude "
                                f"Code hooks of {file.name} do not run")
            continue
        if not isinstance(table, dict):
            problems.append(f"{file.where('hooks')}: \"hooks\" must be an object of EVENT: "
                            "[…]; no hook from this file runs")
            continue
        flat: dict[str, list[dict[str, Any]]] = {}
        for event, groups in table.items():
            entries = flat.setdefault(str(event), [])
            where = file.where("hooks", event)
            if not isinstance(groups, list):
                problems.append(f"{where}: hook {event}: expected a list ({_SHAPE}); its "
                                "hooks do not run")
                continue
            for group in groups:
                if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                    problems.append(f"{where}: hook {event}: {_SHAPE}; this entry does not run")
                    continue
                matcher = group.get("matcher", "")
                if not isinstance(matcher, str):
                    problems.append(f"{where}: hook {event}: \"matcher\" must be a string; "
                                    "this entry does not run")
                    continue
                extra = sorted(set(group) - {"matcher", "hooks"})
                if extra:
                    problems.append(f"{where}: hook {event}: edgar does not read "
                                    f"{', '.join(map(repr, extra))} beside \"matcher\": ignored")
                for handler in group["hooks"]:
                    entry = _handler(handler, event, where, problems)
                    if entry is not None:
                        entries.append({**entry, "matcher": matcher})
        out += _specs(flat, file.origin, _json_where(file), problems)
    return out


def _json_where(file: ClaudeFile) -> Callable[[str], str]:
    return lambda event: file.where("hooks", event)


def _handler(handler: Any, event: str, where: str,
             problems: list[str]) -> dict[str, Any] | None:
    """One Claude Code hook handler as a flat entry ``_specs`` reads, or None (said)."""
    if not isinstance(handler, dict):
        problems.append(f"{where}: hook {event}: a hook is an object ({{\"type\": \"command\", "
                        "\"command\": …}}); this one does not run")
        return None
    kind = handler.get("type", "command")
    if kind == "http":
        return _http_handler(handler, event, where, problems)
    if kind != "command":
        problems.append(f"{where}: hook {event}: type {kind!r} is Claude Code's, but edgar runs "
                        "only type \"command\" and \"http\" hooks; this hook does not run")
        return None
    shell = handler.get("shell", "bash")
    if shell != "bash":
        problems.append(f"{where}: hook {event}: shell {shell!r}: edgar runs hooks with bash "
                        "only; this hook does not run")
        return None
    wrong = [key for key, ok in (
        ("timeout", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0),
        ("if", lambda v: isinstance(v, str)),
        ("args", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v)),
        ("network", lambda v: isinstance(v, bool)),
        ("writable", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v)),
        ("statusMessage", lambda v: isinstance(v, str)),
        ("async", lambda v: isinstance(v, bool)),
    ) if key in handler and not ok(handler[key])]
    if wrong:
        problems.append(f"{where}: hook {event}: wrong type for {', '.join(wrong)} (timeout "
                        "is seconds above 0, if a rule and statusMessage strings, args and "
                        "writable lists of strings, network and async true or false); this "
                        "hook does not run")
        return None
    unread = sorted(set(handler) - HANDLER_KEYS)
    if unread:
        problems.append(f"{where}: hook {event}: edgar does not read "
                        f"{', '.join(map(repr, unread))}: ignored (the hook runs, and edgar "
                        "waits for it)")
    return {k: v for k, v in handler.items() if k in HANDLER_KEYS - {"type", "shell"}}


def _http_handler(handler: dict[str, Any], event: str, where: str,
                  problems: list[str]) -> dict[str, Any] | None:
    """A ``type: "http"`` handler as a flat entry (its ``command`` is the URL, so the same URL
    twice runs once, as Claude Code dedupes HTTP hooks by URL), or None (said)."""
    url = handler.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        problems.append(f"{where}: hook {event}: an http hook needs \"url\": an http:// or "
                        "https:// address; this hook does not run")
        return None
    headers = handler.get("headers", {})
    allowed = handler.get("allowedEnvVars", [])
    wrong = [key for key, ok in (
        ("headers", isinstance(headers, dict) and all(
            isinstance(k, str) and isinstance(v, str) and "\n" not in v and "\r" not in v
            for k, v in headers.items())),
        ("allowedEnvVars", isinstance(allowed, list) and all(isinstance(a, str)
                                                             for a in allowed)),
        ("timeout", "timeout" not in handler or (
            isinstance(handler["timeout"], (int, float)) and not isinstance(
                handler["timeout"], bool) and handler["timeout"] > 0)),
        ("if", isinstance(handler.get("if", ""), str)),
        ("statusMessage", isinstance(handler.get("statusMessage", ""), str)),
    ) if not ok]
    if wrong:
        problems.append(f"{where}: hook {event}: wrong type for {', '.join(wrong)} (headers an "
                        "object of one-line strings, allowedEnvVars a list of names, timeout "
                        "seconds above 0, if and statusMessage strings); this hook does not run")
        return None
    from edgar.hooks.http import references

    unlisted = sorted({name for value in headers.values() for name in references(value)}
                      - set(allowed))
    if unlisted:
        problems.append(f"{where}: hook {event}: headers refer to {', '.join(unlisted)}, which "
                        "allowedEnvVars does not list: sent as empty strings, as Claude Code "
                        "sends them")
    unread = sorted(set(handler) - HTTP_KEYS)
    if unread:
        problems.append(f"{where}: hook {event}: edgar does not read "
                        f"{', '.join(map(repr, unread))} on an http hook: ignored (the hook "
                        "runs, and edgar waits for it)")
    entry = {k: v for k, v in handler.items() if k in HTTP_KEYS - {"type"}}
    return {**entry, "command": url}
