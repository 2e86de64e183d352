"""models.json is what scripts/update_models.py writes from the pinned SDKs (never hand-written)."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_table_is_the_scripts_output_from_the_pinned_sdks():
    spec = importlib.util.spec_from_file_location("update_models",
                                                  REPO / "scripts" / "update_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stored = json.loads((REPO / "edgar" / "providers" / "models.json").read_text())
    built = module.build(dt.date.fromisoformat(stored["date"]))
    assert built == stored


def test_adaptive_thinking_follows_the_documented_rule():
    from edgar.providers.models import enabled_deprecated, takes_adaptive

    assert takes_adaptive("claude-sonnet-4-6") and takes_adaptive("claude-opus-5")
    assert takes_adaptive("claude-mythos-preview")
    assert not takes_adaptive("claude-sonnet-4-5")
    assert not takes_adaptive("claude-haiku-4-5-20251001")
    assert enabled_deprecated("claude-opus-4-6") and not enabled_deprecated("claude-sonnet-5-5")
