"""hearing.hear(): every clause of a typed message is a candidate (issue 22)."""

from __future__ import annotations

import pytest

pytest.importorskip("edgar.learning")

from edgar.learning.hearing import clauses, heard  # noqa: E402
from edgar.memory.subjects import key, replaces  # noqa: E402


@pytest.mark.parametrize("message, rules", [
    ("no, that's not right. remember that we want synthase to match chitin",
     ["we want synthase to match chitin"]),
    ("Fix the typo. Always run the tests with -q; never push to main\n- always use tabs",
     ["Always run the tests with -q", "never push to main", "always use tabs"]),
    ("**Python**: always use type hints", ["always use type hints"]),
    ("Remember: never push to main directly", ["never push to main directly"]),
    ("1. ❌ **NEVER commit** after completing tasks", ["NEVER commit after completing tasks"]),
    ('never ask me questions like "Would you like to proceed?"',
     ['never ask me questions like "Would you like to proceed?"']),
    ("never use `a?.b` in old code", ["never use `a?.b` in old code"]),
    ("If the build fails, never retry more than twice.",
     ["If the build fails, never retry more than twice."]),
    ("thanks!", []),
    ("```\nalways run this\n```\nwhat does it do?", []),            # a fenced block is no rule
    ("why do you always use tabs?", []),
    ("it always crashes on start", []),
    ("remember that I have a meeting on 10 September", []),           # time-bound
    ("always deploy to staging until Friday", []),
])
def test_rules_are_found_wherever_they_are_typed(message, rules):
    assert heard(message)[0] == rules


@pytest.mark.parametrize("message, proposals", [
    ("use pnpm from now on", ["use pnpm"]),
    ("use pnpm, not npm", ["use pnpm, not npm"]),
    ("Looks good. Please use httpx instead of requests.", ["use httpx instead of requests"]),
    ("stop using mocks for the database", ["stop using mocks for the database"]),
    ("don't use yarn anymore", ["don't use yarn anymore"]),
    ("I prefer small commits", ["I prefer small commits"]),
    ("we should always pin versions", ["we should always pin versions"]),
    ("I prefer the second option", []),                            # a choice, not a rule
    ("don't change the tests", []),                                 # a task constraint
    ("can you use httpx instead of requests?", []),                 # a question
    ("use the staging db for now", []),                             # time-bound
])
def test_standing_instructions_without_the_directive_form_are_proposed(message, proposals):
    rules, proposed = heard(message)
    assert rules == [] and proposed == proposals


def test_a_clause_never_splits_inside_code_quotes_or_abbreviations():
    assert clauses('use e.g. ruff. never run "a. b" or `x; y`') == [
        "use e.g. ruff.", 'never run "a. b" or `x; y`']


@pytest.mark.parametrize("a, b", [
    ("always use tabs", "Always use tabs."), ("**always** use tabs", "always use tabs!"),
    ("NEVER  push", "never push"),
])
def test_near_duplicates_have_one_key(a, b):
    assert key(a) == key(b)


@pytest.mark.parametrize("old, new, expected", [
    ("always use tabs", "always use 4 spaces", True),         # alternative
    ("always use tabs", "never use tabs", True),              # negation
    ("always use tabs", "Always use tabs for indentation.", True),   # refinement
    ("use npm", "use pnpm, not npm", True),                   # rejection
    ("use foo", "use bar instead of foo", True),
    ("always use pnpm", "always use tabs", False),            # different classes
    ("always run ruff before committing", "always run mypy before committing", False),
    ("never log the request body", "never log passwords", False),
    ("always use tabs", "never use 4 spaces", False),
])
def test_replaces_follows_adr_0080(old, new, expected):
    assert replaces(old, new) is expected
