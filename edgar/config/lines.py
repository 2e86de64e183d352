"""Where a key sits in a config file's text: the one place edgar turns a key into a line number.

What this module guarantees: every located error about a config file (edgar's TOML, Claude
Code's JSON, an MCP server list) names its line the same way; both functions are pure and total
(any text, any key: a line number, or None for a TOML key that is not written down), and they
import nothing heavier than `re`, compiled on first use.
"""

from __future__ import annotations

import json
import re
from functools import cache


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    return (re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$"),      # [table] / [[array]]
            re.compile(r"""^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-.\s])+?)\s*="""),  # key =
            re.compile(r""""([^"]*)"|'([^']*)'|([^.\s]+)"""))          # one part of a dotted key


def _parts(dotted: str) -> tuple[str, ...]:
    part = _patterns()[2]
    return tuple(next(g for g in m.groups() if g is not None) for m in part.finditer(dotted))


def toml_line(text: str, loc: tuple[str, ...]) -> int | None:
    """The 1-based line that defines ``loc`` (or its nearest enclosing key or table header).

    Tracks ``[table]`` headers so ``providers.openai.max_retries`` finds the key under
    ``[providers.openai]``, not the first ``max_retries`` in the file; the first of several
    ``[[array]]`` tables wins.
    """
    header_re, key_re, _ = _patterns()
    table: tuple[str, ...] = ()
    best, best_len = None, 0
    for number, line in enumerate(text.splitlines(), start=1):
        header = header_re.match(line)
        if header:
            table = _parts(header.group(1))
            path = table
        else:
            key = key_re.match(line)
            if not key:
                continue
            path = table + _parts(key.group(1))
        if len(path) > best_len and loc[:len(path)] == path:
            best, best_len = number, len(path)
    return best


def json_line(text: str, needles: tuple[str, ...]) -> int:
    """The line where the needles appear one after the other, each a JSON key (quoted), so
    ``("hooks", "PreToolUse")`` finds PreToolUse under hooks; else where the chain broke off,
    else line 1."""
    lines = text.splitlines()
    start = 0
    found = 1
    for needle in needles:
        quoted = json.dumps(needle)
        for number in range(start, len(lines)):
            if quoted in lines[number]:
                found, start = number + 1, number
                break
        else:
            return found
    return found
