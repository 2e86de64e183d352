"""hear() on whole messages (issue 22): what it returns is short, idempotent and never holds
words from another clause, for any message (hypothesis; random draws without CI)."""

from __future__ import annotations

import os

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

pytest.importorskip("edgar.learning")

from edgar.learning.grammar import DONT_EVER  # noqa: E402
from edgar.learning.hearing import clauses, hear  # noqa: E402
from edgar.memory.subjects import key  # noqa: E402

EXAMPLES = int(os.environ.get("EDGAR_PROPERTY_EXAMPLES", 300))

LEADS = st.sampled_from(["", "please ", "no, ", "ok. ", "- ", "* ", "1. ", "**Note**: ",
                         "Remember: ", "thanks! ", "from now on ", "Also, ", "_", "**"])
HEADS = st.sampled_from(["always", "Never", "remember that", "ALWAYS", "use", "stop using",
                         "I prefer", "we should always", "don't", "prefer", "If it fails,"
                         " never", "the build", "why do you always", "it always"])
WORDS = st.lists(st.sampled_from(
    ["run", "use", "the", "tests", "pnpm", "npm", "tabs", "4", "spaces", "instead", "of",
     "not", "anymore", "from", "now", "on", "`a.b?`", '"ok?"', "e.g.", "main", "with", "-q",
     "before", "commit", "until", "Friday", "today", "**bold**", "_it_", "yarn", "over",
     "ruff", "in", "Python", "files", "?", "!", ";", ".", ","]), min_size=0, max_size=10)
SEPARATORS = st.sampled_from([". ", "; ", "\n", "\n- ", "! ", "? ", " ", ", ", "\n```\n"])
clause = st.builds(lambda lead, head, words: lead + head + " " + " ".join(words),
                   LEADS, HEADS, WORDS)
def _joined(parts: list[str], seps: list[str]) -> str:
    return "".join(p + s for p, s in zip(parts, seps[:len(parts)], strict=True))


messages = st.builds(_joined,
                     st.lists(clause, min_size=1, max_size=4),
                     st.lists(SEPARATORS, min_size=4, max_size=4)) | st.text(max_size=300)


def _clause_keys(message: str) -> list[str]:
    return [key(DONT_EVER.sub("never", c)) for c in clauses(message)]


@settings(max_examples=EXAMPLES)
@given(messages)
@example("no, that's not right. remember that we want synthase to match chitin logic")
@example('never ask me questions like "Would you like to proceed?"; use pnpm, not npm')
def test_what_is_heard_is_never_longer_than_the_message(message):
    for heard in hear(message):
        assert 0 < len(heard.text) <= len(message)
        assert heard.text == heard.text.strip() and "\n" not in heard.text


@settings(max_examples=EXAMPLES)
@given(messages)
@example("Always run the tests. Never push to main; always use tabs\n- never log secrets")
@example("fix it. always use tabs and then never mind")
def test_what_is_heard_holds_words_of_one_clause_only(message):
    keys = _clause_keys(message)
    for heard in hear(message):
        said = key(heard.text)
        assert any(said in k for k in keys), (heard, keys)


@settings(max_examples=EXAMPLES)
@given(messages)
@example("no, always use tabs. use pnpm from now on. remember that the API returns cents")
@example("**Python**: always use type hints. I prefer small commits")
def test_hearing_what_was_heard_gives_it_back(message):
    for heard in hear(message):
        if heard.kind == "rule":
            again = hear(heard.text)
            if not again:               # a "remember that …" rule is said without the lead
                again = hear("remember that " + heard.text)
        else:
            again = hear("from now on, " + heard.text)
        assert [(h.kind, h.text) for h in again] == [(heard.kind, heard.text)], (heard, again)


@settings(max_examples=EXAMPLES)
@given(messages)
def test_hear_is_pure(message):
    assert hear(message) == hear(message)
