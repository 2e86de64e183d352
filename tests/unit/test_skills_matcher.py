"""The skills matcher: calibrated quality on the labelled set, burst aggregation, refractory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from edgar.skills.loader import Skill, discover
from edgar.skills.matcher import (
    STOP,
    THRESHOLD,
    Matcher,
    build_index,
    score,
    select,
    stem,
    tokenize,
)

DATA = Path(__file__).resolve().parents[1] / "data"
ROWS = [json.loads(line) for line in
        (DATA / "skills_labelled.jsonl").read_text(encoding="utf-8").splitlines() if line]
SKILLS, _ = discover([DATA / "skills"])
INDEX = build_index(SKILLS)


def fired(surface: str) -> set[str]:
    return set(select(INDEX.names, score(INDEX, surface), THRESHOLD))


def precision_recall(surfaces: list[tuple[str, list[str]]]) -> tuple[float, float]:
    tp = fp = fn = 0
    for surface, expected in surfaces:
        got, want = fired(surface), set(expected)
        tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
    return tp / (tp + fp), tp / (tp + fn)


def test_the_labelled_set_is_big_enough_and_names_real_skills():
    assert len(ROWS) >= 40
    assert sum(not r["expected"] for r in ROWS) >= 5          # negatives measure precision
    names = {s.name for s in SKILLS}
    assert all(set(r["expected"]) <= names and len(r["burst"]) == 3 for r in ROWS)


# Floors sit a little under the figures bench/skills.py reports (0.94/0.91 single,
# 0.94/0.82 burst) so a scoring change that costs real quality fails here.
def test_single_line_precision_and_recall_floor():
    p, r = precision_recall([(row["prompt"], row["expected"]) for row in ROWS])
    assert p >= 0.90 and r >= 0.85, (p, r)


def test_burst_precision_and_recall_floor():
    p, r = precision_recall([("\n".join(row["burst"]), row["expected"]) for row in ROWS])
    assert p >= 0.90 and r >= 0.78, (p, r)


def test_a_burst_activates_what_its_fragments_alone_do_not():
    rescued = []
    for row in ROWS:
        alone = set().union(*(fired(f) for f in row["burst"]))
        whole = fired("\n".join(row["burst"]))
        rescued += sorted((whole - alone) & set(row["expected"]))
    assert len(rescued) >= 6, rescued
    # the shape of seed 002's example: each line too sparse, the burst says it
    burst = ["my branch is messy", "squash the last five", "then rebase onto main"]
    assert all("git-history" not in fired(f) for f in burst)
    assert "git-history" in fired("\n".join(burst))


def test_the_burst_through_the_matcher_fires_once_and_overlap_rescans_are_refractory():
    now = [0]
    m = Matcher(SKILLS, refractory_turns=2, clock=lambda: now[0])
    assert m.activate("my branch is messy") == []
    # a burst still being typed fires on a partial surface (seed 002's accepted failure mode)…
    first = m.activate("my branch is messy\nsquash the last five")
    assert [n for n, _ in first] == ["git-history"]
    assert first[0][1].startswith("# Git history")
    # …and the whole burst, re-scanned on overlap, does not fire it again
    assert m.activate("my branch is messy\nsquash the last five\nthen rebase onto main") == []
    # the same burst re-scanned on overlap, in this turn and the next two: no new fire
    for turn in (0, 1, 2):
        now[0] = turn
        assert m.activate("squash the last five\nthen rebase onto main") == []
        assert [n for n, _ in m.carried()] == ([] if turn == 0 else ["git-history"])
    now[0] = 3  # N = 2 turns later it may fire again, and is no longer carried
    assert m.carried() == []
    assert [n for n, _ in m.activate("squash and rebase onto main")] == ["git-history"]


def test_force_delivers_a_skill_at_the_next_activation_even_when_refractory():
    m = Matcher(SKILLS, clock=lambda: 0)
    assert m.force("no-such-skill") is None
    assert m.activate("write a regex for dates")[0][0] == "regex"
    name, body = m.force("regex")
    assert name == "regex" and body.startswith("# Regular expressions")
    assert m.carried() == []                         # not yet: it is delivered fresh
    again = m.activate("write a regex for dates")    # forced, and matched: one entry
    assert [n for n, _ in again] == ["regex"]


def test_list_reports_every_skill_with_its_last_score():
    m = Matcher(SKILLS)
    assert all(score is None for _, _, score in m.list())
    m.activate("draw a mermaid diagram")
    rows = {name: (description, score) for name, description, score in m.list()}
    assert [r[0] for r in m.list()] == sorted(rows)
    assert rows["mermaid-diagrams"][1] > THRESHOLD > rows["pdf"][1]


def test_at_most_limit_skills_per_surface():
    everything = "\n".join(row["prompt"] for row in ROWS)
    assert len(Matcher(SKILLS).activate(everything)) == 3
    assert len(Matcher(SKILLS, limit=5).activate(everything)) == 5


def test_no_skills_no_matches():
    assert Matcher([]).activate("anything at all") == []


# --- properties of the pure parts ----------------------------------------------------------

WORDS = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)
SOME = st.lists(st.sampled_from(sorted({w for r in ROWS for w in r["prompt"].split()})),
                max_size=30).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(WORDS | SOME)
@example("THINKING")  # a fresh draw's counterexample: its stem "think" is a stop word
def test_tokens_are_lowercase_words_without_stop_words(text):
    for token in tokenize(text):
        assert token == token.lower() and token.isalnum() and token not in STOP


@settings(max_examples=300, deadline=None)
@given(WORDS | SOME, WORDS | SOME)
def test_tokenizing_a_burst_is_tokenizing_its_lines(a, b):
    assert tokenize(a + "\n" + b) == tokenize(a) + tokenize(b)


@settings(max_examples=500, deadline=None)
@given(st.from_regex(r"[a-z]{1,14}", fullmatch=True))
def test_stemming_is_idempotent(word):
    assert stem(stem(word)) == stem(word)


@settings(max_examples=300, deadline=None)
@given(WORDS | SOME, WORDS | SOME)
def test_a_burst_scores_at_least_as_high_as_each_fragment(a, b):
    alone, whole = score(INDEX, a), score(INDEX, a + "\n" + b)
    assert all(x >= 0 for x in alone)
    assert all(w >= x - 1e-9 for w, x in zip(whole, alone, strict=True))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.from_regex(r"[a-z]{2,8}", fullmatch=True),
                          st.lists(st.from_regex(r"[a-z]{2,8}", fullmatch=True), max_size=6)),
                min_size=1, max_size=8, unique_by=lambda t: t[0]), SOME)
def test_scores_do_not_depend_on_skill_order(specs, surface):
    skills = [Skill(n, " ".join(words) or n, (), "") for n, words in specs]
    forward = dict(zip(build_index(skills).names, score(build_index(skills), surface), strict=True))
    back_index = build_index(list(reversed(skills)))
    backward = dict(zip(back_index.names, score(back_index, surface), strict=True))
    assert forward == pytest.approx(backward)
