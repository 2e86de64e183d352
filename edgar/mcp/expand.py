"""``${VAR}`` and ``${VAR:-default}`` in MCP server entries, as Claude Code documents them.

Guarantees (pure):
- Only those two forms expand, and only for names ``[A-Za-z_][A-Za-z0-9_]*``; ``$VAR`` and
  any other ``${…}`` (shell parameter expansion such as ``${x%/}``) stay as written.
- A variable that is unset and has no default is reported by name in ``missing`` (the
  entry is then refused with a message), never silently replaced by an empty string.
- ``${VAR:-default}`` uses ``default`` when VAR is unset or empty, as a shell does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand(text: str, environ: Mapping[str, str], missing: list[str]) -> str:
    """``text`` with every ``${VAR}``/``${VAR:-default}`` replaced; unset names go to missing."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if default is not None and not value:
            return default
        if value is None:
            if name not in missing:
                missing.append(name)
            return match.group(0)
        return value

    return PATTERN.sub(one, text)
