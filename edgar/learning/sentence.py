"""The rule one line states, purely: ``extract()`` and the text rules it stands on (seed 004,
stop 1; ADR-0017, ADR-0021). ``learner.py`` re-exports these names, which are the learning
package's spec; they live here so that ``hearing.py`` (every clause of a message) and the
``Learner`` that calls it can both use them without importing each other.

Guarantees: as ``learner.py``'s docstring states for ``extract()`` and ``remembered()``: pure
(no I/O, no state), idempotent, never longer than the input, never text from another sentence.
"""

from __future__ import annotations

import re
import unicodedata

from edgar.learning import grammar

__all__ = ["DIRECTIVE", "LONGEST", "PASTE", "SHORTEST", "extract", "plain", "remembered"]

DIRECTIVE = re.compile(r"(?:always|never|remember\s+that)\b", re.IGNORECASE)
SHORTEST = 12     # "never push" is a shrug, not a rule worth a slot in every prompt
LONGEST = 300     # past this it is a paste or an essay, not one rule
PASTE = 20_000    # a line this long was pasted, not typed; it states no rule

_WHITESPACE = re.compile(r"[^\S\n]+")
_BREAKS = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# A sentence ends at "." "!" "?" ";" (with closing quotes or brackets) before a space or
# the end, or at a line break. A "." must follow a non-space (" ." in "ruff check ." is not
# an end) and must not close an abbreviation ("e.g.").
_END = re.compile(r"(?<=\S)(?:[.!?;]+[\"'’”)\]]*)(?=\s|$)|\n")
_AFTER_DIRECTIVE = re.compile(r"\s+(\S+)")


def plain(text: str) -> str:
    """``text`` as plain lines: control and format characters dropped, spaces folded."""
    # Control and format characters (NUL, ESC, zero-width, bidi overrides) have no place in
    # text that goes into every system prompt. Line breaks end a sentence, so they are kept
    # as "\n" here; other whitespace folds to one space.
    kept = []
    for char in _BREAKS.sub("\n", text):
        if char == "\n":
            kept.append(char)
        elif unicodedata.category(char)[0] == "C":
            kept.append(" " if char.isspace() or char in "\x00\x1b" else "")
        else:
            kept.append(char)
    lines = (_WHITESPACE.sub(" ", line).strip() for line in "".join(kept).split("\n"))
    return "\n".join(line for line in lines if line)


def _sentence(text: str) -> tuple[str, str]:
    """(the first sentence of ``text``, the mark that ended it: "", "\n" or punctuation)."""
    for match in _END.finditer(text):
        if match.group() == "\n":
            return text[:match.start()], "\n"
        mark = match.group()
        if mark.startswith(".") and len(mark.rstrip("\"'’”)]")) == 1:
            word = text[:match.start()].rsplit(None, 1)[-1].lstrip("(\"'").lower()
            if word in grammar.ABBREVIATIONS:
                continue
        return text[:match.end()], mark
    return text, ""


def _states_a_rule(sentence: str, mark: str) -> bool:
    if "?" in mark or grammar.IDIOM.match(sentence):
        return False
    directive = DIRECTIVE.match(sentence)
    if directive is None:
        return False
    if directive.group().lower().startswith("remember"):
        said = grammar.WORD.search(sentence, directive.end())
        return said is not None and not grammar.REMEMBER_REFERENCE.match(sentence)
    rest = sentence[directive.end():]
    for match in _AFTER_DIRECTIVE.finditer(rest):
        word = grammar.WORD.match(match.group(1))
        if word is None:
            token = match.group(1)
            if token[0].isdigit() and token.rstrip(".,!").endswith("s"):
                return False                           # "always 500s": a number as a verb
            return token[0] not in ".!?,;:"            # "always `make lint`", "never 2 tabs"
        if word.group().lower() in grammar.ADVERBS:
            continue
        return not grammar.describes(word.group())
    return False                                       # a directive word and nothing else


def extract(line: str) -> str | None:
    """The rule a typed line states, as one line of plain text, or None."""
    if len(line) > PASTE:
        return None
    fact = _rule(line)
    # A rule read again is the same rule; where trimming a courtesy left something that
    # reads differently ("remember that, thanks" → "remember that"), there was no rule.
    if fact is None or _rule(fact) != fact:
        return None
    return fact


def _rule(line: str) -> str | None:
    text = plain(line)
    lead = grammar.LEAD.match(text)
    text = text[lead.end():] if lead else text
    ever = grammar.DONT_EVER.match(text)
    if ever:
        text = ("Never" if text[0].isupper() else "never") + text[ever.end():]
    directive = DIRECTIVE.match(text)
    if directive is None or not text[directive.end():directive.end() + 1].isspace():
        return None                      # no directive first, or "never-ending", "always?"
    sentence, mark = _sentence(text)
    if not _states_a_rule(sentence, mark):
        return None
    fact = sentence.rstrip(";").strip()
    while True:
        shorter = grammar.TRAILING_COURTESY.sub("", fact).rstrip(" ,;:-–—")
        if shorter == fact:
            break
        fact = shorter
    if not SHORTEST <= len(fact) <= LONGEST:
        return None
    return fact


def remembered(line: str) -> str | None:
    """The fact a ``# text`` line asks for: its text after the ``#``, as one plain line (at
    most ``LONGEST`` characters), or None when nothing is left."""
    text = " ".join(plain(line.strip().removeprefix("#")).split("\n")).strip()
    return text if 0 < len(text) <= LONGEST else None
