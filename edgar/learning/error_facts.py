"""Error facts: four harness fields, a sentence we wrote, and three strikes (seed 004, stop 3).

Guarantees:
- Only ``ToolFinished.error`` is read: an ``ErrorRecord`` whose fields (tool, kind, exit
  code, program) the harness computed. No stderr, tool output or model text is ever seen.
- A fact is ``template(record)``: a sentence from ``TEMPLATES`` whose blanks are filled only
  from those fields, with ``tool`` and ``program`` scrubbed by ``UNSAFE`` and cut to
  ``PROGRAM_MAX`` characters. ``program`` is set only when the harness could vouch for it
  (an executable on PATH, a file tracked by git); without it the sentence says "a project
  command", so no name the model made up reaches a fact (ADR-0021).
- The fact is saved (provenance ``error-template``) once the same ``key()`` has failed in
  ``REPEATS`` distinct sessions, and ``mark_saved`` makes that once per key, forever; each
  one saved is published as ``FactLearned``.
- No template, so never counted: ``denied`` (the person or the permission mode refused:
  a fact about the person, not the project), ``exit_answer`` (grep found nothing, diff found
  a difference: an answer, not a failure), ``validation``, ``cancelled``, ``provider_http``,
  ``internal``, ``subagent_failed`` and ``max_turns``: none of them is a fact about the project.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from edgar.events import ErrorRecord, Event, FactLearned, ToolFinished

REPEATS = 3          # twice is a model retrying inside one turn; three sessions is the project
UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")
PROGRAM_MAX = 40
UNVOUCHED = "a project command"   # what a fact says when the harness cannot name the program

# ``{program}`` is '"name"' (quoted) or UNVOUCHED; ``{tool}`` and ``{code}`` as recorded.
TEMPLATES: dict[str, str] = {
    "exit_nonzero": "Running {program} with the {tool} tool has exited with code {code} in"
                    " several separate sessions here; check how this project expects it to be"
                    " run before calling it again.",
    "timeout": "Running {program} with the {tool} tool has timed out in several separate"
               " sessions here; give it a narrower target or a longer timeout.",
    "not_found": "The {tool} tool has failed to find {program} in several separate sessions"
                 " here; check that it exists or is installed before relying on it.",
    "permission_denied": "The {tool} tool has been refused access by the system ({program})"
                         " in several separate sessions here; leave those files and commands"
                         " alone or ask the person.",
    "edit_no_match": "Edits here have failed to find the text to replace in several separate"
                     " sessions; read the file again right before editing it.",
    "edit_not_unique": "Edits here have matched more than one place in several separate"
                       " sessions; include more surrounding lines so the match is unique.",
    "io_error": "The {tool} tool has hit input/output errors ({program}) in several"
                " separate sessions here; check disk space and file permissions.",
}


def _scrub(value: str | None, default: str) -> str:
    text = UNSAFE.sub("_", value or "")[:PROGRAM_MAX]
    return text or default


def key(record: ErrorRecord) -> tuple[str, str, str, int | None]:
    """What counts as "the same failure": (tool, kind, program, exit code)."""
    return (_scrub(record.tool, "tool"), record.kind, _scrub(record.program, ""),
            record.exit_code if isinstance(record.exit_code, int) else None)


def template(record: ErrorRecord) -> str | None:
    """The fact for this failure, written by us with the four fields filled in, or None."""
    sentence = TEMPLATES.get(record.kind)
    if sentence is None:
        return None
    tool = _scrub(record.tool, "tool")
    code = record.exit_code if isinstance(record.exit_code, int) else "unknown"
    name = _scrub(record.program, "")
    return sentence.format(tool=tool, program=f'"{name}"' if name else UNVOUCHED, code=code)


class ErrorFacts:
    """Subscriber: a ``ToolFinished`` with an error → counted → a templated fact on strike three."""

    def __init__(self, experience, memory, publish: Callable[[Event], None] | None = None) -> None:
        self.experience = experience
        self.memory = memory
        self.publish = publish
        self._noted: set[tuple[str, str]] = set()   # (key, session) already counted here


    def __call__(self, event: Event) -> None:
        if type(event) is not ToolFinished or event.error is None:
            return
        record = event.error
        text = template(record)
        if text is None:
            return
        name = json.dumps(key(record))
        if (name, event.session_id) in self._noted:
            return                  # a retry in the same session changes no count
        count = self.experience.seen(name, event.session_id)
        self._noted.add((name, event.session_id))
        if count < REPEATS:
            return
        if self.experience.is_saved(name):
            return
        # Add first, then mark: a crash in between retries the add, which the store
        # de-duplicates; the other order could lose the fact forever.
        fact = self.memory.add(text, "error-template",
                               source=f"failed in {REPEATS}+ sessions, last session "
                                      f"{event.session_id} turn {event.turn_id or '-'}")
        self.experience.mark_saved(name)
        if fact is not None and self.publish is not None:
            self.publish(FactLearned(fact_id=fact.id, text=fact.text, provenance=fact.provenance,
                                     session_id=event.session_id, turn_id=event.turn_id))
