"""A system prompt that stays byte-stable for a whole session, and reminders for what changes.

Guarantees (ADR-0042):
- ``system(session)`` is computed once per session, at its first model call, from what holds
  then: the project's instructions, the facts active then, and the session's start date. Every
  later call of the session — and ``-c``/``-r`` continuing it, from the ``system`` mark in its
  log — sends the same bytes, so the provider's prompt cache is never invalidated by it.
- What changes later travels as one short ``<system-reminder>`` text block at the end of the
  next user message (after the previous call's cache breakpoint): facts that became active
  since they were last told, skills fired now, and the date when it has moved on. Each is told
  once; the message is part of the conversation, so later calls repeat it byte for byte.
- Only active facts reach either (design.md §3.7): both read ``session.facts()``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from edgar.core.context import NOTICED, FactLike, system_prompt
from edgar.core.views import Marks


@dataclass
class PromptState:
    """What the model has been told in this session: the frozen system prompt and since."""

    text: str | None = None
    facts: set[str] = field(default_factory=set)   # facts in the system prompt or reminded
    day: str = ""                                  # the date the model was last told

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "facts": sorted(self.facts), "day": self.day}

    @staticmethod
    def from_json(data: Any) -> PromptState:
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            return PromptState()
        facts = data.get("facts")
        day = data.get("day")
        return PromptState(data["text"],
                           {f for f in facts if isinstance(f, str)}
                           if isinstance(facts, list) else set(),
                           day if isinstance(day, str) else "")


PLAN_MODE = ("<system-reminder>\nPlan mode is on: the user wants a plan before any change. "
             "Read, search and think as much as you need; do not edit files or run commands "
             "that change anything (they are refused). When the plan is complete, call "
             "exit_plan_mode with it, in Markdown: the user approves it or asks for another.\n"
             "</system-reminder>")


class PromptTools(Protocol):
    """What the prompt reads of ``[tools]``: the directories the person added."""

    @property
    def add_dirs(self) -> list[str]: ...


class PromptSettings(Protocol):
    """What the prompt reads of the settings: the person's own words to end it with, and the
    directories the person added (``--add-dir``)."""

    @property
    def append_system_prompt(self) -> str | None: ...

    @property
    def system_prompt(self) -> str | None: ...

    @property
    def tools(self) -> PromptTools: ...


class PromptView(Protocol):
    """What the system prompt and its reminders read of a session: where, which facts are
    active, what the model has been told (``prompt``, changed in place) and the log."""

    @property
    def root(self) -> Path: ...

    @property
    def prompt(self) -> PromptState: ...

    @property
    def settings(self) -> PromptSettings: ...

    @property
    def log(self) -> Marks | None: ...

    def facts(self) -> Sequence[FactLike]: ...


def _today() -> datetime.date:
    return datetime.date.today()


def _text(fact: str | FactLike) -> str:
    return fact if isinstance(fact, str) else str(fact.text)


def _noticed(fact: str | FactLike) -> bool:
    return not isinstance(fact, str) and getattr(fact, "provenance", "") in NOTICED


def system(session: PromptView, today: datetime.date | None = None) -> str:
    """The session's system prompt: made on first use, then the same bytes every time."""
    state: PromptState = session.prompt
    if state.text is None:
        day = today or _today()
        facts = session.facts()
        state.text = system_prompt(session.root, facts, (), today=day,
                                   append=session.settings.append_system_prompt,
                                   base=session.settings.system_prompt,
                                   add_dirs=session.settings.tools.add_dirs)
        state.facts, state.day = {_text(f) for f in facts}, day.isoformat()
        if session.log is not None:   # what -c/-r continue from
            session.log.mark("system", **state.to_json())
    return state.text


def reminder(session: PromptView, skills: Iterable[tuple[str, str]] = (),
             today: datetime.date | None = None) -> str:
    """The reminder for the next user message, or "" when nothing changed."""
    system(session, today)
    state: PromptState = session.prompt
    parts: list[str] = []
    new = [f for f in session.facts() if _text(f) not in state.facts]
    told = [_text(f) for f in new if not _noticed(f)]
    noticed = [_text(f) for f in new if _noticed(f)]
    # the same words as the system prompt's sections (core/context.py), for what is new
    if told:
        parts.append("The user told you:\n" + "\n".join(f"- {f}" for f in told))
    if noticed:
        parts.append("edgar noticed in earlier sessions:\n" + "\n".join(f"- {f}" for f in noticed))
    state.facts.update(told + noticed)
    for name, body in skills:
        parts.append(f'<skill name="{name}">\n{body.strip()}\n</skill>')
    day = (today or _today()).isoformat()
    if state.day and day != state.day:
        parts.append(f"Today is now {day}.")
        state.day = day
    if not parts:
        return ""
    if session.log is not None:
        session.log.mark("system", **state.to_json())
    return "<system-reminder>\n" + "\n\n".join(parts) + "\n</system-reminder>"
