"""The literals a regex cannot match without: the keywords a prefilter looks for before running it.

Dev tool only (`scripts/update_secret_rules.py`). Nosey Parker's rules carry no keywords (it runs
every pattern at once with Hyperscan); edgar runs a rule only where one of its keywords occurs,
so each rule's keywords are derived here from its compiled pattern.

Guarantee: `required(pattern)` returns a set of lower-case strings such that every string the
pattern matches (under any case, since the text is searched lower-cased) contains at least one
of them — or None when no such set exists (a pattern that can match with no fixed text).
Among the sets it can prove, it returns the one whose shortest member is longest.
"""

from __future__ import annotations

import re
import re._constants as C  # noqa: N812 - the standard library's own name for them
import re._parser as sp

_MAX = 64  # most alternatives one set may hold
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
Items = list


def _score(s: set[str] | None) -> int:
    return min(map(len, s)) if s else -1


def _exact(op, av) -> set[str] | None:
    """Every string one item can match, when they are few and fixed."""
    if op is C.LITERAL:
        return {chr(av)}
    if op is C.IN:
        if len(av) <= 4 and all(o is C.LITERAL for o, _ in av):
            return {chr(a) for _, a in av}
        return None
    if op is C.SUBPATTERN:
        return _seq_exact(av[3].data)
    if op is C.BRANCH:
        out: set[str] = set()
        for b in av[1]:
            s = _seq_exact(b.data)
            if s is None:
                return None
            out |= s
        return out if len(out) <= _MAX else None
    if op in _REPEATS and av[0] == av[1] and 1 <= av[0] <= 4:
        s = _seq_exact(av[2].data)
        return None if s is None or len(s) != 1 else {next(iter(s)) * av[0]}
    return None


def _seq_exact(items: Items) -> set[str] | None:
    cur = {""}
    for op, av in items:
        s = _exact(op, av)
        if s is None:
            return None
        cur = {a + b for a in cur for b in s}
        if len(cur) > _MAX:
            return None
    return cur


def _lead(items: Items) -> set[str]:
    """The fixed strings a sequence must start with (its exact prefix; {""} if none)."""
    cur = {""}
    for op, av in items:
        s = _exact(op, av)
        if s is None:
            if op is C.BRANCH:
                leads = [_lead(b.data) for b in av[1]]
                if all(x != {""} for x in leads):
                    nxt = {a + b for a in cur for x in leads for b in x}
                    if len(nxt) <= _MAX:
                        return nxt
            elif op is C.SUBPATTERN:
                inner = _lead(av[3].data)
                nxt = {a + b for a in cur for b in inner}
                if len(nxt) <= _MAX:
                    return nxt
            return cur
        nxt = {a + b for a in cur for b in s}
        if len(nxt) > _MAX:
            return cur
        cur = nxt
    return cur


def _required(items: Items) -> set[str] | None:
    best: set[str] | None = None
    cur = {""}

    def keep(s: set[str] | None) -> None:
        nonlocal best
        if s and s != {""} and _score(s) > _score(best):
            best = s

    for k, (op, av) in enumerate(items):
        s = _exact(op, av)
        if s is not None:
            nxt = {a + b for a in cur for b in s}
            if len(nxt) <= _MAX:
                cur = nxt
                continue
            keep(cur)
            cur = s
            continue
        # fixed text before a branch or group joins what each alternative starts with
        keep({a + b for a in cur for b in _lead(items[k:])} if cur != {""} else None)
        keep(cur)
        cur = {""}
        if op is C.SUBPATTERN:
            keep(_required(av[3].data))
        elif op is C.BRANCH:
            alts: set[str] = set()
            for b in av[1]:
                r = _required(b.data)
                if r is None:
                    alts = set()
                    break
                alts |= r
            keep(alts or None)
        elif op in _REPEATS and av[0] >= 1:
            keep(_required(av[2].data))
        elif op is C.ATOMIC_GROUP:
            keep(_required(av.data))
    keep(cur)
    return best


def required(pattern: str, flags: int = re.ASCII) -> list[str] | None:
    found = _required(sp.parse(pattern, flags).data)
    return None if not found else sorted({x.lower() for x in found})


def reach(pattern: str, flags: int = re.ASCII) -> tuple[int, int]:
    """How far a match can extend before and after the start of its keyword (`required`):
    the keyword lies in the last top-level item whose rest still requires it, so a match
    starts at most the width of the items up to that one before it, and ends at most the
    width of the items from that one after it. A width that is unbounded is `sre`'s MAXREPEAT
    or more (the caller caps it)."""
    items = sp.parse(pattern, flags).data
    want = required(pattern, flags)
    at = 0
    for i in range(len(items)):
        rest = _required(items[i:])
        if rest and sorted({x.lower() for x in rest}) == want:
            at = i
    head = sp.SubPattern(sp.State(), items[: at + 1]) if at + 1 < len(items) else None
    tail = sp.SubPattern(sp.State(), items[at:])
    whole = sp.parse(pattern, flags).getwidth()[1]
    before = whole if head is None else head.getwidth()[1]
    return before, tail.getwidth()[1]


def every_required(pattern: str, flags: int = re.ASCII) -> list[list[str]]:
    """Each set of literals a match must hold one of, one set per top-level item (or run of
    fixed items) of the pattern: a window must hold one of every set for a match to be in it."""
    items = sp.parse(pattern, flags).data
    out: list[list[str]] = []
    run: list = []

    def flush() -> None:
        if run:
            s = _required(run)
            if s and s != {""}:
                out.append(sorted({x.lower() for x in s}))
            run.clear()

    for op, av in items:
        if _exact(op, av) is not None:
            run.append((op, av))
            continue
        flush()
        s = _required([(op, av)])
        if s and s != {""}:
            out.append(sorted({x.lower() for x in s}))
    flush()
    return [s for k, s in enumerate(out) if s not in out[:k]]


def anchored(pattern: str, flags: int = re.ASCII) -> bool:
    """Whether every match starts with one of its keywords (`required`): then a match can only
    start at a keyword hit, and one anchored attempt there finds it."""
    lead = _lead(sp.parse(pattern, flags).data)
    return lead != {""} and sorted({x.lower() for x in lead}) == required(pattern, flags)


def _sets_with_items(items: Items) -> list[tuple[list[str], int, int]]:
    """`every_required`'s sets, each with the first and last top-level item it lies in."""
    out: list[tuple[list[str], int, int]] = []
    run: list[int] = []

    def add(s: set[str] | None, lo: int, hi: int) -> None:
        if s and s != {""}:
            words = sorted({x.lower() for x in s})
            if all(words != w for w, _, _ in out):
                out.append((words, lo, hi))

    def flush() -> None:
        if run:
            add(_required([items[k] for k in run]), run[0], run[-1])
            run.clear()

    for k, (op, av) in enumerate(items):
        if _exact(op, av) is not None:
            run.append(k)
            continue
        flush()
        add(_required([(op, av)]), k, k)
    flush()
    return out


def _width(items: Items) -> int:
    return sp.SubPattern(sp.State(), items).getwidth()[1] if items else 0


def trigger(pattern: str, frequency, flags: int = re.ASCII) -> tuple[list[str], int, int]:
    """The literal set a prefilter should look for, and how far a match reaches before and after
    the start of one of its words (`reach`'s meaning): `required`'s set (the one `anchored`
    speaks of), unless another set every match holds is rarer — `frequency(words)` is how often
    the words occur in typical text (a facebook rule's `facebook|fb` rather than its `key`,
    `api`, `secret`). Sets with a one-character word are never chosen: they hit everywhere."""
    items = sp.parse(pattern, flags).data
    want = required(pattern, flags)
    assert want is not None
    before, after = reach(pattern, flags)
    best = (frequency(want), want, before, after)
    for words, lo, hi in _sets_with_items(items):
        if words == want or min(map(len, words)) < 2:
            continue
        f = frequency(words)
        if f < best[0]:
            best = (f, words, _width(items[: hi + 1]), _width(items[lo:]))
    return best[1], best[2], best[3]


_ALL = frozenset(range(256))
_NON_ASCII = frozenset(range(128, 256))


def _cased(chars: set[int]) -> set[int]:
    out = set(chars)
    for c in chars:
        if 65 <= c <= 90 or 97 <= c <= 122:
            out.add(c ^ 32)
    return out


def _category(cat) -> frozenset[int]:
    if cat is C.CATEGORY_DIGIT:
        return frozenset(range(48, 58))
    if cat is C.CATEGORY_SPACE:
        return frozenset(b" \t\n\r\f\v")
    if cat is C.CATEGORY_WORD:
        return frozenset(b"0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    return _ALL  # a negated category (\D, \S, \W) holds nearly everything


def _first_item(op, av) -> tuple[frozenset[int] | set[int], bool]:
    """(the first characters one item can match — all of them when unsure —, whether it can
    match nothing). Characters above 127 stand for every non-ASCII one."""
    if op is C.LITERAL:
        return ({av} if av < 128 else _NON_ASCII), False
    if op is C.IN:
        chars: set[int] = set()
        for o, a in av:
            if o is C.NEGATE:
                return _ALL, False
            if o is C.LITERAL:
                chars.add(a if a < 128 else 128)
            elif o is C.RANGE:
                chars.update(range(a[0], min(a[1], 128) + 1))
                if a[1] >= 128:
                    chars.update(_NON_ASCII)
            elif o is C.CATEGORY:
                chars.update(_category(a))
            else:
                return _ALL, False
        return chars, False
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        return set(), True  # zero-width: what follows decides (a lookahead only narrows it)
    if op is C.SUBPATTERN:
        return _first_seq(av[3].data)
    if op is C.ATOMIC_GROUP:
        return _first_seq(av.data)
    if op is C.BRANCH:
        chars, empty = set(), False
        for b in av[1]:
            f, e = _first_seq(b.data)
            chars |= f
            empty = empty or e
        return chars, empty
    if op in _REPEATS:
        f, e = _first_seq(av[2].data)
        return f, e or av[0] == 0
    return _ALL, False  # ANY, NOT_LITERAL, a group reference, anything else: no promise


def _first_seq(items: Items) -> tuple[set[int], bool]:
    chars: set[int] = set()
    for op, av in items:
        f, empty = _first_item(op, av)
        chars |= f
        if not empty:
            return chars, False
    return chars, True


def follow(pattern: str, keywords: list[str], flags: int = re.ASCII) -> str | None:
    """For an `anchored` pattern: every character that can come right after the keyword a match
    starts with, in either case (the text is searched lower-cased), `?` standing for every
    non-ASCII one — or None when no such promise can be made (the pattern's lead is not a plain
    alternation of its keywords, or a match may end right after one). A keyword hit followed by
    another character cannot start a match: `key+'12'` is no Vault token's `key: s.…`."""
    items = sp.parse(pattern, flags).data
    cur = {""}
    k = 0
    while k < len(items) and sorted({x.lower() for x in cur}) != keywords:
        s = _exact(*items[k])
        if s is None:
            return None
        cur = {a + b for a in cur for b in s}
        if len(cur) > _MAX:
            return None
        k += 1
    if sorted({x.lower() for x in cur}) != keywords:
        return None
    chars, empty = _first_seq(items[k:])
    if empty or len(chars) >= 200:
        return None
    if chars & _NON_ASCII:
        chars = (chars - _NON_ASCII) | {ord("?")}
    return "".join(map(chr, sorted(_cased(chars))))


def _always_group(items: Items, gid: int):
    """Group `gid` when every match holds it (nested in groups only, never in a branch or a
    repeat), else None."""
    for op, av in items:
        if op is C.SUBPATTERN:
            if av[0] == gid:
                return av[3]
            found = _always_group(av[3].data, gid)
            if found is not None:
                return found
    return None


MIN_BODY = 8  # the fewest characters after a fixed prefix that make a minted token
MIN_PREFIX = 3  # `00` or `b_` is no prefix a token family is known by


def fixed_prefix(pattern: str, group: int = 0, flags: int = re.ASCII) -> int:
    """For a token of a fixed prefix and a fixed length: the length of the shortest literal
    its secret starts with; 0 for any other pattern. The secret is what `edgar.redact.upstream`
    takes: group `group`, else the only group, else the whole match; it must be in every match,
    start with fixed text of `MIN_PREFIX` characters or more (`ghp_`, `AKIA|ASIA|…`), have
    one width, and hold at least `MIN_BODY` characters after that text. Such a token's body is minted, not written: an
    entropy gate on it only loses secrets (`ghp_` + a short pattern repeated)."""
    parsed = sp.parse(pattern, flags)
    groups = parsed.state.groups - 1
    if group == 0 and groups > 1:
        return 0  # the first group that matched is the secret: no one shape to speak of
    gid = group or groups
    sub = parsed.data if gid == 0 else _always_group(parsed.data, gid)
    if sub is None:
        return 0
    lo, hi = sp.SubPattern(sp.State(), list(sub)).getwidth()
    lead = _lead(list(sub))
    if lead == {""} or lo != hi:
        return 0
    size = min(map(len, lead))
    return size if size >= MIN_PREFIX and lo - size >= MIN_BODY else 0
