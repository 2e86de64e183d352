"""Regenerate edgar/providers/models.json from the official ``anthropic`` and ``openai`` packages.

Dev tool only (``pip install anthropic openai``, the test extra pins them), then
``python scripts/update_models.py``. edgar itself never imports either package: it reads the
small table this script writes (ADR-0041).

What is kept, from the installed packages' own published data:
- ``anthropic``: the model ids of ``anthropic.types.Model``, the retirement dates of
  ``anthropic._data.DEPRECATED_MODELS`` (as ISO dates) and the API version the SDK sends
  (``anthropic._constants.ANTHROPIC_API_VERSION``);
- ``openai``: the chat model ids of ``openai.types.ChatModel``;
- aliases ``sonnet``, ``opus``, ``haiku``: the highest-numbered undated id of that family that
  is not deprecated; ``default``: the ``sonnet`` alias;
- ``thinking.enabled_deprecated``: ``anthropic._data.MODELS_TO_WARN_WITH_THINKING_ENABLED``
  (the models the SDK warns about ``thinking.type = "enabled"`` for);
  ``thinking.adaptive``: the ids that take ``thinking.type = "adaptive"``, by the rule the API
  documents (platform.claude.com, build-with-claude/adaptive-thinking: "Claude 4.6 and later",
  and Claude Mythos Preview), applied to the SDK's model ids.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import typing
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "edgar" / "providers" / "models.json"
FAMILIES = ("sonnet", "opus", "haiku")
_DATED = re.compile(r"-\d{8}$")
_GENERATION = re.compile(r"^claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$")
ADAPTIVE_SINCE = (4, 6)                     # the documented first generation with adaptive
ADAPTIVE_NAMED = ("claude-mythos-preview",)  # listed by name in the same documentation


def literals(alias: Any) -> list[str]:
    """The string literals of a ``Union[Literal[...], str]`` type alias, in their order."""
    parts = [alias] if typing.get_origin(alias) is typing.Literal else typing.get_args(alias)
    out: list[str] = []
    for arg in parts:
        if typing.get_origin(arg) is typing.Literal:
            out.extend(a for a in typing.get_args(arg) if isinstance(a, str))
    return list(dict.fromkeys(out))


def iso(day: str) -> str:
    """``"November 30th, 2026"`` -> ``"2026-11-30"``."""
    cleaned = re.sub(r"(\d+)(st|nd|rd|th)", r"\1", day.strip())
    return dt.datetime.strptime(cleaned, "%B %d, %Y").date().isoformat()


def version_of(model: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", model))


def takes_adaptive(model: str) -> bool:
    """Whether ``model`` takes ``thinking.type = "adaptive"``, by the documented rule."""
    if model in ADAPTIVE_NAMED:
        return True
    match = _GENERATION.match(model)
    if match is None:
        return False
    return (int(match.group(1)), int(match.group(2) or 0)) >= ADAPTIVE_SINCE


def build(today: dt.date) -> dict[str, Any]:
    import anthropic
    import openai
    from anthropic._constants import ANTHROPIC_API_VERSION
    from anthropic._data import DEPRECATED_MODELS, MODELS_TO_WARN_WITH_THINKING_ENABLED
    from anthropic.types import Model
    from openai.types import ChatModel

    claude = literals(Model)
    retiring = {m: iso(day) for m, day in sorted(DEPRECATED_MODELS.items())}
    aliases = {}
    for family in FAMILIES:
        current = [m for m in claude if m.startswith(f"claude-{family}-") and m not in retiring
                   and not _DATED.search(m)]
        if current:
            aliases[family] = "anthropic:" + max(current, key=version_of)
    return {
        "date": today.isoformat(),
        "source": f"anthropic {anthropic.__version__}, openai {openai.__version__}",
        "anthropic_version": ANTHROPIC_API_VERSION,
        "default": aliases["sonnet"],
        "aliases": aliases,
        "anthropic": {"models": claude, "retiring": retiring,
                      "thinking": {
                          "adaptive": [m for m in claude if takes_adaptive(m)],
                          "enabled_deprecated": list(MODELS_TO_WARN_WITH_THINKING_ENABLED)}},
        "openai": {"models": literals(ChatModel)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        table = build(dt.date.today())
    except ImportError as exc:
        print(f"{exc.name} is not installed: pip install anthropic openai", file=sys.stderr)
        return 2
    args.out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(table['anthropic']['models'])} anthropic and "
          f"{len(table['openai']['models'])} openai models ({table['source']}) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
