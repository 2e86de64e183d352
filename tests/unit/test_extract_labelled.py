"""extract() on the labelled typed lines (tests/data/typed_lines*.jsonl; issue 10's goals)."""

from __future__ import annotations

import pytest

pytest.importorskip("edgar.learning")

from support.labelled import SETS, load, score  # noqa: E402

from edgar.learning.learner import extract  # noqa: E402


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_goals_hold_on_each_labelled_set(name):
    s = score(load(SETS[name]), extract)
    assert s.facts_from_non_rules == []          # 0 facts from lines that state no rule
    assert s.with_task_text == []                # 0 rules stored with the task that followed
    assert s.wrong == []
    assert s.recall >= 0.90, s.missed


def test_the_sets_are_big_enough_and_mix_real_and_written_lines():
    rows = [row for path in SETS.values() for row in load(path)]
    assert len(rows) >= 150
    sources = {row["source"].split(":")[0] for row in rows}
    assert {"corpus", "public", "issue-10", "own"} <= sources
    rules = [row for row in rows if row["rule"] is not None]
    assert 0.3 <= len(rules) / len(rows) <= 0.6


def test_a_labelled_rule_is_itself_a_fixed_point():
    # the expected fact, typed again, is the same fact: the labels follow extract()'s contract
    for path in SETS.values():
        for row in load(path):
            if row["rule"] is not None:
                assert extract(row["rule"]) == row["rule"], row
