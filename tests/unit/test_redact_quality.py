"""The labelled set (tests/data/redact_labelled.jsonl, built by scripts/build_redact_testset.py)
meets issue 12's goals: recall >= 95 % overall and >= 99 % for the main families, clean text
changed <= 2 %; and of real lockfiles and `git log` output of public repositories
(tests/data/redact_clean_real.jsonl) at most 0.1 % of lines change (issue 24 item 3).
`bench/redact_quality.py` prints the same figures per family, source and file kind."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import redact_quality  # noqa: E402


@pytest.fixture(scope="module")
def score() -> dict:
    return redact_quality.score(redact_quality.load())


def rate(pair: tuple[int, int]) -> float:
    return pair[0] / pair[1]


def test_the_set_holds_every_source(score: dict) -> None:
    sources = {g for g in score["recall"] if g.startswith("source:")}
    assert {"source:gitleaks", "source:edgar-heldout", "source:issue-12"} <= sources
    assert (score["fp"]["source:clean-repo"][1] >= 1000
            and score["fp"]["source:clean-corpus"][1] >= 1000)
    for family in redact_quality.MAIN:
        assert score["recall"][f"family:{family}"][1] >= 5, family


def test_recall_overall(score: dict) -> None:
    assert rate(score["recall"]["all"]) >= 0.95, score["recall"]["all"]


def test_recall_of_the_main_families(score: dict) -> None:
    assert rate(score["recall"]["main"]) >= 0.99
    for family in redact_quality.MAIN:
        assert rate(score["recall"][f"family:{family}"]) >= 0.99, family


def test_every_issue_case_is_found(score: dict) -> None:
    assert rate(score["recall"]["source:issue-12"]) == 1.0, [m["text"] for m in score["misses"]]


def test_clean_text_is_left_alone(score: dict) -> None:
    assert rate(score["fp"]["all"]) <= 0.02, score["fp"]
    for source in ("source:clean-repo", "source:clean-corpus"):
        assert rate(score["fp"][source]) <= 0.02, source


LOCKFILES = ("package-lock.json", "yarn.lock", "poetry.lock", "Cargo.lock", "go.sum",
             "pnpm-lock.yaml")


@pytest.fixture(scope="module")
def real() -> dict:
    return redact_quality.changed_lines(redact_quality.load(redact_quality.CLEAN_DATA))


def test_the_real_clean_set_holds_every_lockfile_and_git_log(real: dict) -> None:
    for kind in (*LOCKFILES, "git log --stat", "git log -p"):
        assert real["counts"][kind][1] >= 500, kind
    assert real["counts"]["all"][1] >= 30_000


def test_real_lockfiles_and_git_logs_come_back_almost_untouched(real: dict) -> None:
    changed, total = real["counts"]["all"]
    assert changed <= total * 0.001, real["changed"][:10]
    for kind, (k, n) in real["counts"].items():
        assert k <= n * 0.001, (kind, real["changed"][:5])


# --- the outside column: detect-secrets' examples (issue 24 item 3) -----------------------------


@pytest.fixture(scope="module")
def outside() -> dict:
    return redact_quality.score(redact_quality.load(redact_quality.OUTSIDE_DATA))


def test_the_outside_set_records_its_source_and_licence() -> None:
    rows = redact_quality.load(redact_quality.OUTSIDE_DATA)
    assert len(rows) >= 300 and all(
        r["source"].startswith("detect-secrets@5e141933554a:tests/plugins/") for r in rows)
    notice = redact_quality.OUTSIDE_DATA.with_suffix(".NOTICE").read_text("utf-8")
    assert ("Apache License, Version" in notice
            and "5e141933554a0b74e7341841f318be21e895339c" in notice)


def test_outside_main_families_are_found(outside: dict) -> None:
    found, total = outside["recall"]["main"]
    assert total >= 20 and found / total >= 0.99, [r["text"][:80] for r in outside["misses"]
                                                    if r["family"] in redact_quality.MAIN]


def test_outside_recall_does_not_fall_below_what_was_measured(outside: dict) -> None:
    # a floor under the figure measured when the set was added (63.5 %), not the issue's goal
    # of 95 %: keyword-plugin values such as `m{{h}o)p${e]nob(ody…` and families no rule here
    # covers (Artifactory, Mailchimp, SoftLayer) are what is left; see docs/redaction.md
    assert rate(outside["recall"]["all"]) >= 0.63, outside["recall"]["all"]
