"""What a whole typed message says: every clause a candidate (issue 22; docs/learning.md §1).

Guarantees:
- ``clauses()`` splits a message at sentence ends (``.`` ``!`` ``?`` ``;`` before a space),
  line breaks and bullets; never inside a code span, a quotation or a fenced block, and a
  fenced block is no clause at all (code and pasted output are never rules).
- ``hear()`` is pure and returns, in message order, what each clause states: a ``rule``
  (the directive form: ``always`` / ``never`` / ``remember that``, after lead-ins, bullets,
  emphasis and a ``Label:``; a leading condition "If …, never …" stays part of it) or a
  ``proposal`` (a standing instruction without the directive form: "from now on …",
  "stop using …", "use X instead of Y", "use X, not Y", "prefer …", "don't … anymore",
  "I prefer …", "we should always …"). A time-bound clause ("until Friday", "tomorrow",
  "on 10 September", "for now") is neither. A question is neither, but a ``?`` inside
  quotes or code does not make one.
- The text of a rule or proposal is the clause's own words without lead-ins, bullet and
  emphasis markers, "remember that", "please" or "from now on": never longer than the
  message, never words from another clause, and hearing it again (as typed, with
  "remember that" in front where it had it) gives the same text back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from edgar.learning import grammar
from edgar.learning.sentence import LONGEST, PASTE, SHORTEST, extract, plain

Kind = Literal["rule", "proposal"]
PROPOSAL_SHORTEST = 8     # "use pnpm": an instruction with its object is this short


@dataclass(frozen=True, slots=True)
class Heard:
    kind: Kind
    text: str


_FENCE = re.compile(r"^\s*(```|~~~)")
# spans whose insides are never split and never read as a question: `code`, "quoted", “quoted”
_PROTECTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”")
_END = re.compile(r"(?<=\S)[.!?;]+[\"'’”)\]]*(?=\s|$)")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
# ❌, ✅, →, …, emoji before the words (symbols and "…"; never "@", "#", "/" or "!": those
# start a mention, a path or a command)
_SYMBOLS = re.compile(r"^(?:[\u2190-\u2bff\u2026\u00b7\U0001f000-\U0001faff\ufe0f]+\s*)+")
_EMPHASIS = re.compile(r"(?<![\w*])(\*\*|__|\*|_)(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
# "Python:", "Remember:", "LEVEL 1 (Strictly Local):", "IMPORTANT DATE REMINDER:"
_LABEL = re.compile(r"^(?:[\w][\w'’ ()/&+.-]{0,40}?)\s*:\s+")
_NO = re.compile(r"^(?:no|nope|nah|wait)(?:\s*[,.!:;\-–—]+\s*|\s+)", re.IGNORECASE)
_REMEMBER = re.compile(r"remember\s+that\s+", re.IGNORECASE)
_CONDITION = re.compile(
    r"^(?:if|when|whenever|before|after|unless|once|while)\b[^,;—–]{2,160}?"
    r"(?:,|\s[—–-]\s)\s*(?=(?:always|never)\b)", re.IGNORECASE)


def clauses(message: str) -> list[str]:
    """The clauses of ``message``, in order, as plain one-line strings (no fenced blocks)."""
    if len(message) > PASTE:
        return []
    kept: list[str] = []
    fenced = False
    for line in plain(message).split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line)
    out: list[str] = []
    for line in kept:
        out.extend(_split_line(line))
    return [c for c in (c.strip() for c in out) if c]


def _mask(text: str) -> str:
    """``text`` with every character inside a protected span replaced, same length."""
    return _PROTECTED.sub(lambda m: m.group()[0] + "x" * (len(m.group()) - 2) + m.group()[-1],
                          text)


def _split_line(line: str) -> list[str]:
    masked = _mask(line)
    pieces: list[str] = []
    start = 0
    for match in _END.finditer(masked):
        mark = match.group()
        if mark.startswith(".") and len(mark.rstrip("\"'’”)]")) == 1:
            words = masked[start:match.start()].rsplit(None, 1)
            word = words[-1].lstrip("(\"'").lower() if words else ""
            if word in grammar.ABBREVIATIONS or (word.isdigit() and not masked[:start].strip()
                                                  and not masked[start:match.start()].strip(
                                                      ).count(" ")):
                continue                     # "e.g. ruff", "1. Always …" (a numbered item)
        pieces.append(line[start:match.end()])
        start = match.end()
    pieces.append(line[start:])
    return pieces


def _strip_markers(clause: str) -> str:
    """Bullets, leading symbols, emphasis markers, ``Label:`` prefixes and "no," dropped."""
    text = clause
    for _ in range(4):
        before = text
        text = _BULLET.sub("", text)
        text = _unemphasise(text)
        text = _SYMBOLS.sub("", text)
        label = _LABEL.match(text)
        if label and _LABEL.sub("", text, count=1):
            rest = text[label.end():]
            if _starts_a_form(rest):
                text = rest
        text = _NO.sub("", text)
        if text == before:
            break
    return text.strip()


def _unemphasise(text: str) -> str:
    # emphasis outside code spans only: `**kwargs` stays as typed
    parts = re.split(r"(`[^`\n]*`)", text)
    return "".join(p if p.startswith("`") else _EMPHASIS.sub(r"\2", p) for p in parts)


def _starts_a_form(text: str) -> bool:
    rest = grammar.LEAD.sub("", text, count=1)
    return bool(re.match(r"(?:always|never|remember\s+that|don'?t\s+ever|do\s+not\s+ever)\b",
                         rest, re.IGNORECASE) or _implicit(text) or _CONDITION.match(rest))


def _rule(clause: str) -> str | None:
    """The rule a marker-free clause states in the directive form, or None."""
    if grammar.TIME_BOUND.search(clause):
        return None
    condition = _CONDITION.match(clause)
    if condition:
        rest = _rule(clause[condition.end():])
        if rest is None or grammar.REMEMBER.match(rest):
            return None
        fact = clause[:condition.end()] + rest
        return fact if len(fact) <= LONGEST else None
    masked = _mask(clause)
    found = extract(masked)
    if found is None:
        return None
    if found == masked[-len(found):] or masked.find(found) >= 0:
        at = masked.find(found)
        fact = clause[at:at + len(found)] if at >= 0 else found
    else:                                # "don't ever" rewritten to "never": no masking there
        fact = found if _mask(found) == found else ""
    if not fact:
        return None
    remember = _REMEMBER.match(fact)
    if remember:
        fact = fact[remember.end():]
        if (len(fact) < SHORTEST or grammar.TIME_BOUND.search(fact)
                or not re.match(r"[\w`\"'“(]", fact) or len(fact.split()) < 2):
            return None
    return fact.rstrip(":").strip()


def _implicit(clause: str) -> str | None:
    """The standing instruction a clause gives without the directive form, or None."""
    if grammar.TIME_BOUND.search(clause) or "?" in _mask(clause).rstrip(" .!,;:")[-1:]:
        return None
    text = grammar.COURTESY.sub("", clause, count=1)
    standing = grammar.STANDING_LEAD.match(text)
    if standing:
        text = grammar.COURTESY.sub("", text[standing.end():], count=1)
    trailing = grammar.STANDING_TRAIL.search(text)
    if trailing:
        text = text[:trailing.start()]
        standing = standing or trailing
    text = text.strip().rstrip(" .!,;:")
    if len(re.findall(r"[^\W_]{2,}", text)) < 2:
        return None                           # "stop using ?": a form with nothing in it
    if not PROPOSAL_SHORTEST <= len(text) <= LONGEST:
        return None
    if standing and grammar.IMPERATIVE.match(text):
        return text
    if grammar.IMPLICIT.match(text) and not grammar.NOT_A_PREFERENCE.match(text):
        return text
    return None


def hear(message: str) -> list[Heard]:
    """Every rule and proposal ``message`` states, in order; each text once."""
    out: list[Heard] = []
    seen: set[str] = set()
    for clause in clauses(message):
        text = _strip_markers(clause)
        if not text:
            continue
        rule = _rule(text)
        heard = Heard("rule", rule) if rule else None
        if heard is None:
            proposal = _implicit(text)
            heard = Heard("proposal", proposal) if proposal else None
        if heard is not None and heard.text.casefold() not in seen:
            seen.add(heard.text.casefold())
            out.append(heard)
    return out


def heard(message: str) -> tuple[list[str], list[str]]:
    """(the rules, the proposals) of ``message``: the shape bench/learner_quality.py scores."""
    said = hear(message)
    return ([h.text for h in said if h.kind == "rule"],
            [h.text for h in said if h.kind == "proposal"])

