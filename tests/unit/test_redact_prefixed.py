"""No entropy gate on fixed-prefix, fixed-length tokens (issue 24 item 2, ADR 0089): a `ghp_`
token whose body repeats a short pattern is redacted like any other; only obvious
placeholders (one repeated character, `x`/`X` runs, `EXAMPLE`, `<…>`, `${…}`) are spared; the
gate stays for generic assignments. The `prefix` field is derived from each rule's pattern and
is what `--rekey` writes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from edgar.redact import redact
from edgar.redact.text import placeholder

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import secret_literals as lit  # noqa: E402

TABLE_PATH = ROOT / "edgar" / "redact" / "gitleaks_rules.json"
TABLE = json.loads(TABLE_PATH.read_text("utf-8"))
RULES = {r["id"]: r for r in TABLE["rules"]}
GATED = sorted(rid for rid, r in RULES.items()
               if r["prefix"] and r["entropy"] and rid != "generic-api-key")
ROWS = [json.loads(line)
        for line in (ROOT / "tests" / "data" / "redact_labelled.jsonl").open(encoding="utf-8")]
EXAMPLE = {rid: next(r for r in ROWS if r["secret"] and r.get("rule") == rid) for rid in GATED}


def test_fixed_prefix_and_length_rules_are_marked() -> None:
    assert {"github-pat", "github-oauth", "gitlab-pat", "aws-access-token", "npm-access-token",
            "shopify-access-token", "gcp-api-key"} <= set(GATED)
    # variable length, a group of several, or a prefix that names no family: the gate stays
    for rid in ("openai-api-key", "slack-bot-token", "jwt-base64", "okta-access-token",
                "generic-api-key"):
        assert RULES[rid]["prefix"] == 0, rid


@pytest.mark.parametrize(("pattern", "group", "size"), [
    (r"ghp_[0-9a-zA-Z]{36}", 0, 4),
    (r"\b((?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z2-7]{16})\b", 0, 3),
    (r"(?i)[\w.-]{0,50}?(?:npm)(?:[ \t\w.-]{0,20})[\s'\"]{0,3}(npm_[a-z0-9]{36})\b", 1, 4),
    (r"sk-[a-z0-9]{20,48}", 0, 0),            # not one length
    (r"(ab|cd)_([a-z]{30})", 0, 0),           # two groups: the first that matched is the secret
    (r"00[\w=-]{40}", 0, 0),                  # two characters are no family's prefix
    (r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", 0, 0),  # no minted body
])
def test_fixed_prefix(pattern: str, group: int, size: int) -> None:
    assert lit.fixed_prefix(pattern, group) == size


@pytest.mark.parametrize("rid", GATED)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_a_marked_rules_secrets_have_one_length_and_its_prefix(rid: str, data) -> None:
    rule = RULES[rid]
    rx = re.compile(rule["regex"], re.ASCII)
    group = rule["secret_group"] or (1 if rx.groups else 0)
    a, b = (rx.fullmatch(data.draw(st.from_regex(rx, fullmatch=True))) for _ in range(2))
    assert a and b
    sa, sb = a.group(group), b.group(group)
    assert len(sa) == len(sb) >= rule["prefix"] + lit.MIN_BODY, (rid, sa, sb)


@pytest.mark.parametrize("rid", GATED)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_a_token_whose_body_repeats_a_short_pattern_is_redacted(rid: str, data) -> None:
    row = EXAMPLE[rid]
    size = RULES[rid]["prefix"]
    secret = row["secret"]
    head, body = secret[:size], secret[size:]
    # each run of letters and digits of the body becomes a short pattern of its own characters,
    # repeated to its length (a token's segments keep their alphabets: hex stays hex)
    k = data.draw(st.integers(2, 4))
    pieces = []
    for seg in re.split(r"([^A-Za-z0-9]+)", body):
        starts = [i for i in range(len(seg) - k + 1) if re.search("[0-9A-Z]", seg[i : i + k])]
        if len(seg) < 2 * k or not starts:
            pieces.append(seg)
            continue
        i = data.draw(st.sampled_from(starts))
        pieces.append((seg[i : i + k] * len(seg))[: len(seg)])
    fake = head + "".join(pieces)
    # a minted body holds a digit or a capital (36 random characters of [0-9A-Za-z] lack both
    # once in 10^13) and a character that is not lower-case hex: without them it is a word or a
    # digest to the token prefilter (docs/redaction.md)
    assume(fake != secret and re.search("[0-9A-Z]", fake[size:]) and re.search("[^0-9a-f-]", fake))
    assume(not placeholder(fake) and not placeholder(fake[size:]))
    rx = re.compile(RULES[rid]["regex"], re.ASCII)
    # the rule's shape
    assume(any(fake in m.group() for m in rx.finditer(row["text"].replace(secret, fake))))
    # in every context where the real example is redacted, the repetitive one is too: only the
    # entropy gate differs between them
    for ctx in (row["text"], f"see {secret} here"):
        if secret not in redact(ctx):
            assert fake not in redact(ctx.replace(secret, fake)), (rid, ctx.replace(secret, fake))


@pytest.mark.parametrize("text", [
    "ghp_" + "aB3" * 12,                       # the issue's case
    "token ghp_" + "ab12" * 9 + " here",
    "glpat-" + "xY7z" * 5,
    "npm_" + "a1b2" * 9,
    "AKIA" + "ABCD" * 4,
])
def test_the_issues_repetitive_tokens_are_redacted(text: str) -> None:
    token = re.search(r"(?:ghp_|glpat-|npm_|AKIA)\w+", text)
    assert token and token.group() not in redact(text)


@pytest.mark.parametrize("secret", [
    "ghp_" + "x" * 36, "ghp_" + "X" * 36, "ghp_" + "0" * 36, "ghp_" + "a" * 36,
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "glpat-XXXXXXXXXXXXXXXXXXXX",
    "npm_EXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLE1", "AKIAIOSFODNN7EXAMPLE",
    "shpat_" + "0" * 32,
])
def test_obvious_placeholders_are_spared(secret: str) -> None:
    for text in (f"see {secret} in the docs", f"export THING={secret}"):
        assert redact(text) == text, text


@pytest.mark.parametrize("text", [
    "token = 'abababababababababab'",   # a generic assignment: its value's shape still decides
    "kucoin_key = 'abababababababababababab'",
])
def test_the_entropy_gate_stays_for_generic_assignments(text: str) -> None:
    assert redact(text) == text


def test_rekey_writes_the_committed_gitleaks_table_byte_for_byte(tmp_path: Path) -> None:
    copy = tmp_path / "gitleaks_rules.json"
    table = json.loads(TABLE_PATH.read_text("utf-8"))
    for r in table["rules"]:
        r.pop("prefix")
    copy.write_text(json.dumps(table), encoding="utf-8")
    for _ in range(2):  # from a table without the field, then again: idempotent
        subprocess.run([sys.executable, str(ROOT / "scripts" / "update_secret_rules.py"), "--rekey",
                        "--out", str(copy)], check=True, capture_output=True, cwd=ROOT)
        assert copy.read_bytes() == TABLE_PATH.read_bytes()
