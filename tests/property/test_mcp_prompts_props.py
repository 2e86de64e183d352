"""``mcp/prompts.bind`` and ``resource_refs`` (pure): no word is lost, order is kept."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgar.mcp.prompts import PromptArg, PromptArgsError, bind, resource_refs, words_of

names = st.text("abcdefgh_", min_size=1, max_size=6)
word = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Cc")), min_size=1, max_size=8)


@given(st.lists(st.tuples(names, st.booleans()), min_size=1, max_size=4,
                unique_by=lambda t: t[0]),
       st.lists(word, max_size=7))
def test_bind_keeps_every_word_in_order_or_names_what_is_missing(declared, words):
    arguments = tuple(PromptArg(n, "", r) for n, r in declared)
    text = " ".join(shlex.quote(w) for w in words)
    try:
        bound = bind("mcp__s__p", arguments, text)
    except PromptArgsError as exc:
        missing = [a.name for a in arguments[len(words):] if a.required]
        assert missing and all(m in str(exc) for m in missing)
        return
    assert list(bound) == [a.name for a in arguments][:len(bound)]   # declared order
    assert " ".join(bound.values()).split() == " ".join(words).split()  # nothing lost
    assert len(bound) == min(len(words), len(arguments))


@given(st.lists(word, min_size=1, max_size=3))
def test_a_prompt_without_arguments_refuses_words(words):
    with pytest.raises(PromptArgsError):
        bind("mcp__s__p", (), " ".join(shlex.quote(w) for w in words))


def test_an_unclosed_quote_is_plain_words():
    assert words_of('a "b c') == ["a", '"b', "c"]


@given(st.lists(st.sampled_from(["@t:config://app", "@u:x://y", "@bob:smtp://z", "a@t:q://r",
                                 "@t:config://app.", "plain"]), max_size=8))
def test_resource_refs_names_configured_servers_once_in_order(parts):
    refs = resource_refs(" ".join(parts), {"t", "u"})
    assert len(refs) == len(set(refs))
    assert {s for s, _ in refs} <= {"t", "u"}
    expected = [p.rstrip(".")[1:].split(":", 1) for p in parts if p.startswith(("@t:", "@u:"))]
    assert refs == list(dict.fromkeys(map(tuple, expected)))
