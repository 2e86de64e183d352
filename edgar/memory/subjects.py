"""When one rule replaces another: the same subject, said differently (ADR-0080).

Guarantees: pure functions of two texts, no model call, no I/O. ``key`` is the form two facts
are compared in (case, punctuation, Markdown emphasis and whitespace aside), so near-duplicates
("always use tabs", "Always use tabs.") are one fact. ``replaces(old, new)`` is true exactly
when one of ADR-0080's four rules holds:

1. *negation*: the same body, opposite polarity ("always X" / "never X");
2. *refinement*: the same polarity, and one body starts with the other ("use tabs" /
   "use tabs for indentation");
3. *alternative*: the same polarity, the same remaining words, and the choices are different
   members of one ``ALTERNATIVES`` class ("use tabs" / "use 4 spaces", "npm" / "pnpm");
4. *rejection*: the new rule rejects what the old one chose ("use pnpm, not npm",
   "use X instead of Y"): the old body with the rejected choice swapped for the new one is the
   new body.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar


class _Fact(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def provenance(self) -> str: ...


F = TypeVar("F", bound=_Fact)

_WORD = re.compile(r"[^\W_]+(?:[-_.][^\W_]+)*")
_POLARITY = re.compile(
    r"^(?:(?P<neg>never|don'?t|don’t|do\s+not|stop\s+using)|always|remember\s+that)\s+",
    re.IGNORECASE)
_REJECT = re.compile(r"(?:,\s*|\s+)(?:not|instead\s+of|rather\s+than|over)\s+(?P<what>[^,;.]+?)"
                     r"\s*(?=$|,|;|\.|\s+(?:for|in|when|to)\b)", re.IGNORECASE)

# Closed classes of things one chooses between: two members are alternatives for one slot.
ALTERNATIVES: tuple[frozenset[str], ...] = tuple(frozenset(c.split("|")) for c in (
    "tab|tabs|space|spaces",
    "npm|pnpm|yarn|bun",
    "pip|uv|poetry|pipenv|conda|pdm",
    "black|ruff format|autopep8|yapf|prettier|dprint",
    "flake8|ruff|pylint|eslint|oxlint|biome",
    "mypy|pyright|pyre",
    "pytest|unittest|nose|jest|vitest|mocha",
    "requests|httpx|aiohttp|urllib3|axios",
    "single quotes|double quotes|single quote|double quote",
    "english|german|french|spanish|italian|dutch|portuguese|russian|chinese|japanese|thai|"
    "polish",
    "main|master|develop|dev|trunk",
    "camelcase|snake_case|kebab-case|pascalcase",
    "bash|zsh|sh|fish|powershell",
    "merge|rebase|squash",
))
_PHRASES = sorted({m for c in ALTERNATIVES for m in c}, key=len, reverse=True)
_GENERIC = frozenset("use with for to in the a an of on by and only just all every please "
                     "when".split())


def key(text: str) -> str:
    """``text`` as compared: casefolded words, punctuation and emphasis dropped."""
    words = " ".join(re.sub(r"[\W_]+", " ", text.casefold()).split())
    return words or " ".join(text.casefold().split())


def _parts(text: str) -> tuple[bool, str, set[str]]:
    """(negative?, the body as lowercase words, what the rule rejects)."""
    body = " ".join(text.split()).strip(" .!;:")
    negative = False
    for _ in range(2):
        match = _POLARITY.match(body)
        if match is None:
            break
        negative = negative or match.group("neg") is not None
        body = body[match.end():]
    rejected = {_norm(m.group("what")) for m in _REJECT.finditer(body)}
    body = _REJECT.sub("", body)
    return negative, _norm(body), rejected


def _norm(text: str) -> str:
    return " ".join(w.lower() for w in _WORD.findall(text))


def _stem(word: str) -> str:
    for suffix in ("ation", "ing", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


def _choices(body: str) -> tuple[list[str], set[str]]:
    """(the ``ALTERNATIVES`` members named in ``body``, the other words, stemmed)."""
    found: list[str] = []
    rest = f" {body} "
    for phrase in _PHRASES:
        pattern = f" {phrase} "
        while pattern in rest:
            found.append(phrase)
            rest = rest.replace(pattern, " ", 1)
    words = {_stem(w) for w in rest.split() if w not in _GENERIC and not w.isdigit()}
    return found, words


def _class(member: str) -> frozenset[str] | None:
    return next((c for c in ALTERNATIVES if member in c), None)


def replaces(old: str, new: str) -> bool:
    """Whether rule ``new``, said after ``old``, supersedes it (ADR-0080's four rules)."""
    old_neg, old_body, _ = _parts(old)
    new_neg, new_body, rejected = _parts(new)
    if not old_body or not new_body:
        return False
    if old_body == new_body:
        return old_neg != new_neg                                     # 1 negation
    if old_neg != new_neg:
        return False
    if f"{new_body} ".startswith(f"{old_body} ") or f"{old_body} ".startswith(f"{new_body} "):
        return True                                                   # 2 refinement
    old_choices, old_rest = _choices(old_body)
    new_choices, new_rest = _choices(new_body)
    if old_choices and new_choices and old_rest == new_rest:          # 3 alternative
        a, b = set(old_choices), set(new_choices)
        if a != b and any(_class(x) is not None and _class(x) == _class(y)
                          for x in a - b for y in b - a):
            return True
    chosen = " ".join(w for w in new_body.split() if w not in old_body.split())
    for what in rejected:                                             # 4 rejection
        swapped = f" {old_body} ".replace(f" {what} ", f" {chosen} ", 1).strip()
        if what and chosen and f" {what} " in f" {old_body} " and swapped == new_body:
            return True
    return False


# The person's own rules are the ones a newer rule of theirs may replace: never an error
# template edgar wrote, never a pending proposal.
REPLACEABLE = frozenset({"user-prompt", "manual", "reviewed"})


def superseded(active: Iterable[F], new: str) -> list[F]:
    """The active facts of the person's own that rule ``new`` replaces, oldest first."""
    return sorted((f for f in active if f.provenance in REPLACEABLE and f.text != new
                   and replaces(f.text, new)), key=lambda f: f.id)
