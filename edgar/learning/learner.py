"""The learner: a line a person typed → at most one fact (seed 004, stop 1; ADR-0017).

Guarantees:
- ``Learner`` acts only on a ``PromptTyped`` at depth 0. That type check is the whole
  security argument: only ``cli/repl.py``'s ``submit()`` and ``cli/oneshot.py``'s
  ``run_prompt()`` build one, so model text, tool output, attachments and subagent prompts
  can never reach ``extract()``.
- ``extract()`` is pure (no I/O, no state): a line starting with a ``DIRECTIVE`` word whose
  normalised length is within ``SHORTEST``..``LONGEST`` becomes one line of plain text;
  anything else is ``None``. It is idempotent: ``extract(extract(x)) == extract(x)``.
- Facts are saved with provenance ``user-prompt``; the store normalises, redacts and
  refuses duplicates.
"""

from __future__ import annotations

import re
import unicodedata

from edgar.events import Event, PromptTyped

DIRECTIVE = re.compile(r"(?:always|never|remember that)\b", re.IGNORECASE)
SHORTEST = 12     # "never push" is a shrug, not a rule worth a slot in every prompt
LONGEST = 300     # past this it is a paste or an essay, not one rule

_WHITESPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    # Control and format characters (NUL, ESC, zero-width, bidi overrides) have no place in
    # text that goes into every system prompt; line breaks fold into spaces.
    kept = []
    for char in text:
        if unicodedata.category(char)[0] == "C":
            kept.append(" " if char.isspace() or char in "\x00\x1b" else "")
        else:
            kept.append(char)
    return _WHITESPACE.sub(" ", "".join(kept)).strip()


def extract(line: str) -> str | None:
    """The fact a typed line states, as one line of plain text, or None."""
    text = _plain(line)
    if not DIRECTIVE.match(text):
        return None
    if not SHORTEST <= len(text) <= LONGEST:
        return None
    return text


class Learner:
    """Subscriber: depth-0 ``PromptTyped`` → ``extract()`` → ``memory.add(…, "user-prompt")``."""

    def __init__(self, memory) -> None:
        self.memory = memory

    def __call__(self, event: Event) -> None:
        if type(event) is not PromptTyped or event.depth != 0:
            return                      # not typed by a person: never looked at
        fact = extract(event.text)
        if fact is not None:
            self.memory.add(fact, "user-prompt",
                            source=f"session {event.session_id} turn {event.turn_id or '-'}")
