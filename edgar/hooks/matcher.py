"""A hook's ``matcher`` as Claude Code evaluates it (https://code.claude.com/docs/en/hooks#matcher-patterns).

Guarantees (pure):
- ``"*"``, ``""`` and no matcher match everything.
- A matcher of only letters, digits, ``_``, ``-``, spaces, ``,`` and ``|`` is a list of
  exact names separated by ``|`` or ``,`` (whitespace around each ignored): ``Bash`` matches
  the Bash tool only, ``Edit|Write`` and ``Edit, Write`` either of the two, ``mcp__memory``
  no tool at all (a server's tools need ``mcp__memory__.*``).
- Any other matcher is a regular expression tested unanchored (JavaScript's
  ``RegExp.test``, here ``re.search``): ``Edit.*`` matches ``NotebookEdit`` too,
  ``^Edit$`` only ``Edit``. One that does not compile is refused by ``check`` with the
  reason, and matches nothing, never everything.
- ``matches`` is true when the matcher matches any of the values given (a tool's Claude Code
  name, its older name and edgar's own, ``tools/vocabulary.names``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_EXACT = re.compile(r"^[A-Za-z0-9_\- ,|]*$")


def is_all(matcher: str | None) -> bool:
    return matcher is None or matcher.strip() in ("", "*")


@lru_cache(maxsize=256)
def _compiled(matcher: str) -> re.Pattern[str] | None:
    try:
        return re.compile(matcher)
    except re.error:
        return None


def check(matcher: str | None) -> str | None:
    """Why this matcher can never work (a regex that does not compile), or None."""
    if is_all(matcher) or matcher is None or _EXACT.match(matcher):
        return None
    try:
        re.compile(matcher)
    except re.error as exc:
        return f"matcher {matcher!r} is not a valid regular expression ({exc})"
    return None


def matches(matcher: str | None, values: Iterable[str]) -> bool:
    if is_all(matcher):
        return True
    assert matcher is not None
    values = [v for v in values if v]
    if _EXACT.match(matcher):
        wanted = {part.strip() for part in re.split(r"[|,]", matcher) if part.strip()}
        return any(v in wanted for v in values)
    pattern = _compiled(matcher)
    return pattern is not None and any(pattern.search(v) for v in values)
