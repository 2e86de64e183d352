"""Secrets found by their shape: the token families of `secret_rules.RULES`, Discord bot tokens,
and PEM and PuTTY private-key blocks — plus the primitives every finder of `edgar.redact`
shares (the lazy regex `lazy`, byte views, character classes and tests, `Span`).

What this module guarantees:

* **Tokens, not look-alikes.** `find_tokens` adds a span only for a token that starts a word
  (or follows a JSON escape, `\\nghp_…`), matches a rule's pattern, passes the rule's `check`
  and does not run on into more letters or digits. The span is the rule's `s` group when it has
  one, else the whole match.
* **Key blocks whole.** `find_key_blocks` spans a PEM or PuTTY private key from its BEGIN line
  to the next END line; with no END within 100 000 characters, the BEGIN line and the header and
  base64 lines that follow it.
* **Linear on any text.** Text with no run of 16 token characters never reaches a rule; every
  repeat in a compiled rule has a ceiling (4096), and a region gets at most 256 rule attempts.
* **Cheap to import.** No regex is compiled at import (`lazy`, `_Compiled.rx`): the import
  only indexes the rules by trigger.
* **Same offsets.** The byte views (`raw`, `raw.translate(_CLS)`, `raw.translate(LOWER)`) have
  one byte per character of the text, so offsets found in them are offsets in the text.

Finders append `Span`s to a list; merging them and writing markers is `redact.Redactor`'s job.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable

from edgar.redact.table import DISCORD_TOKEN, RULES, Rule


class lazy:
    """A regex compiled on first use. Compiling every pattern at import cost each edgar start
    tens of milliseconds, though most runs never meet most patterns. After the first use the
    pattern's methods are plain instance attributes, so the hot path pays nothing extra."""

    def __init__(self, pattern, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str):
        compiled = re.compile(*self._args)
        for attr in ("match", "search", "finditer", "findall", "sub", "subn", "fullmatch",
                     "split", "groupindex", "pattern"):
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


DIGITS = frozenset("0123456789")
UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
LOWER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz")
WORD = DIGITS | UPPER | LOWER_CHARS | {"_"}

# --- byte views of the text -------------------------------------------------------------------
# The text is encoded to ASCII with '?' for anything else — the same length, so offsets line
# up — and translated byte for byte. Searching those bytes for literals runs at memchr speed;
# a regular expression tried at every position would not reach 20 MB/s.


def _table(pairs: Iterable[tuple[bytes, int]], default: int) -> bytes:
    table = bytearray([default]) * 256
    for chars, value in pairs:
        for c in chars:
            table[c] = value
    return bytes(table)


# Token characters: a prefixed token's body is a run of >= 16 "core" characters, so text with
# no such run (prose, most code) never reaches the token rules. "ext" characters sit inside
# tokens (JWT's '.', Telegram's ':') without making a run: dotted names and URLs stay cheap.
_CORE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-%+/=~"
_EXT = b".:$@!"
_CLS = _table([(_CORE, ord("a")), (_EXT, ord("b"))], ord(" "))
_RUN = b"a" * 16
LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))

Span = tuple[int, int, str, int]  # start, end, family, priority
# When spans overlap they merge; the longest names the family, then the most specific kind.
PRIO_TOKEN, PRIO_URL, PRIO_ENV, PRIO_NAME = 3, 2, 1, 0

# --- token rules --------------------------------------------------------------------------------
_RB = r"(?![A-Za-z0-9])"  # a token may not run on into more letters or digits
# The rules say `{16,}`: formats grow. Compiled, every repeat gets a ceiling far above any real
# token, so one failed attempt costs a bounded number of steps whatever the text.
_CEILING = 4096
_MAX_ATTEMPTS = 256  # rule attempts in one region before it is taken for a blob, not a token
_REACH = _CEILING + 256  # how far from a mid trigger its token can extend


def _bounded(pattern: str) -> str:
    pattern = re.sub(r"\{(\d+),\}", rf"{{\1,{_CEILING}}}", pattern)
    return re.sub(r"\](\+|\*)", lambda m: f"]{{{'1' if m.group(1) == '+' else '0'},{_CEILING}}}", pattern)


class _Compiled:
    """A rule whose regex is compiled on first use: most texts never trigger most rules, and
    compiling all of them at import cost every edgar start ~40 ms."""

    __slots__ = ("rule", "_rx", "_has_s")

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self._rx: re.Pattern[str] | None = None
        self._has_s = False

    @property
    def rx(self) -> re.Pattern[str]:
        if self._rx is None:
            self._rx = re.compile(_bounded(self.rule.pattern) + _RB)
            self._has_s = "s" in self._rx.groupindex
        return self._rx

    @property
    def has_s(self) -> bool:
        return self.rx is not None and self._has_s


_Candidates = tuple[_Compiled, ...]
_Index = tuple[dict[str, tuple[str, ...]], dict[str, _Candidates], tuple[tuple[str, _Candidates], ...]]


def _index_rules() -> _Index:
    head: dict[str, list[_Compiled]] = {}
    mid: dict[str, list[_Compiled]] = {}
    for rule in RULES:
        compiled = _Compiled(rule)
        for trig in rule.triggers:
            (mid if rule.back else head).setdefault(trig, []).append(compiled)
    # A hit on "sk-ant-" also tries the rules of its shorter triggers ("sk-"), longest first.
    rules_for: dict[str, tuple[_Compiled, ...]] = {}
    for trig in head:
        cands: list[_Compiled] = []
        for k in range(len(trig), 0, -1):
            cands.extend(c for c in head.get(trig[:k], ()) if c not in cands)
        rules_for[trig] = tuple(cands)
    by_first2: dict[str, list[str]] = {}
    for trig in head:
        by_first2.setdefault(trig[:2], []).append(trig)
    first2 = {k: tuple(sorted(v, key=len, reverse=True)) for k, v in by_first2.items()}
    return first2, rules_for, tuple((t, tuple(cs)) for t, cs in mid.items())


# Head triggers by their first two characters, longest first; their rules; the mid triggers.
_FIRST2, _RULES_FOR, _MIDS = _index_rules()
# A mid trigger after a separator is met through the word that follows it (":AA" is "AA" after
# ':'); one inside a word is searched for by a rare byte over the whole text.
_AFTER_SEP = {t[1:3]: t[0] for t, _ in _MIDS if t[0] in ":.-"}
_IN_WORD = ((b"Q", ((b"Q~", 0), (b"JQQJ9", 1))), (b"NRAL", ((b"NRAL", 0),)), (b"_mmk", ((b"_mmk", 0),)))
assert {t.decode() for _, ts in _IN_WORD for t, _ in ts} == {t for t, _ in _MIDS if t[0] not in ":.-"}, (
    "every mid trigger needs a way to be found"
)
# Discord bot tokens start with the base64 of a numeric user id: "MT" for 1…, "OT" for 9….
_DISCORD_STARTS = frozenset("MT Mj Mz ND NT Nj Nz OD OT".split())
_DISCORD = lazy(_bounded(DISCORD_TOKEN) + r"(?![A-Za-z0-9_-])")


def _trie(words: Iterable[str]) -> str:
    """One alternation for many literals, factored by prefix so `re` tests each character once."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        if "" in node:  # a shorter literal ends here, and implies every longer one
            return ""
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return build(root)


# Word starts that could begin a token: the first four characters of each trigger.
_STARTS = lazy(
    rb"\b"
    + _trie(
        {t[:4] for ts in _FIRST2.values() for t in ts}
        | {t[1:5] for t, _ in _MIDS if t[0] in ":.-"}
        | _DISCORD_STARTS
    ).encode()
)

# --- key blocks ---------------------------------------------------------------------------------
# Key blocks: from the BEGIN line to the next END line; cut short (a truncated log line), the
# BEGIN line and the header and base64 lines that follow it.
_KEY_BLOCKS = (
    (
        lazy(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
        lazy(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
    ),
    (lazy(r"PuTTY-User-Key-File-[0-9]+:"), lazy(r"Private-MAC:[ \t]*[0-9a-fA-F]+")),
)
_BLOCK_LIMIT = 100_000
_BLOCK_BODY = lazy(
    r"(?:[ \t]*(?:\r?\n|\\r\\n|\\n)?[ \t]*(?:[A-Za-z0-9+/=]{8,4096}|[A-Za-z-]{3,40}:[^\n\\]{0,400}))*"
)


# --- character tests ------------------------------------------------------------------------------


def _left_ok(text: str, i: int) -> bool:
    """A token may start at i: not inside a word, except after a JSON escape (`\\nghp_…`)."""
    if i == 0 or text[i - 1] not in WORD:
        return True
    return i >= 2 and text[i - 2] == "\\" and text[i - 1] in "nrt"


def entropy(s: str, counts: Counter[str] | None = None) -> float:
    """Shannon entropy in bits per character."""
    n = len(s)
    counts = Counter(s) if counts is None else counts
    return -sum(c / n * math.log2(c / n) for c in counts.values()) if n else 0.0


def _mixed(s: str) -> bool:
    """A digit, or both cases: never true of an ordinary lower-case (or upper-case) word."""
    chars = set(s)
    if not chars.isdisjoint(DIGITS):
        return True
    return not chars.isdisjoint(UPPER) and not chars.isdisjoint(LOWER_CHARS)


def _random(s: str) -> bool:
    """Stricter than `_mixed`, for prefixes that ordinary identifiers also start with."""
    counts = Counter(s)
    digits = sum(n for c, n in counts.items() if c in DIGITS)
    up = sum(n for c, n in counts.items() if c in UPPER)
    lo = sum(n for c, n in counts.items() if c in LOWER_CHARS)
    if digits and (up or lo):
        return entropy(s, counts) >= 3.0
    if up and lo:  # CamelCaseWords have few capitals; random letters about half
        return min(up, lo) >= 0.25 * (up + lo) and entropy(s, counts) >= 3.5
    return False


def check(kind: str | None, body: str) -> bool:
    if kind is None:
        return True
    if kind == "mixed":
        return _mixed(body)
    if kind == "random":
        return _random(body)
    if kind == "hexfree":  # a digest that happens to start with the prefix is not a token
        return _mixed(body) and any(c.isalpha() and c.lower() > "f" for c in body)
    if kind == "digit":
        return not DIGITS.isdisjoint(body)
    if kind == "cased":
        chars = set(body)
        return not (chars.isdisjoint(DIGITS) or chars.isdisjoint(UPPER) or chars.isdisjoint(LOWER_CHARS))
    if kind == "twitter":
        return ("%" in body and _mixed(body)) or (len(body) >= 60 and _random(body))
    raise ValueError(f"unknown check {kind!r}")


# --- finding ------------------------------------------------------------------------------------------


def find_key_blocks(text: str, spans: list[Span]) -> None:
    for begin_rx, end_rx in _KEY_BLOCKS:
        ends = [(m.start(), m.end()) for m in end_rx.finditer(text)]
        covered = 0
        for b in begin_rx.finditer(text):
            if b.start() < covered:
                continue
            k = bisect_left(ends, (b.end(), 0))
            if k < len(ends) and ends[k][0] - b.end() <= _BLOCK_LIMIT:
                covered = ends[k][1]
            else:
                covered = _BLOCK_BODY.match(text, b.end()).end()
            spans.append((b.start(), covered, "private-key", PRIO_TOKEN))


def find_tokens(text: str, raw: bytes, spans: list[Span]) -> None:
    cls = raw.translate(_CLS)
    n = len(cls)
    find, rfind, starts = cls.find, cls.rfind, _STARTS.search
    i = find(_RUN)
    while i >= 0:  # each region: a run of token characters around a core run of >= 16
        lo = rfind(b" ", 0, i) + 1
        hi = find(b" ", i + 16)
        if hi < 0:
            hi = n
        # most regions (digests, UUIDs, long identifiers) hold no trigger at all
        if starts(raw, lo, hi) is not None or (lo and text[lo - 1] == "\\"):
            _scan_region(text, raw, lo, hi, spans)
        if hi >= n:
            break
        i = find(_RUN, hi)
    for needle, trigs in _IN_WORD:
        j = raw.find(needle)
        while j >= 0:
            for trig, offset in trigs:
                if raw.startswith(trig, j - offset):
                    # the token's region, looked for no further than a token can reach
                    lo = rfind(b" ", max(0, j - _REACH), j) + 1 or max(0, j - _REACH)
                    hi = find(b" ", j, j + _REACH)
                    _match_mid(text, lo, min(n, j + _REACH) if hi < 0 else hi, j - offset, spans)
            j = raw.find(needle, j + 1)


def _scan_region(text: str, raw: bytes, lo: int, hi: int, spans: list[Span]) -> None:
    covered = lo
    # "\nghp_…" inside a JSON string: the backslash ends the previous region and the token
    # starts after the escape's letter.
    if lo and text[lo - 1] == "\\" and text[lo] in "nrt" and hi - lo > 2:
        covered = _try_start(text, lo, lo + 1, hi, covered, spans)
    for attempt, w in enumerate(_STARTS.finditer(raw, lo, hi)):
        if attempt == _MAX_ATTEMPTS:
            break
        p = w.start()
        if p >= covered:
            covered = _try_start(text, lo, p, hi, covered, spans)


def _try_start(text: str, lo: int, p: int, hi: int, covered: int, spans: list[Span]) -> int:
    two = text[p : p + 2]
    if _AFTER_SEP.get(two) == text[p - 1 : p]:
        _match_mid(text, lo, hi, p - 1, spans)
    for trig in _FIRST2.get(two, ()):
        if text.startswith(trig, p):
            for c in _RULES_FOR[trig]:
                m = c.rx.match(text, p, hi)
                if m and check(c.rule.check, m.group()[len(trig) :]):
                    s, e = m.span("s") if c.has_s else m.span()
                    spans.append((s, e, c.rule.family, PRIO_TOKEN))
                    return m.end()
            break
    if two in _DISCORD_STARTS:
        m = _DISCORD.match(text, p, hi)
        if m and _mixed(m.group()):
            spans.append((m.start(), m.end(), "discord-token", PRIO_TOKEN))
            return m.end()
    return covered


def _match_mid(text: str, lo: int, hi: int, j: int, spans: list[Span]) -> None:
    """A mid trigger starts at j: find the token around it, starting up to `back` earlier."""
    for trig, cands in _MIDS:
        if not text.startswith(trig, j):
            continue
        for c in cands:
            for start in range(max(lo, j - c.rule.back), j + 1):
                if not _left_ok(text, start):
                    continue
                m = c.rx.match(text, start, hi)
                if m and m.end() > j and check(c.rule.check, m.group()):
                    s, e = m.span("s") if c.has_s else m.span()
                    spans.append((s, e, c.rule.family, PRIO_TOKEN))
                    return
