"""The REPL's one inline question after a turn that proposed a fact (issue 22, item 4).

Guarantees:
- At most one question per turn: ``after_turn`` asks about the oldest proposal
  (a pending ``user-prompt-implicit`` fact) this session added since the last question;
  any others stay pending for ``edgar memory review``, and the line says how many.
- ``answer`` reads the next typed line: ``y`` makes the fact active (``approve`` with the
  hash of the text shown: the person's ``y`` is typed), forgetting the rules of theirs it
  supersedes (ADR-0080); ``e`` puts the text in the prompt and the line typed next is the
  edited fact; ``n`` or an empty line turns it down (``rejected`` is kept, so the same text
  is not proposed again); any other line leaves it pending and is handled as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from edgar.cli.render import question
from edgar.memory.store import Fact, ReviewError, digest
from edgar.memory.subjects import superseded

YES = frozenset({"y", "yes"})
NO = frozenset({"", "n", "no"})
EDIT = frozenset({"e", "edit"})


@dataclass
class Asked:
    fact: Fact
    editing: bool = False


class Proposals:
    """The open question, if any; ``say`` writes a line, ``put_back`` fills the prompt."""

    def __init__(self, memory: Any, say: Callable[[str, str], None],
                 put_back: Callable[[str], None]) -> None:
        self.memory = memory
        self.say = say
        self.put_back = put_back
        self.asked: Asked | None = None
        self.seen = 0                      # the highest fact id already considered

    def after_turn(self, session_id: str) -> None:
        if self.memory is None or self.asked is not None:
            return
        mine = f"session {session_id} "
        new = sorted((f for f in self.memory.list("pending")
                      if f.provenance == "user-prompt-implicit" and f.id > self.seen
                      and f.source.startswith(mine)), key=lambda f: f.id)
        if not new:
            return
        self.seen = max(f.id for f in new)
        self.asked = Asked(new[0])
        self.say(question(new[0].text), "bold yellow")
        if len(new) > 1:
            self.say(f"  ({len(new) - 1} more proposal(s) wait in `edgar memory review`)", "dim")

    def answer(self, line: str) -> bool:
        """Handle ``line`` as the answer; False when it is no answer (handle it as usual)."""
        asked = self.asked
        if asked is None:
            return False
        reply = line.strip()
        if asked.editing:
            self.asked = None
            if not reply:
                self.say(f"left pending: fact {asked.fact.id} (edgar memory review)", "dim")
                return True
            self._approve(asked.fact, self.memory.clean(reply), edited=True)
            return True
        if reply.lower() in YES:
            self.asked = None
            self._approve(asked.fact, asked.fact.text, edited=False)
        elif reply.lower() in EDIT:
            asked.editing = True
            self.put_back(asked.fact.text)
            self.say("edit the fact and press Enter (an empty line leaves it pending)", "dim")
        elif reply.lower() in NO:
            self.asked = None
            self.memory.reject(asked.fact.id)
            self.say(f"not remembered (fact {asked.fact.id}; it will not be asked again)", "dim")
        else:
            self.asked = None
            self.say(f"left pending: fact {asked.fact.id} (edgar memory review)", "dim")
            return False
        return True

    def _approve(self, fact: Fact, shown: str, edited: bool) -> None:
        old = superseded(self.memory.list("active"), shown)
        try:
            stored = self.memory.approve(fact.id, digest(shown), shown if edited else None,
                                         replacing=[f.id for f in old])
        except ReviewError as exc:
            self.say(f"edgar: {exc}", "yellow")
            return
        tail = (f"replaces fact {old[0].id}: {old[0].text}" if old
                else f"/forget {stored.id}")
        self.say(f"remembered: {stored.text} (fact {stored.id} · {tail})", "dim")
