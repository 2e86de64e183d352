"""What a model response cost, from the dated price table ``prices.json`` next to this file.

Guarantees:
- Nothing is downloaded: the table is in the repository, written by
  ``scripts/update_prices.py`` from the ``genai-prices`` package, and dated (``PRICES_DATE``).
- ``cost(model, usage)`` prices each kind of token at its own rate: uncached input, output,
  cache writes (5-minute rate) and cache reads. A missing cache rate falls back to the input
  rate. A tiered price applies its tier to all tokens once the prompt (input + cache
  tokens) exceeds the tier's start, as the providers bill it.
- An unknown model costs ``None`` (tokens are still counted by the caller);
  ``note_unknown(model)`` returns a sentence to show the first time only, per process.
- The table is read on first use, not at import (the turn loop imports this module).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from edgar.conversation import Usage

TABLE = Path(__file__).with_name("prices.json")
_ROUTES = ("anthropic:", "openai:")   # edgar's own PROVIDER: prefix, if a spec is passed whole
_said: set[str] = set()


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    table: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return table


def __getattr__(name: str) -> Any:
    if name == "PRICES_DATE":  # lazy: reading the table is not free
        return _table()["date"]
    raise AttributeError(name)


def _matches(rule: dict[str, Any], ref: str) -> bool:
    if "or" in rule:
        return any(_matches(r, ref) for r in rule["or"])
    if "and" in rule:
        return all(_matches(r, ref) for r in rule["and"])
    if "equals" in rule:
        return ref == str(rule["equals"]).lower()
    if "starts_with" in rule:
        return ref.startswith(str(rule["starts_with"]).lower())
    if "ends_with" in rule:
        return ref.endswith(str(rule["ends_with"]).lower())
    if "contains" in rule:
        return str(rule["contains"]).lower() in ref
    if "regex" in rule:
        return re.search(str(rule["regex"]), ref) is not None
    return False


@lru_cache(maxsize=256)
def lookup(model: str) -> dict[str, Any] | None:
    """The table entry for a model name as a provider reports it, or None."""
    ref = model.strip().lower()
    for prefix in _ROUTES:
        ref = ref.removeprefix(prefix)
    candidates = [ref]
    if "/" in ref:  # OpenRouter and friends: "anthropic/claude-sonnet-4.5"
        candidates.append(ref.rsplit("/", 1)[1])
    for candidate in candidates:
        for entry in _table()["models"]:
            if _matches(entry["match"], candidate):
                found: dict[str, Any] = entry
                return found
    return None


def _rate(price: Any, prompt_tokens: int) -> float:
    if isinstance(price, dict):
        rate = float(price["base"])
        for start, tier_rate in price["tiers"]:  # ascending
            if prompt_tokens > start:
                rate = float(tier_rate)
        return rate
    return float(price)


def cost(model: str, usage: Usage) -> float | None:
    """USD for one response, or None when the model is not in the table or the server
    reported no usage (unknown, never a known zero)."""
    if not usage.reported:
        return None
    entry = lookup(model)
    if entry is None:
        return None
    prompt = usage.input_tokens + usage.cache_write_tokens + usage.cache_read_tokens
    input_rate = _rate(entry["input"], prompt)
    write_rate = _rate(entry["cache_write"], prompt) if "cache_write" in entry else input_rate
    read_rate = _rate(entry["cache_read"], prompt) if "cache_read" in entry else input_rate
    total = (usage.input_tokens * input_rate
             + usage.output_tokens * _rate(entry["output"], prompt)
             + usage.cache_write_tokens * write_rate
             + usage.cache_read_tokens * read_rate)
    return total / 1_000_000


def context_window(model: str) -> int | None:
    entry = lookup(model)
    return entry.get("context_window") if entry else None


def note_unknown(model: str) -> str | None:
    """A one-time sentence for a model without a price, or None (known, or already said)."""
    if lookup(model) is not None or model in _said:
        return None
    _said.add(model)
    return (f"no price for model {model!r} in edgar's table (dated {_table()['date']}): "
            "tokens are counted, cost is shown as unknown")
