"""Which model a ``--model`` value means, and whether it is still served.

Guarantees:
- The table is ``models.json`` next to this file, written by ``scripts/update_models.py`` from
  the official ``anthropic`` and ``openai`` packages (their model lists, Anthropic's
  deprecation table and API version); it is read on first use, never fetched.
- ``resolve(spec)`` accepts ``PROVIDER:MODEL`` as is, an alias (``sonnet``, ``opus``,
  ``haiku``, also as ``anthropic:sonnet``), and a bare id: ``claude-*`` is Anthropic's,
  ``gpt-*``, ``chatgpt-*`` and ``o1``/``o3``/``o4``… are OpenAI's. Anything else is returned
  unchanged (the caller's error names the known forms).
- ``retirement(model)`` is the ISO date Anthropic retires the model on, or None.
- ``takes_adaptive(model)`` / ``enabled_deprecated(model)``: the table's ``thinking`` lists
  (the documented adaptive-thinking models; the SDK's deprecation list for a fixed budget).
  A model the table does not know (a dated id, a gateway's name) is assumed to take
  adaptive thinking: the API's own 400 then names the problem.
"""

from __future__ import annotations

import datetime
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("models.json")
_OPENAI_BARE = re.compile(r"^(gpt-|chatgpt-|o\d)")


@lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return loaded


def default() -> str:
    return str(table()["default"])


def anthropic_version() -> str:
    """The ``anthropic-version`` the pinned official SDK sends (ADR-0041)."""
    return str(table()["anthropic_version"])


def resolve(spec: str) -> str:
    spec = spec.strip()
    aliases: dict[str, str] = table()["aliases"]
    if spec.lower() in aliases:
        return aliases[spec.lower()]
    prefix, sep, rest = spec.partition(":")
    if sep and prefix == "anthropic" and rest.lower() in aliases:
        return aliases[rest.lower()]
    if sep and prefix in ("anthropic", "openai", "scripted"):
        return spec
    if spec.startswith("claude-"):
        return "anthropic:" + spec
    if _OPENAI_BARE.match(spec):
        return "openai:" + spec
    return spec


def retirement(model: str) -> str | None:
    """When Anthropic retires ``model`` (ISO date), if it is in the deprecation table."""
    retiring: dict[str, str] = table()["anthropic"]["retiring"]
    return retiring.get(model.removeprefix("anthropic:"))


def _bare(model: str) -> str:
    return model.removeprefix("anthropic:")


def takes_adaptive(model: str) -> bool:
    """Whether ``thinking = "adaptive"`` may be sent for ``model``."""
    anthropic = table()["anthropic"]
    bare = _bare(model)
    if bare not in anthropic["models"]:
        return True
    return bare in anthropic["thinking"]["adaptive"]


def enabled_deprecated(model: str) -> bool:
    """Whether the SDK marks a fixed thinking budget deprecated for ``model``."""
    return _bare(model) in table()["anthropic"]["thinking"]["enabled_deprecated"]


def lifecycle_note(model: str, today: datetime.date | None = None) -> str | None:
    """A warning for a deprecated or retired model (naming a current one), else None."""
    when = retirement(model)
    if when is None:
        return None
    today = today or datetime.date.today()
    current = default()
    if datetime.date.fromisoformat(when) <= today:
        return (f"{model} reached its end of life on {when} — the API no longer serves it; "
                f"use --model sonnet ({current}) or another current model")
    return (f"{model} is deprecated and retires on {when} — move to a current model, "
            f"e.g. --model sonnet ({current})")
