"""The learner: a message a person typed → its facts (seed 004, stop 1; ADR-0017, ADR-0021,
ADR-0080).

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

from collections.abc import Callable
from typing import TYPE_CHECKING

from edgar.learning.hearing import Heard, hear
from edgar.learning.sentence import (
    DIRECTIVE,
    LONGEST,
    PASTE,
    SHORTEST,
    extract,
    plain,
    remembered,
)

if TYPE_CHECKING:   # imported by Learner: `edgar import` runs extract() without the events
    from edgar.events import Event

__all__ = ["DIRECTIVE", "LONGEST", "PASTE", "SHORTEST", "Learner", "extract", "plain",
           "remembered"]


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
        from edgar.events import PromptTyped  # (already loaded by the bus)

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
