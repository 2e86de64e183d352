"""``[permissions]`` from the user and project config files and Claude Code's settings files,
and saving an "always" rule.

Guarantees:
- Rules are read per file, so a project's rules never replace the user's (the settings
  merge would): user ``allow`` + ``deny``, project ``deny`` always, project ``allow`` only
  when the project is trusted (a project config that widens permissions needs trust,
  design.md §3.8). A rule that does not parse is a ``ConfigError`` naming file and line.
- ``claude_rules``: Claude Code's ``permissions.allow``/``deny``/``ask``, with the same rule
  for project files (allow only once trusted); their mistakes are located problems, never
  fatal, since the files are Claude Code's too.
- ``save_allow_rule`` adds one rule to the user config's ``[permissions] allow`` by editing
  only that array (or appending a ``[permissions]`` table), checks the result parses to the
  same settings plus that rule, and writes atomically; otherwise it writes nothing and says
  why.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgar.tools.rules import Rule, RuleError, parse_rule

if TYPE_CHECKING:
    from edgar.config.claude_settings import ClaudeFile


@dataclass
class Rules:
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)   # project allow rules awaiting trust
    ask: list[Rule] = field(default_factory=list)      # Claude Code's permissions.ask


# the tools a rule can name (edgar's, after Claude Code's names are mapped onto them)
KNOWN_TOOLS = frozenset({"shell", "read", "write", "edit", "glob", "grep", "task", "web_fetch",
                         "todo_write", "exit_plan_mode"})


def claude_rules(files: list[ClaudeFile], trusted: Callable[[], bool],
                 problems: list[str]) -> Rules:
    """``permissions.allow``/``deny``/``ask`` of Claude Code's settings files (ADR-0079):
    deny and ask from every file (they only narrow), allow from the person's own file, and
    from a project's only once it is trusted. A rule edgar cannot parse, or one that can
    match nothing here (a tool edgar does not have, a path outside the project), is one
    located problem; the others apply."""
    from edgar.config.claude_settings import rules_of

    rules = Rules()
    for file in files:
        for kind in ("allow", "deny", "ask"):
            for text, where in rules_of(file, kind, problems):
                try:
                    rule = parse_rule(text)
                except RuleError as exc:
                    problems.append(f"{where}: permissions.{kind}: {exc}; ignored")
                    continue
                why = _matches_nothing(rule)
                if why:
                    problems.append(f"{where}: permissions.{kind} {text!r}: {why}")
                if kind == "allow" and file.origin == "project" and not trusted():
                    rules.ignored.append(rule.text)
                    continue
                getattr(rules, kind).append(rule)
    return rules


def _matches_nothing(rule: Rule) -> str | None:
    if rule.tool.startswith("mcp__") or any(c in rule.tool for c in "*?"):
        return None
    if rule.tool not in KNOWN_TOOLS:
        return "edgar has no such tool, so the rule matches nothing"
    pattern = rule.pattern or ""
    if rule.tool in ("read", "write", "edit", "grep") and pattern.startswith(("~", "//")):
        return ("edgar's path rules match paths inside the project only, so the rule matches "
                "nothing (edgar's tools do not reach outside the project unless "
                "tools.allow_outside_root is set)")
    return None


def _table(path: Path) -> tuple[str, dict[str, Any]]:
    if not path.is_file():
        return "", {}
    import tomllib

    text = path.read_text(encoding="utf-8")
    try:
        return text, tomllib.loads(text).get("permissions") or {}
    except tomllib.TOMLDecodeError:
        return text, {}   # config.load has already reported it


def _parsed(path: Path, text: str, values: Any, key: str) -> list[Rule]:
    from edgar.config import ConfigError

    out = []
    for value in values if isinstance(values, list) else []:
        try:
            out.append(parse_rule(value))
        except RuleError as exc:
            line = next((n for n, row in enumerate(text.splitlines(), 1)
                         if isinstance(value, str) and value in row), None)
            where = f"{path}:{line}" if line else str(path)
            raise ConfigError(f"{where}: 'permissions.{key}': {exc}") from None
    return out


def load_rules(user_config: Path, project_config: Path | None,
               trusted: Callable[[], bool] = lambda: False) -> Rules:
    rules = Rules()
    text, table = _table(user_config)
    rules.allow += _parsed(user_config, text, table.get("allow"), "allow")
    rules.deny += _parsed(user_config, text, table.get("deny"), "deny")
    if project_config is not None:
        text, table = _table(project_config)
        rules.deny += _parsed(project_config, text, table.get("deny"), "deny")
        allow = _parsed(project_config, text, table.get("allow"), "allow")
        if allow and trusted():
            rules.allow += allow
        else:
            rules.ignored += [r.text for r in allow]
    return rules


def _toml_string(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _array_end(text: str, start: int) -> int | None:
    """Index just past the ``]`` closing the array whose ``[`` is at ``start``."""
    depth, i, quote = 0, start, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _with_rule(text: str, rule: str, current: list[str]) -> str | None:
    header = re.search(r"(?m)^\s*\[permissions\]\s*(?:#.*)?$", text)
    entry = "[" + ", ".join(_toml_string(r) for r in [*current, rule]) + "]"
    if header is None:
        sep = "" if not text or text.endswith("\n") else "\n"
        return f"{text}{sep}\n[permissions]\nallow = {entry}\n"
    next_table = re.compile(r"(?m)^\s*\[").search(text, header.end())
    section_end = next_table.start() if next_table else len(text)
    key = re.compile(r"(?m)^\s*allow\s*=\s*").search(text, header.end(), section_end)
    if key is None:
        return text[:header.end()] + f"\nallow = {entry}" + text[header.end():]
    if not text.startswith("[", key.end()):
        return None
    end = _array_end(text, key.end())
    if end is None:
        return None
    return text[:key.end()] + entry + text[end:]


def save_allow_rule(user_config: Path, rule: str) -> str | None:
    """Add ``rule`` to the user config's allow list; None when saved, else why not."""
    import tomllib

    from edgar.tools.files import atomic_write

    parse_rule(rule)
    text = user_config.read_text(encoding="utf-8") if user_config.is_file() else ""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return f"{user_config} does not parse ({exc}); rule not saved"
    current = list((before.get("permissions") or {}).get("allow") or [])
    if rule in current:
        return None
    new = _with_rule(text, rule, current)
    expected = dict(before)
    expected["permissions"] = {**(before.get("permissions") or {}), "allow": [*current, rule]}
    try:
        ok = new is not None and tomllib.loads(new) == expected
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok or new is None:
        return f"could not edit {user_config} safely; add {rule!r} to [permissions] allow yourself"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(user_config, new, new_mode=0o600)
    if len(text) == 0:
        os.chmod(user_config, 0o600)
    return None
