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
