"""extract() is pure and total: every string in the world is either one fact or None."""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("edgar.learning")

from edgar.learning.grammar import DONT_EVER  # noqa: E402
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
    lambda s: not DIRECTIVE.search(s) and not DONT_EVER.search(s)))
def test_without_a_directive_word_there_is_no_fact(line):
    if any(unicodedata.category(c)[0] == "C" and not c.isspace() for c in line):
        return                 # format characters vanish first; covered by the tests above
    assert extract(line) is None


@settings(max_examples=EXAMPLES)
@given(lines)
def test_a_fact_is_never_longer_than_the_line(line):
    fact = extract(line)
    assert fact is None or len(fact) <= len(line)


LEADS = st.lists(st.sampled_from(["please", "ok", "thanks!", "also,", "from now on,", "ok now",
                                  "going forward:", "you should", "great.", "so"]), max_size=3)
WORDS = st.lists(st.sampled_from(["run", "use", "the", "tests", "with", "-q", "pnpm", "in",
                                  "src/", "e.g.", "greet.py", "before", "commit", "3.11",
                                  "`make", "lint`", "and", "then", "ruff", "check", "."]),
                 min_size=2, max_size=12)
ENDS = st.sampled_from([". ", "! ", "? ", "; ", "\n", ".\n", "!\n\n", "?  "])
OTHER = st.lists(st.sampled_from(["ZQX", "fix", "zqx", "the", "typo", "ZQX.", "now", "zqx?"]),
                 min_size=1, max_size=8)


@settings(max_examples=EXAMPLES)
@given(LEADS, st.sampled_from(["always", "Never", "don't ever", "remember that", "NEVER"]),
       WORDS, ENDS, OTHER)
def test_a_fact_holds_only_the_sentence_its_directive_word_starts(lead, word, words, end,
                                                                  other):
    line = " ".join(lead + [word] + words) + end + " ".join(other)
    fact = extract(line)
    if fact is None:
        return
    assert "zqx" not in fact.lower()             # nothing from the sentence after it
    assert DIRECTIVE.match(fact)
    first = " ".join([word] + words).replace("don't ever", "never")
    assert first.startswith(fact.rstrip(".!")) or fact.startswith(first)


@settings(max_examples=EXAMPLES)
@given(st.text(max_size=LONGEST * 2) | directive_lines)
def test_a_fact_comes_from_the_line_itself(line):
    fact = extract(line)
    if fact is None:
        return
    kept = "".join(" " if c.isspace() or c in "\x00\x1b" else c for c in line
                   if unicodedata.category(c)[0] != "C" or c.isspace() or c in "\x00\x1b")
    plain = DONT_EVER.sub("never", " ".join(kept.split())).lower()
    assert fact.lower() in plain


@given(st.sampled_from(["always", "never", "remember that"]), st.text(max_size=60))
def test_the_directive_is_case_insensitive(word, rest):
    assert (extract(word.upper() + rest) is None) == (extract(word + rest) is None)
