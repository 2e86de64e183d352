"""The dated price table: coverage of current models and costs checked against hand sums."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from edgar.conversation import Usage
from edgar.providers import prices

ROOT = Path(__file__).resolve().parents[2]


def test_table_is_dated_and_covers_current_models():
    dt.date.fromisoformat(prices.PRICES_DATE)
    for model in ("claude-opus-4-1", "claude-opus-4-5", "claude-sonnet-4-5", "claude-sonnet-4-0",
                  "claude-haiku-4-5", "claude-3-7-sonnet-latest", "claude-3-5-haiku-latest"):
        entry = prices.lookup(model)
        assert entry is not None, model
        assert {"input", "output", "cache_write", "cache_read"} <= set(entry), model
        assert prices.context_window(model) >= 200_000
    for model in ("gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini", "o3", "o4-mini",
                  "gpt-5", "gpt-5-mini"):
        entry = prices.lookup(model)
        assert entry is not None, model
        assert {"input", "output", "cache_read"} <= set(entry), model
        assert prices.context_window(model) >= 128_000


def test_names_as_providers_report_them():
    assert prices.lookup("claude-sonnet-4-5-20250929")["id"] == "claude-sonnet-4-5"
    assert prices.lookup("anthropic/claude-sonnet-4.5")["id"] == "claude-sonnet-4-5"   # OpenRouter
    assert prices.lookup("gpt-4.1-2025-04-14")["id"] == "gpt-4.1"
    assert prices.lookup("anthropic:claude-haiku-4-5")["id"] == "claude-haiku-4-5"    # a whole spec


def test_cache_heavy_cost_matches_hand_computation():
    # claude-opus-4-5: $5 in, $25 out, $6.25 cache write (1.25x), $0.50 cache read (0.1x)
    usage = Usage(input_tokens=3, output_tokens=500, cache_write_tokens=2000,
                  cache_read_tokens=90000)
    by_hand = (3 * 5 + 500 * 25 + 2000 * 6.25 + 90000 * 0.50) / 1_000_000
    assert by_hand == pytest.approx(0.070015)
    assert prices.cost("claude-opus-4-5-20251101", usage) == pytest.approx(by_hand)


def test_long_prompt_tier_applies_to_every_token():
    # claude-sonnet-4-5 over 200k prompt tokens: $6 in, $22.50 out, $7.50 write, $0.60 read
    long = Usage(input_tokens=1200, output_tokens=800, cache_write_tokens=50000,
                 cache_read_tokens=150000)
    assert prices.cost("claude-sonnet-4-5", long) == pytest.approx(
        (1200 * 6 + 800 * 22.5 + 50000 * 7.5 + 150000 * 0.6) / 1e6)   # 0.4902
    short = Usage(100, 800, 100, 100)
    assert prices.cost("claude-sonnet-4-5", short) == pytest.approx(
        (100 * 3 + 800 * 15 + 100 * 3.75 + 100 * 0.3) / 1e6)           # 0.012705


def test_missing_cache_write_rate_falls_back_to_input_rate():
    assert "cache_write" not in prices.lookup("gpt-4.1")
    cost = prices.cost("gpt-4.1", Usage(1000, 200, cache_write_tokens=500, cache_read_tokens=5000))
    assert cost == pytest.approx((1000 * 2 + 200 * 8 + 500 * 2 + 5000 * 0.5) / 1e6)


def test_unknown_model_costs_none_and_is_said_once():
    assert prices.cost("llama3.2:3b-local", Usage(10, 10)) is None
    assert prices.context_window("llama3.2:3b-local") is None
    first = prices.note_unknown("llama3.2:3b-local")
    assert "llama3.2:3b-local" in first and prices.PRICES_DATE in first
    assert prices.note_unknown("llama3.2:3b-local") is None
    assert prices.note_unknown("claude-sonnet-4-5") is None


def test_table_is_not_read_at_import():
    code = "import edgar.providers.prices as p; print(p._table.cache_info().currsize)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.strip() == "0"


def test_update_script_writes_one_model_per_line():
    spec = importlib.util.spec_from_file_location("update_prices",
                                                  ROOT / "scripts" / "update_prices.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    table = {"date": "2026-01-01", "source": "t", "models": [
        {"id": "a", "match": {"equals": "a"}, "input": 1.0, "output": 2.0},
        {"id": "b", "match": {"starts_with": "b"}, "input": {"base": 1.0, "tiers": [[10, 2.0]]},
         "output": 2.0}]}
    text = script.dump(table)
    assert json.loads(text) == table
    assert len(text.splitlines()) == 4
    # the shipped table is in the same shape
    shipped = (ROOT / "edgar" / "providers" / "prices.json").read_text()
    assert json.loads(shipped)["date"] == prices.PRICES_DATE
