"""The one shared keyword scan (ADR 0088, speed): every finder gets exactly the occurrences of
its own words a search of the text for each word would give, with the Aho–Corasick automaton
and with the trie-regex fallback; Nosey Parker's scan words are its keywords, alone or followed
by a character its anchored rules admit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from edgar.redact import noseyparker as np_
from edgar.redact import own, upstream
from edgar.redact.blocks import KEY_START_WORDS
from edgar.redact.core import shared_scan
from edgar.redact.scan import LITERALS, Shared, TrieScanner, scan

LISTS = (upstream.context_words(), own.WORDS, tuple(w.lower() for w in KEY_START_WORDS), LITERALS)
WORDS = sorted({*np_.scan_words(), *(w for words in LISTS for w in words)})


def _occurrences(low: bytes, word: bytes) -> set[int]:
    out, i = set(), low.find(word)
    while i >= 0:
        out.add(i)
        i = low.find(word, i + 1)
    return out


def _expected(low: bytes) -> tuple[set, ...]:
    np_hits = {(j, at) for j, w in enumerate(np_.scan_words()) for at in _occurrences(low, w)}
    rest = tuple({(k, at) for k, w in enumerate(words) for at in _occurrences(low, w)}
                 for words in LISTS)
    return (np_hits, *rest)


def _got(hits) -> tuple[set, ...]:
    np_hits = {(j, at) for j, ats in hits.noseyparker.items() for at in ats}
    lits = {(LITERALS.index(w), at) for w, ats in hits.literals.items() for at in ats}
    return np_hits, set(hits.context), set(hits.own), hits.key_start, lits


pieces = st.lists(st.sampled_from([*WORDS, b"x", b" ", b"\n", b"_", b"-", b":", b"="]), max_size=40)


@settings(max_examples=150, deadline=None)
@given(pieces)
def test_each_finder_gets_every_occurrence_of_its_words_and_no_other(parts: list[bytes]) -> None:
    low = b"".join(parts)
    np_hits, context, own_hits, key, lits = _expected(low)
    got = _got(scan(shared_scan(), low))
    assert got[0] == np_hits
    assert got[1] == context and got[2] == own_hits and got[4] == lits
    assert got[3] == bool(key)


@settings(max_examples=60, deadline=None)
@given(pieces)
def test_the_fallback_scanner_gives_the_same_hits(parts: list[bytes]) -> None:
    low = b"".join(parts)
    fast = shared_scan()
    slow = Shared(TrieScanner(tuple(_words())), fast.np_words, fast.others)
    assert _got(scan(fast, low)) == _got(scan(slow, low))


def _words() -> list[bytes]:
    # the shared scanner's words, in its order: Nosey Parker's, then each other list's new ones
    out = list(np_.scan_words())
    for words in LISTS:
        out += [w for w in words if w not in out]
    return out


def test_nosey_parkers_scan_words_are_its_keywords_with_an_admitted_character() -> None:
    t = np_.load()
    for word, k, rules in zip(t.scan_words, t.scan_keyword, t.scan_rules, strict=True):
        kw = t.keywords[k]
        assert word.startswith(kw) and len(word) - len(kw) in (0, 1)
        assert all(r in t.by_keyword[k] for r in rules)
        if len(word) > len(kw):  # expanded: only anchored rules whose follow admits the character
            assert all(r.anchored and r.follow[word[-1]] for r in rules)
    # every rule of every keyword is run by some scan word of it
    for k, rules in enumerate(t.by_keyword):
        covered = {r for j, rs in enumerate(t.scan_rules) if t.scan_keyword[j] == k for r in rs}
        assert covered == set(rules)
