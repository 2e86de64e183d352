"""Claude Code's rule files, ``.claude/rules/**/*.md`` (issue 23, ADR-0112).

Guarantees:
- ``rule_files`` lists a rules folder's ``*.md`` files, subfolders included, sorted by their
  path (a deterministic order: the system prompt stays byte-stable); a link loop or an
  unreadable folder is no rules, never an error.
- ``parse`` (pure) reads an optional YAML-like front matter block and its ``paths:`` key — one
  pattern (``paths: src/**/*.py``), a list (``- "src/**/*.ts"`` lines, or ``[a, b]``) — and
  returns the patterns (None: the rule applies everywhere) and the body without the front
  matter. Other keys are ignored, as Claude Code ignores them.
- ``matches`` (pure) is Claude Code's glob over a project-relative POSIX path: ``**`` any
  number of folders, ``*`` and ``?`` within one name, ``{a,b}`` alternatives.
- A rule without ``paths`` is start-up instruction text (beside ``.claude/CLAUDE.md``); a rule
  with ``paths`` is handed over once, after the result of the first tool call that touches a
  matching file (``instructions.NestedInstructions``). Project rules only once the project
  is trusted (the caller decides); the person's own ``~/.claude/rules`` at once.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

MAX_RULES = 200


def rule_files(folder: Path) -> list[Path]:
    try:
        if not folder.is_dir():
            return []
        found = sorted((p for p in folder.rglob("*.md") if p.is_file()),
                       key=lambda p: p.relative_to(folder).as_posix())
    except (OSError, RuntimeError):
        return []
    return found[:MAX_RULES]


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def parse(text: str) -> tuple[list[str] | None, str]:
    """(the ``paths`` patterns or None, the body)."""
    lines = text.split("\n")   # only newlines end a line: a body keeps its other characters
    if not lines or lines[0].strip() != "---":
        return None, text.strip()
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return None, text.strip()
    head, body = lines[1:end], "\n".join(lines[end + 1:]).strip()
    patterns: list[str] | None = None
    in_paths = False
    for line in head:
        key, sep, value = line.partition(":")
        if sep and not line.startswith((" ", "\t", "-")):
            in_paths = key.strip() == "paths"
            if in_paths:
                value = value.strip()
                patterns = []
                if value.startswith("[") and value.endswith("]"):
                    patterns = [_scalar(v) for v in value[1:-1].split(",") if _scalar(v)]
                elif value:
                    patterns = [_scalar(v) for v in value.split(",") if _scalar(v)]
            continue
        item = line.strip()
        if in_paths and item.startswith("-") and patterns is not None:
            value = _scalar(item[1:])
            if value:
                patterns.append(value)
    return (patterns or None), body


@lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    pattern = pattern.lstrip("/").removeprefix("./")
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "{":
            close = pattern.find("}", i)
            if close > i:
                options = pattern[i + 1:close].split(",")
                out.append("(?:" + "|".join(re.escape(o) for o in options) + ")")
                i = close + 1
                continue
            out.append(re.escape(c))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def matches(patterns: list[str], path: str) -> bool:
    """Whether the project-relative POSIX ``path`` matches any of ``patterns``."""
    return any(_regex(p).match(path) for p in patterns if p)
