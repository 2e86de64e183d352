"""scripts/update_secret_rules.py: Go RE2 patterns become Python patterns with the same meaning,
an untranslatable one fails the run (listed, nothing written), and the committed table records
its upstream commit and sha256."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import update_secret_rules as u  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("go", "matches", "misses"),
    [
        (r"fio-u-(?i)[a-z0-9]{4}", ["fio-u-AbC1"], ["FIO-u-abc1"]),  # flags mid-pattern are scoped
        (r"a(?i)b|c", ["ab", "aB", "C"], ["Ab"]),  # ...also across an alternation
        (r"x\z", ["x"], ["x\n"]),
        (r"x$", ["x"], ["x\n"]),  # RE2's $ is the end of the text
        (r"\x{41}\x{20AC}", ["A€"], ["a€"]),
        (r"[[:alpha:]]{2}[[:digit:]]", ["ab1"], ["a11"]),
        (r"(?<n>ab)c", ["abc"], ["ac"]),
        (r"[a-z&&]+", ["a&&b"], ["A"]),
        (r"\w+", ["abc_1"], ["é"]),  # ASCII \w, as in RE2
    ],
)
def test_translation_keeps_meaning(go: str, matches: list[str], misses: list[str]) -> None:
    rx = re.compile(u.translate(go), u.FLAGS)
    for s in matches:
        assert rx.fullmatch(s), (go, s)
    for s in misses:
        assert not rx.fullmatch(s), (go, s)


def test_glue_drops_the_left_boundary_of_prefixed_tokens() -> None:
    go = r"\b((?:AKIA|ASIA)[A-Z2-7]{16})" + u.SUFFIX
    py, glued = u.glue(go)
    assert glued
    rx = re.compile(u.translate(py), u.FLAGS)
    assert rx.search("creds_AKIAQ3EGRLV5XKZ7TP4N.json").group(1) == "AKIAQ3EGRLV5XKZ7TP4N"
    assert not rx.search("GLC_AKIAQ3EGRLV5XKZ7TP4N(")  # a call, not a token
    assert u.glue(r"\b([a-z0-9]{32})\b") == (r"\b([a-z0-9]{32})\b", False)  # no literal prefix


TOML = r"""
[allowlist]
regexes = ["^EXAMPLE$"]
[[rules]]
id = "demo-token"
regex = '''\b(demo_(?i)[a-z0-9]{8})(?:[\x60'"\s;]|\\[nr]|$)'''
entropy = 2.5
keywords = ["DEMO_"]
[[rules.allowlists]]
paths = ["docs/"]
[[rules]]
id = "pathy"
path = '''\.p12$'''
"""


def test_writes_the_table_with_its_provenance(tmp_path: Path) -> None:
    src = tmp_path / "gitleaks.toml"
    src.write_text(TOML)
    out = tmp_path / "rules.json"
    assert u.main([str(src), "--commit", COMMIT, "--out", str(out)]) == 0
    table = json.loads(out.read_text())
    assert table["commit"] == COMMIT
    assert table["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    [rule] = table["rules"]
    assert rule["id"] == "demo-token" and rule["keywords"] == ["demo_"] and rule["glued"]
    assert rule["allowlists"] == [] and rule["path_allowlists_dropped"] == 1
    assert table["skipped"] == [{"id": "pathy", "reason": "matches file paths only"}]
    assert re.search(rule["regex"], "x_demo_AbCd1234;", u.FLAGS)


def test_untranslatable_patterns_fail_loudly(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "gitleaks.toml"
    src.write_text(TOML
                   + '\n[[rules]]\nid = "unicode"\nregex = """\\\\p{L}+"""\nkeywords = ["x"]\n')
    out = tmp_path / "rules.json"
    assert u.main([str(src), "--commit", COMMIT, "--out", str(out)]) == 1
    assert "rule unicode" in capsys.readouterr().err
    assert not out.exists()


def test_bad_input_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "gitleaks.toml"
    src.write_text("[[rules]\n")
    assert u.main([str(src), "--commit", COMMIT]) == 2
    assert str(src) in capsys.readouterr().err
    assert u.main([str(src), "--commit", "abc"]) == 2


def test_committed_table_is_pinned_and_compiles() -> None:
    table = json.loads((ROOT / "edgar" / "redact" / "gitleaks_rules.json").read_text())
    assert (re.fullmatch(r"[0-9a-f]{40}", table["commit"])
            and re.fullmatch(r"[0-9a-f]{64}", table["sha256"]))
    assert len(table["rules"]) >= 200
    for rule in table["rules"]:
        re.compile(rule["regex"], u.FLAGS)


@pytest.mark.parametrize(
    ("py", "fixed"),
    [
        (r"(?i)^true|false|null\Z", r"(?i)^(?:true|false|null)\Z"),
        (r"^a|b\Z", r"^(?:a|b)\Z"),
        (r"^(?:a|b)\Z", r"^(?:a|b)\Z"),  # already whole
        (r"^[a|b]\Z", r"^[a|b]\Z"),  # a bar in a class splits nothing
        (r"^a\|b\Z", r"^a\|b\Z"),  # nor an escaped one
        (r"a|b", r"a|b"),  # unanchored: left as upstream wrote it
    ],
)
def test_an_anchored_alternation_is_anchored_whole(py: str, fixed: str) -> None:
    assert u.anchor_alternation(py) == fixed


def test_the_committed_allowlists_anchor_every_alternation() -> None:
    table = json.loads((ROOT / "edgar" / "redact" / "gitleaks_rules.json").read_text())
    lists = [*table["global_allowlists"], *(a for r in table["rules"] for a in r["allowlists"])]
    rx = [r for a in lists for r in a["regexes"]]
    assert r"(?i)^(?:true|false|null)\Z" in rx
    assert all(u.anchor_alternation(r) == r for r in rx)
