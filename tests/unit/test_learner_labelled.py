"""Issue 22's goals on the labelled whole messages and supersession pairs
(tests/data/messages_*.jsonl, supersede_pairs*.jsonl; bench/learner_quality.py prints them)."""

from __future__ import annotations

import pytest

pytest.importorskip("edgar.learning")

from support.messages import PAIRS, SETS, load, score, score_pairs  # noqa: E402

from edgar.learning.hearing import heard  # noqa: E402
from edgar.memory.subjects import replaces  # noqa: E402


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_goals_hold_on_each_set(name):
    s = score(load(SETS[name]), heard)
    assert s.found >= 0.9 * s.explicit, s.missed
    assert s.learned_wrong == []                         # 0 non-rules learned
    assert s.with_extra == []                            # 0 lead-ins or task words kept
    assert s.time_bound_active == []                     # a time-bound statement never active
    assert s.proposed >= 0.6 * s.implicit, s.missed_proposals
    assert len(s.proposed_from_non_rules) <= 0.05 * s.non_rule_rows, s.proposed_from_non_rules


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_contradicting_pairs_are_resolved_and_others_left_alone(name):
    p = score_pairs(load(PAIRS[name]), replaces)
    assert p.resolved >= 0.9 * p.contradicting, p.unresolved
    assert p.wrongly_replaced == []
