"""extract() is pure and total: every string in the world is either one fact or None."""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("edgar.learning")

from edgar.learning.learner import DIRECTIVE, LONGEST, SHORTEST, extract  # noqa: E402

EXAMPLES = int(os.environ.get("EDGAR_PROPERTY_EXAMPLES", 300))

directive_lines = st.builds(
    lambda lead, word, rest: lead + word + rest,
    st.text(alphabet=" \t\n\u200b\u00a0", max_size=4),
    st.sampled_from(["always", "ALWAYS", "Never", "never", "remember that", "Remember That",
                     "remember  that", "alwaysx", "never-"]),
    st.text(max_size=LONGEST + 20),
)
lines = st.text(max_size=LONGEST * 2) | directive_lines


@settings(max_examples=EXAMPLES)
@given(lines)
def test_a_fact_is_one_plain_line_within_bounds(line):
    fact = extract(line)
    if fact is None:
        return
    assert SHORTEST <= len(fact) <= LONGEST
    assert DIRECTIVE.match(fact)
    assert fact == fact.strip() and "  " not in fact
    assert not any(unicodedata.category(c)[0] == "C" for c in fact)
    assert not any(c.isspace() and c != " " for c in fact)


@settings(max_examples=EXAMPLES)
@given(lines)
def test_extract_is_pure_and_idempotent(line):
    first = extract(line)
    assert extract(line) == first
    if first is not None:
        assert extract(first) == first


@settings(max_examples=EXAMPLES)
@given(lines, st.text(alphabet=" \t\n", max_size=5))
def test_leading_and_trailing_space_does_not_matter(line, pad):
    assert extract(pad + line + pad) == extract(line)


@settings(max_examples=EXAMPLES)
@given(st.text(max_size=LONGEST).filter(
    lambda s: not s.lstrip().lower().startswith(("always", "never", "remember"))))
def test_without_a_leading_directive_there_is_no_fact(line):
    if any(unicodedata.category(c)[0] == "C" and not c.isspace() for c in line):
        return                 # format characters vanish first; covered by the tests above
    assert extract(line) is None


@given(st.sampled_from(["always", "never", "remember that"]), st.text(max_size=60))
def test_the_directive_is_case_insensitive(word, rest):
    assert (extract(word.upper() + rest) is None) == (extract(word + rest) is None)
