"""Which skills a surface (a typed prompt, or a whole queued burst) activates.

Guarantees:
- ``tokenize`` and ``score`` are pure. Scoring is BM25F over a skill's name, keywords and
  description (weighted in that order), summed over the surface's *distinct* terms with
  idf normalised to [0, 1] so one threshold holds for 3 skills or 300.
- Every term contributes ≥ 0, so a surface that contains another scores at least as high
  (a burst ≥ each of its fragments): aggregation (seed 002: a neighbouring project's ADR-161, not in
  adr/) can only add evidence.
- Refractory: a skill fired at turn *t* is not fired again until turn *t + N + 1*
  (``skills.refractory_turns``); meanwhile it stays in context (``carried``), so a burst
  re-scanned on overlap, or the same topic next turn, neither spams nor loses it.
- ``force(name)`` activates a skill whatever its score; it is delivered (and published as
  ``SkillsActivated``) by the next ``activate`` call.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from edgar.skills.loader import Skill

# Calibrated on tests/data/skills_labelled.jsonl (56 intents, each as one line and as a 3-line
# burst, over 22 skills) by `bench/skills.py --calibrate`: the threshold with the best mean F1
# of the two surfaces edgar scans. One distinctive word (≈1–1.9) is not always enough; two
# are. Re-run the sweep whenever tokenizing or weights change.
THRESHOLD = 1.7
# A 2 000-character burst can brush against many skills; only the best few earn context.
MAX_PER_SURFACE = 3

K1, B = 1.2, 0.75          # the textbook BM25 constants; the sweep showed no better pair
WEIGHTS = {"name": 3.0, "keywords": 2.0, "description": 1.0}

_WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can cannot could did do does doing done don down during each
few for from further get got had has have having he her here hers him his how i if in into is
it its itself just let lets like me more most my myself no nor not now of off ok okay on once
only or other our ours out over own please same she should so some such than thank thanks that
the their theirs them then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself yes
yeah hey hi need needs want wants make sure thing things something way bit lot really maybe
think one two use used uses using user users ask asks asked skill skills help tell look see
""".split())

# light suffix stripping: (suffix, replacement), first match wins; the stem keeps ≥ 3 letters
_SUFFIXES = (("ational", "ate"), ("ization", "ize"), ("isation", "ize"), ("ation", "ate"),
             ("ize", ""), ("ness", ""), ("ment", ""), ("ing", ""), ("ed", ""), ("ly", ""))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer (tests → test, migrations → migrat), applied to a fixed point
    so that stem(stem(w)) == stem(w): a stemmed keyword and a stemmed prompt word meet."""
    while True:
        shorter = _strip(word)
        if shorter == word:
            return word
        word = shorter


def _strip(word: str) -> str:
    w = word
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix, repl in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            if suffix in ("ing", "ed") and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # running → run, stopped → stop
            break
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]  # migrate/migrating/migration all meet at "migrat"
    return w


def tokenize(text: str) -> list[str]:
    """Lower-cased, stop-word-free, stemmed word tokens, in order."""
    out = []
    for word in _WORD.findall(text.lower()):
        if len(word) < 2 or word.isdigit() or word in STOP:
            continue
        root = stem(word)
        if root in STOP:  # "thinking" stems to "think", itself a stop word
            continue
        out.append(root)
    return out


@dataclass(frozen=True)
class Index:
    """Per-term, per-skill BM25F weights, computed once: scoring is a dict walk."""

    names: tuple[str, ...]
    postings: dict[str, tuple[tuple[int, float], ...]]


def build_index(skills: Iterable[Skill]) -> Index:
    skills = list(skills)
    docs: list[dict[str, float]] = []   # weighted term counts (WEIGHTS are floats)
    lengths: list[float] = []
    for skill in skills:
        tf: dict[str, float] = {}
        fields = {"name": skill.name.replace("-", " ").replace("_", " "),
                  "keywords": " ".join(skill.keywords), "description": skill.description}
        for name, text in fields.items():
            for token in tokenize(text):
                tf[token] = tf.get(token, 0.0) + WEIGHTS[name]
        docs.append(tf)
        lengths.append(sum(tf.values()))
    n = len(docs)
    avg = (sum(lengths) / n) if n else 1.0
    df: Counter[str] = Counter(t for tf in docs for t in tf)
    top = math.log(1 + (n - 0.5) / 1.5) if n else 1.0  # idf of a term found in one skill
    postings: dict[str, list[tuple[int, float]]] = {}
    for i, tf in enumerate(docs):
        norm = K1 * (1 - B + B * lengths[i] / (avg or 1.0))
        for term, freq in tf.items():
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5)) / top
            postings.setdefault(term, []).append((i, idf * freq * (K1 + 1) / (freq + norm)))
    return Index(tuple(s.name for s in skills), {t: tuple(p) for t, p in postings.items()})


def score(index: Index, surface: str) -> list[float]:
    """One score per skill (index order) for a surface: sum over its distinct terms."""
    totals = [0.0] * len(index.names)
    for term in set(tokenize(surface)):
        for i, weight in index.postings.get(term, ()):
            totals[i] += weight
    return totals


def select(names: tuple[str, ...], scores: list[float], threshold: float,
           limit: int = MAX_PER_SURFACE) -> list[str]:
    """Names scoring ≥ threshold, best first (ties by name), at most ``limit``."""
    above = sorted((-s, n) for n, s in zip(names, scores, strict=True) if s >= threshold)
    return [n for _, n in above[:limit]]


@dataclass
class Matcher:
    """One session's skills: scoring, refractory bookkeeping, ``/skills`` and ``/skill``."""

    skills: list[Skill]
    threshold: float = THRESHOLD
    refractory_turns: int = 5
    limit: int = MAX_PER_SURFACE
    clock: Callable[[], int] = lambda: 0           # the session's finished-turn count
    index: Index = field(init=False)
    fired_at: dict[str, int] = field(default_factory=dict)
    last_score: dict[str, float] = field(default_factory=dict)
    _forced: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.index = build_index(self.skills)
        self._by_name = {s.name: s for s in self.skills}

    def _refractory(self, name: str, now: int) -> bool:
        at = self.fired_at.get(name)
        return at is not None and now - at <= self.refractory_turns

    def activate(self, surface: str) -> list[tuple[str, str]]:
        """(name, body) of skills to add to context now: forced ones, then the best matches."""
        now = self.clock()
        fired: list[tuple[str, str]] = []
        for name in self._forced:
            self.fired_at[name] = now
            fired.append((name, self._by_name[name].body))
        self._forced.clear()
        scores = score(self.index, surface)
        self.last_score = dict(zip(self.index.names, scores, strict=True))
        for name in select(self.index.names, scores, self.threshold, self.limit):
            if self._refractory(name, now):  # also skips what was forced just above
                continue
            self.fired_at[name] = now
            fired.append((name, self._by_name[name].body))
        return fired

    def carried(self) -> list[tuple[str, str]]:
        """Skills fired in an earlier turn and still within their refractory window."""
        now = self.clock()
        return [(name, self._by_name[name].body) for name, at in self.fired_at.items()
                if at < now and now - at <= self.refractory_turns]

    def list(self) -> list[tuple[str, str, float | None]]:
        """(name, description, last score or None) for ``/skills``, by name."""
        return [(s.name, s.description, self.last_score.get(s.name))
                for s in sorted(self.skills, key=lambda s: s.name)]

    def force(self, name: str) -> tuple[str, str] | None:
        """Activate ``name`` at the next ``activate`` call, refractory or not; None if unknown."""
        skill = self._by_name.get(name)
        if skill is None:
            return None
        self.fired_at.pop(name, None)  # not carried now: it will be delivered as fresh
        if name not in self._forced:
            self._forced.append(name)
        return name, skill.body
