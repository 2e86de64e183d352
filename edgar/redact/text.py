"""Primitives every finder of `edgar.redact` shares: spans and their priorities, byte views of
the text, character sets, entropy, a lazily compiled regex, a keyword trie.

What this module guarantees:

* **Same offsets.** A byte view (`text.encode("ascii", "replace")`, translated by `LOWER` or a
  `table`) has one byte per character of the text, so offsets found in it are offsets in it.
* **Cheap to import.** Nothing is compiled at import (`lazy`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

Span = tuple[int, int, str, int]  # start, end, family, priority
# When spans overlap they merge; the longest names the family, then the most specific kind.
PRIO_TOKEN, PRIO_URL, PRIO_ENV, PRIO_NAME, PRIO_GENERIC = 3, 2, 1, 0, -1

DIGITS = frozenset("0123456789")
UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
LOWER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz")
WORD = DIGITS | UPPER | LOWER_CHARS | {"_"}
LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))


class lazy:
    """A regex compiled on first use: compiling every pattern at import would cost each edgar
    start tens of milliseconds. After the first use the pattern's methods are plain instance
    attributes, so the hot path pays nothing extra."""

    def __init__(self, pattern, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str):
        compiled = re.compile(*self._args)
        for attr in ("match", "search", "finditer", "findall", "sub", "subn", "fullmatch",
                     "split", "groupindex", "pattern"):
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


def occurrences(data: bytes, word: bytes) -> list[int]:
    """Every offset at which `word` starts in `data`, overlapping ones included, in order."""
    out = []
    at = data.find(word)
    while at >= 0:
        out.append(at)
        at = data.find(word, at + 1)
    return out


def table(pairs: Iterable[tuple[bytes, int]], default: int) -> bytes:
    """A `bytes.translate` table sending each byte of each `chars` to `value`, others to \
`default`."""
    out = bytearray([default]) * 256
    for chars, value in pairs:
        for c in chars:
            out[c] = value
    return bytes(out)


def trie(words: Iterable[str]) -> str:
    """One alternation for many literals, factored by prefix so `re` tests each character once.
    At a position it reports the shortest word found there."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        if "" in node:
            return ""
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return build(root) if root else "(?!)"


_PLACEHOLDER = lazy(
    r"(?i:.*example.*|.*(?:x{4,}|\*{4,}|\.{3}|_here\b|your[_-]).*)|<[^<>]*>|\$\{[^}]*\}|\{\{.*\}\}|\$[A-Z_][A-Z0-9_]*",
    re.S,
)


def placeholder(secret: str) -> bool:
    """A value written to stand for a secret: all one character, an `x`/`X` or `*` run, `EXAMPLE`,
    `…_here`, `your-…`, `<…>`, `${…}`, `{{…}}`, `$NAME`. Minted tokens are none of these."""
    if len(set(secret)) <= 1:
        return True
    return _PLACEHOLDER.fullmatch(secret) is not None


def entropy(s: str, counts: Counter[str] | None = None) -> float:
    """Shannon entropy in bits per character."""
    n = len(s)
    counts = Counter(s) if counts is None else counts
    return -sum(c / n * math.log2(c / n) for c in counts.values()) if n else 0.0
