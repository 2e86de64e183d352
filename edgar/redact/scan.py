"""One keyword scan over the lower-cased text for every finder that starts from a keyword
(issue 24 item 4): Nosey Parker's rules, gitleaks' service-name rules, edgar's own rules and
the private-key body starts — one pass, each hit handed to the finder whose word it is.

What this module guarantees:

* **Every occurrence.** `hits(low)` reports (word index, start) for every occurrence of every
  word, overlapping ones too, in order of where they start or end (give or take a word's
  length).
* **One automaton.** `ahocorasick-rs` (ADR 0087) when it can be imported; otherwise one
  lookahead trie regex with the same hits (`TrieScanner`), tested equal on random text.
* **Built once.** `edgar.redact.core` builds it (`build`) on the first text, never at import;
  this module imports no finder.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from edgar.redact.text import trie


class TrieScanner:
    """The fallback scanner: one lookahead trie regex, each hit as (word index, start)."""

    def __init__(self, words: tuple[bytes, ...]) -> None:
        self._index = {w: i for i, w in enumerate(words)}
        self._rx = re.compile(b"(?=(" + trie(w.decode("latin-1") for w in words).encode("latin-1")
                              + b"))")
        self._longer = {w: [v for v in words if v != w and v.startswith(w)] for w in words}

    def hits(self, low: bytes) -> list[tuple[int, int]]:
        out = []
        for m in self._rx.finditer(low):
            word = m.group(1)
            at = m.start()
            out.append((self._index[word], at))
            for longer in self._longer[word]:  # the trie reports the shortest word at a position
                if low.startswith(longer, at):
                    out.append((self._index[longer], at))
        return out


class AhoCorasickScanner:
    def __init__(self, words: tuple[bytes, ...], automaton) -> None:
        self._ac = automaton(list(words))

    def hits(self, low: bytes) -> list[tuple[int, int]]:
        return [(k, at) for k, at, _ in self._ac.find_matches_as_indexes(low, overlapping=True)]


def scanner(words: tuple[bytes, ...]) -> TrieScanner | AhoCorasickScanner:
    try:
        from ahocorasick_rs import BytesAhoCorasick
    except ImportError:  # an install without the wheel: the same hits, more slowly
        return TrieScanner(words)
    return AhoCorasickScanner(words, BytesAhoCorasick)


class Hits(NamedTuple):
    """One text's hits, by finder: (the finder's own word index, start) each; Nosey Parker's
    as each of its words' starts (`noseyparker.group`)."""

    noseyparker: dict[int, list[int]]
    context: list[tuple[int, int]]
    own: list[tuple[int, int]]
    key_start: bool
    literals: dict[bytes, list[int]]  # where each of LITERALS starts


# What the other finders ask of the text (`://` for URL passwords, `-u` for `curl -u`…): found
# by the same pass instead of one search each.
LITERALS = (b"://", b"-u", b"--user", b" -p", b"private key", b"putty-user-key-file")


class Shared(NamedTuple):
    scanner: TrieScanner | AhoCorasickScanner
    np_words: int  # words 0 … np_words - 1 are Nosey Parker's scan words, in its order
    # word index → every other (finder, the finder's own index) it is a word of: 1 gitleaks'
    # service names, 2 edgar's own rules, 3 a private key's start, 4 LITERALS (`password` is
    # both Nosey Parker's and edgar's own)
    others: tuple[tuple[tuple[int, int], ...], ...]


def build(np_words: tuple[bytes, ...], others_: tuple[tuple[bytes, ...], ...]) -> Shared:
    """The shared scan over Nosey Parker's scan words and the other finders' words, in the
    order `Hits` names them (gitleaks' service names, edgar's own, key starts, LITERALS)."""
    index = {w: k for k, w in enumerate(np_words)}
    assert len(index) == len(np_words), "Nosey Parker's scan words are distinct"
    others: dict[bytes, list[tuple[int, int]]] = {w: [] for w in np_words}
    for who, words in enumerate(others_, start=1):
        for k, w in enumerate(words):
            others.setdefault(w, []).append((who, k))
    return Shared(scanner(tuple(others)), len(np_words), tuple(tuple(v) for v in others.values()))


def scan(s: Shared, low: bytes) -> Hits:
    np_: dict[int, list[int]] = {}
    out: tuple[list[tuple[int, int]], ...] = ([], [], [], [], [])
    first, others = s.np_words, s.others
    for k, at in s.scanner.hits(low):
        if k < first:
            ats = np_.get(k)
            if ats is None:
                np_[k] = [at]
            else:
                ats.append(at)
        for who, local in others[k]:
            out[who].append((local, at))
    literals: dict[bytes, list[int]] = {}
    for k, at in out[4]:
        literals.setdefault(LITERALS[k], []).append(at)
    return Hits(np_, out[1], out[2], bool(out[3]), literals)
