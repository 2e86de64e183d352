"""The rekeyed Nosey Parker table (ADR 0088): `scripts/noseyparker_rules.py --rekey` regenerates
the committed table byte for byte and is idempotent; every rule's keywords, reach, anchoring
and `follow` characters hold for every string its regex matches (hypothesis, per rule); and on
the labelled sets the keyword-driven finder reports every span a brute-force run of every rule
over the whole text reports — the prefilter drops no true hit."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgar.redact import noseyparker as np_
from edgar.redact.text import LOWER, placeholder

ROOT = Path(__file__).resolve().parents[2]
TABLE_PATH = ROOT / "edgar" / "redact" / "noseyparker_rules.json"
TABLE = json.loads(TABLE_PATH.read_text("utf-8"))
SCRIPT = ROOT / "scripts" / "noseyparker_rules.py"
DATA = ROOT / "tests" / "data"


def _rekey(path: Path) -> None:
    subprocess.run([sys.executable, str(SCRIPT), "--rekey", "--table", str(path)], check=True,
                   capture_output=True, cwd=ROOT)


def test_rekey_regenerates_the_committed_table_byte_for_byte_and_is_idempotent(
        tmp_path: Path) -> None:
    copy = tmp_path / "noseyparker_rules.json"
    copy.write_bytes(TABLE_PATH.read_bytes())
    _rekey(copy)
    once = copy.read_bytes()
    assert once == TABLE_PATH.read_bytes(), (
        "the committed table is stale: run scripts/noseyparker_rules.py --rekey")
    _rekey(copy)
    assert copy.read_bytes() == once


def test_rekey_rederives_fields_it_was_not_given(tmp_path: Path) -> None:
    """The derived fields come from the pattern, not from the file: wiped, they come back."""
    table = json.loads(TABLE_PATH.read_text("utf-8"))
    for r in table["rules"]:
        for k in ("keywords", "before", "after", "anchored", "follow", "also"):
            r.pop(k)
    copy = tmp_path / "noseyparker_rules.json"
    copy.write_text(json.dumps(table), encoding="utf-8")
    _rekey(copy)
    assert copy.read_bytes() == TABLE_PATH.read_bytes()


def _view(s: str) -> bytes:
    """What the finder searches: the lower-cased ASCII view, `?` for anything else."""
    return s.encode("ascii", "replace").translate(LOWER)


def _check_match(rule: dict, s: str) -> None:
    """Everything the prefilter assumes of one string the rule's regex matches in full."""
    low = _view(s)
    kws = [k.encode() for k in rule["keywords"]]
    at = [(k, i) for k in kws for i in range(len(low)) if low.startswith(k, i)]
    assert at, (rule["id"], s, "holds none of its keywords")
    before = rule["before"] if rule["before"] is not None else np_.BEFORE
    after = rule["after"] if rule["after"] is not None else np_.AFTER
    if rule["before"] is not None and rule["after"] is not None:
        # some hit's window [hit - before, hit + after] holds the whole match
        assert any(i <= before and len(s) <= i + after for _, i in at), (rule["id"], s, before,
                                                                        after)
    for words in rule["also"]:
        assert any(w.encode() in low for w in words), (rule["id"], s, "misses an `also` set", words)
    if rule["anchored"]:
        lead = [k for k, i in at if i == 0]
        assert lead, (rule["id"], s, "does not start with a keyword")
        if rule["follow"] is not None:
            ok = rule["follow"].encode()
            assert any(len(low) == len(k) or low[len(k)] in ok for k in lead), (rule["id"], s,
                                                                                rule["follow"])
        assert len(s) <= after or rule["after"] is None


@pytest.mark.parametrize("rule", TABLE["rules"], ids=[r["np_id"] for r in TABLE["rules"]])
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_string_a_rule_matches_satisfies_its_derived_fields(rule: dict, data) -> None:
    rx = re.compile(rule["regex"], re.ASCII)
    s = data.draw(st.from_regex(rx, fullmatch=True))
    _check_match(rule, s)


def test_every_example_match_satisfies_its_derived_fields() -> None:
    """The same checks, exhaustively, on every match of every rule in both labelled sets."""
    rows = _rows()
    checked = 0
    for rule in TABLE["rules"]:
        rx = re.compile(rule["regex"], re.ASCII)
        for text in rows:
            for m in rx.finditer(text):
                if m.group():
                    _check_match(rule, m.group())
                    checked += 1
    assert checked > 400  # the sets do exercise the rules


def _rows() -> list[str]:
    out = []
    for name in ("redact_labelled.jsonl", "redact_noseyparker.jsonl"):
        with (DATA / name).open(encoding="utf-8") as f:
            out += [json.loads(line)["text"] for line in f if line.strip()]
    return out


def _brute(text: str) -> set[tuple[int, int, str]]:
    """Every rule over the whole text, no keywords, no windows, no `follow` — only matches
    longer than the most a keyword hit opens (`AFTER`, ADR 0086: a base64 PEM body of 2 KB,
    which `blocks` takes whole) are not asked for."""
    out = set()
    for rule in np_.load().rules:
        for m in rule.rx.finditer(text):
            if m.end() - m.start() > np_.AFTER:
                continue
            g = next((g for g in rule.groups if m.group(g)), 0)
            s, e = m.span(g)
            if e > s and not placeholder(text[s:e]) and "[REDACTED:" not in text[s:e]:
                out.add((s, e, rule.id))
    return out


def test_the_prefilter_drops_no_true_hit_on_the_labelled_sets() -> None:
    dropped = []
    found_any = 0
    for text in _rows():
        spans: list = []
        np_.find(text, _view(text), spans)
        fast = {(s, e, f) for s, e, f, _ in spans}
        slow = _brute(text)
        found_any += bool(slow)
        if not slow <= fast:
            dropped.append((text[:120], sorted(slow - fast)))
    assert found_any > 400
    assert not dropped, dropped[:5]
