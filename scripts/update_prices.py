"""Regenerate edgar/providers/prices.json from the maintained ``genai-prices`` package.

Dev tool only: ``pip install genai-prices`` (or put an unpacked wheel on PYTHONPATH), then
``python scripts/update_prices.py``. edgar never downloads prices at run time; it reads the
table this script writes, dated with the day it was written.

What is kept: for each model of the providers below that has input and output token prices,
the prices in force today (USD per million tokens: input, output, cache write (5 min), cache
read — tiered where the source tiers them), its context window and its match rule.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

# Providers whose model names people pass to edgar (directly, or through OpenRouter as
# "vendor/model"). Anthropic and OpenAI first: the first matching entry wins.
PROVIDERS = ("anthropic", "openai", "google", "deepseek", "mistral", "x-ai", "moonshotai", "zai")
KEYS = {"input_mtok": "input", "output_mtok": "output", "cache_write_mtok": "cache_write",
        "cache_read_mtok": "cache_read"}
OUT = Path(__file__).resolve().parent.parent / "edgar" / "providers" / "prices.json"


def clause(logic: Any) -> dict[str, Any]:
    """genai-prices' match clause as plain JSON that edgar/providers/prices.py evaluates."""
    name = type(logic).__name__
    if name == "ClauseOr":
        return {"or": [clause(c) for c in logic.or_]}
    if name == "ClauseAnd":
        return {"and": [clause(c) for c in logic.and_]}
    for field in ("starts_with", "ends_with", "contains", "regex", "equals"):
        if hasattr(logic, field):
            return {field: getattr(logic, field)}
    raise ValueError(f"unknown match clause {name}")


def price(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if hasattr(value, "base") and hasattr(value, "tiers"):  # TieredPrices
        return {"base": float(value.base), "tiers": [[t.start, float(t.price)] for t in value.tiers]}
    raise ValueError(f"unknown price {value!r}")


def newest_change(providers: Any, today: dt.date) -> str | None:
    """The latest start date of a dated price that applies on ``today``, as ISO text."""
    best: dt.date | None = None
    for provider in providers:
        for model in provider.models:
            for conditional in model.prices if isinstance(model.prices, list) else ():
                start = getattr(getattr(conditional, "constraint", None), "start_date", None)
                if isinstance(start, dt.datetime):
                    start = start.date()
                if start is not None and start <= today and (best is None or start > best):
                    best = start
    return best.isoformat() if best else None


def build(today: dt.date) -> dict[str, Any]:
    import genai_prices
    from genai_prices.data import providers

    now = dt.datetime.combine(today, dt.time(12), tzinfo=dt.timezone.utc)
    models = []
    for provider in sorted(providers, key=lambda p: PROVIDERS.index(p.id) if p.id in PROVIDERS else 99):
        if provider.id not in PROVIDERS:
            continue
        for model in provider.models:
            prices = model.get_prices(now)
            found = {ours: getattr(prices, theirs, None) for theirs, ours in KEYS.items()}
            if found["input"] is None or found["output"] is None:
                continue  # audio, image, per-request models: not what edgar calls
            entry = {"id": model.id, "provider": provider.id, "match": clause(model.match),
                     "context_window": model.context_window}
            entry.update({k: price(v) for k, v in found.items() if v is not None})
            models.append(entry)
    return {
        "date": today.isoformat(),
        "source": f"genai-prices {genai_prices.__version__}",
        # the package carries no release date: the newest price change in force is the
        # freshest thing its data is known to include
        "source_newest_change": newest_change(providers, today),
        "unit": "USD per million tokens; tiers apply to all tokens once the prompt "
                "(input + cache) reaches the start",
        "models": models,
    }


def dump(table: dict[str, Any]) -> str:
    """One model per line: a price change shows as a one-line diff."""
    head = {k: v for k, v in table.items() if k != "models"}
    lines = [json.dumps(head)[:-1] + ', "models": [']
    lines += [json.dumps(m) + "," for m in table["models"]]
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        table = build(dt.date.today())
    except ImportError:
        print("genai-prices is not installed: pip install genai-prices", file=sys.stderr)
        return 2
    args.out.write_text(dump(table), encoding="utf-8")
    print(f"wrote {len(table['models'])} models dated {table['date']} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
