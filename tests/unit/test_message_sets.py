"""The labelled message sets of issue 22 are what docs/learning.md says they are."""

from __future__ import annotations

from support.messages import PAIRS, SETS, key, load


def test_every_row_says_where_it_came_from_and_why_it_may_be_here():
    for path in (*SETS.values(), *PAIRS.values()):
        for row in load(path):
            assert row["source"] and row["licence"], row
            assert ".specstory" not in row["source"], row      # kept for evaluation elsewhere


def test_the_hold_out_shares_no_message_with_the_development_set():
    dev = {key(row["text"]) for row in load(SETS["development"])}
    assert not dev & {key(row["text"]) for row in load(SETS["hold-out"])}
    dev_pairs = {(key(r["old"]), key(r["new"])) for r in load(PAIRS["development"])}
    assert not dev_pairs & {(key(r["old"]), key(r["new"])) for r in load(PAIRS["hold-out"])}


def test_the_issues_own_examples_are_all_in_the_development_set():
    assert not [r for r in load(SETS["hold-out"]) if r["source"] == "issue-22"]
    dev = load(SETS["development"])
    assert len([r for r in dev if r["source"] == "issue-22"]) >= 15


def test_real_text_from_each_kind_of_source():
    rows = [row for path in SETS.values() for row in load(path)]
    kinds = {row["source"].split(":")[0] for row in rows}
    assert {"aider", "rules", "issue", "corpus", "issue-22"} <= kinds
    real = [r for r in rows if not r["source"].startswith("own")]
    assert len(real) >= len(rows) / 2
    for label in ("explicit", "implicit"):
        assert sum(bool(r[label]) for r in rows) >= 25
    assert sum(r["time_bound"] for r in rows) >= 5
