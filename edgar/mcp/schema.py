"""An MCP tool's name, description and input schema in a shape every provider accepts.

Guarantees (pure):
- ``tool_name`` is ``mcp__SERVER__TOOL`` (Claude Code's naming) matching
  ``^[A-Za-z0-9_-]{1,64}$`` (Anthropic's and OpenAI's rule for tool names): other
  characters become ``_``, and a name too long is cut with a short stable hash kept.
- ``input_schema`` returns a JSON-serialisable object schema: top-level ``type`` is
  ``"object"``, ``properties`` is an object, ``required`` lists only strings, and top-level
  ``anyOf``/``oneOf``/``allOf``/``not``/``enum`` (which OpenAI rejects) are removed. A schema
  that is not an object, not JSON or larger than ``MAX_SCHEMA_CHARS`` becomes the permissive
  ``{"type": "object"}``; ``changed`` says whether anything was altered.
- ``description`` is one string of at most ``MAX_DESCRIPTION`` characters.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

MAX_NAME = 64
MAX_SCHEMA_CHARS = 32_000
MAX_DESCRIPTION = 1024
_BAD = re.compile(r"[^A-Za-z0-9_-]")
_TOP_LEVEL_REJECTED = ("anyOf", "oneOf", "allOf", "not", "enum")


def tool_name(server: str, tool: str) -> str:
    name = _BAD.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return name[: MAX_NAME - 9] + "_" + digest


def description(text: Any, server: str) -> str:
    body = text if isinstance(text, str) and text.strip() else "(no description)"
    body = f"[MCP server {server}] {body.strip()}"
    return body if len(body) <= MAX_DESCRIPTION else body[: MAX_DESCRIPTION - 1] + "…"


def input_schema(raw: Any) -> tuple[dict[str, Any], bool]:
    """(schema a provider accepts, whether it differs from ``raw``)."""
    permissive: dict[str, Any] = {"type": "object", "properties": {}}
    if not isinstance(raw, dict):
        return permissive, True
    try:
        text = json.dumps(raw, allow_nan=False)
    except (TypeError, ValueError):
        return permissive, True
    if len(text) > MAX_SCHEMA_CHARS:
        return permissive, True
    schema: dict[str, Any] = json.loads(text)
    for key in _TOP_LEVEL_REJECTED:
        schema.pop(key, None)
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), dict):
        schema["properties"] = {}
    required = schema.get("required")
    if required is not None:
        if isinstance(required, list):
            kept = [r for r in required if isinstance(r, str)]
            if kept:
                schema["required"] = kept
            else:
                schema.pop("required")
        else:
            schema.pop("required")
    return schema, schema != raw
