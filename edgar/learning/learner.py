"""The learner: a message a person typed → its facts (seed 004, stop 1; ADR-0017, ADR-0021, ADR-0080).

Guarantees:
- ``Learner`` acts only on a ``PromptTyped`` at depth 0. That type check is the whole
  security argument: only ``cli/repl.py``'s ``submit()`` and ``cli/oneshot.py``'s
  ``run_prompt()`` build one, so model text, tool output, attachments and subagent prompts
  can never reach ``extract()``.
- ``extract()`` is pure (no I/O, no state) and returns the rule a line states, not the line:
  the sentence a ``DIRECTIVE`` word starts (after at most a short courtesy or transition such
  as "please", "ok now,", "thanks!", "from now on,"), up to that sentence's end, as one line
  of plain text of ``SHORTEST``..``LONGEST`` characters; "don't ever" is written "never".
  It is None for anything that only looks like a rule: idioms ("never mind"), a directive
  word followed by "?" or by nothing, a question, a description of behaviour ("always
  fails", "never seen …"), and lines longer than ``PASTE`` (a paste, not a typed rule).
- It is idempotent (``extract(extract(x)) == extract(x)``), never longer than its input, and
  never holds text from a sentence other than the one its directive word starts.
- A ``PromptTyped`` with ``remember`` (the person typed ``# text``) is saved as that text, no
  directive word needed (``remembered``): they asked for exactly this.
- ``Learner`` reads the whole message with ``hearing.hear()`` (every clause a candidate):
  rules are saved with provenance ``user-prompt`` (active), replacing the facts they
  supersede (ADR-0080), and published as ``FactLearned``; proposals are saved pending with
  provenance ``user-prompt-implicit`` and published as ``FactProposed``. The store
  normalises, redacts and refuses duplicates.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Callable

from edgar.learning import grammar

if TYPE_CHECKING:   # imported by Learner: `edgar import` runs extract() without the events
    from edgar.events import Event

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


class Learner:
    """Subscriber: depth-0 ``PromptTyped`` → ``hearing.hear()`` → facts.

    Each rule a message states becomes an active ``user-prompt`` fact, forgetting the active
    facts it supersedes (``memory/subjects.replaces``, ADR-0080); each proposal becomes a
    *pending* ``user-prompt-implicit`` fact (published as ``FactProposed``) for the person to
    accept or turn down. Typing a rule that is already stored but not active (pending,
    rejected or forgotten) is an explicit act: the fact becomes active again and that is
    announced too. A ``# text`` line is saved as that text, whole.
    """

    def __init__(self, memory, publish: Callable[[Event], None] | None = None) -> None:
        self.memory = memory
        self.publish = publish

    def __call__(self, event: Event) -> None:
        from edgar.events import PromptTyped   # (already loaded by the bus)
        from edgar.learning.hearing import Heard, hear

        if type(event) is not PromptTyped or event.depth != 0:
            return                      # not typed by a person: never looked at
        if event.remember:
            fact = remembered(event.text)
            said = [Heard("rule", fact)] if fact is not None else []
        else:
            said = hear(event.text)
        source = f"session {event.session_id} turn {event.turn_id or '-'}"
        for heard in said:
            if heard.kind == "rule":
                self._rule(heard.text, source, event)
            else:
                self._proposal(heard.text, source, event)

    def _rule(self, fact: str, source: str, event) -> None:
        from edgar.events import FactLearned
        from edgar.memory.subjects import superseded

        old = superseded(self.memory.list("active"), self.memory.clean(fact))
        stored = self.memory.add(fact, "user-prompt", source=source,
                                 replacing=[f.id for f in old])
        reactivated = False
        if stored is None:
            stored = self.memory.reactivate(fact, "user-prompt", source=source)
            reactivated = stored is not None
            old = []
        if stored is not None and self.publish is not None:
            self.publish(FactLearned(fact_id=stored.id, text=stored.text,
                                     provenance=stored.provenance, reactivated=reactivated,
                                     replaced_id=old[0].id if old else None,
                                     replaced_text=old[0].text if old else "",
                                     session_id=event.session_id, turn_id=event.turn_id))

    def _proposal(self, text: str, source: str, event) -> None:
        from edgar.events import FactProposed

        stored = self.memory.add(text, "user-prompt-implicit", source=source)
        if stored is not None and self.publish is not None:
            self.publish(FactProposed(fact_id=stored.id, text=stored.text, sha256=stored.sha256,
                                      session_id=event.session_id, turn_id=event.turn_id))
