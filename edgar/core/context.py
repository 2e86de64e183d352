"""The system prompt: who edgar is, the project's instructions, active facts, skills.

Guarantees: only active facts (and the person's own instruction files) reach a prompt;
telemetry, history and pending facts never do (design.md §3.7). Facts are bounded by
``memory.budget_chars``, newest first, and grouped by where they came from: what the person
typed or approved under "The user told you:", what edgar noticed from repeated failures
(``error-template``) under "edgar noticed in earlier sessions:" — an error fact is never
presented as something the user asked.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from edgar.core.instructions import project_instructions

BASE = """You are edgar, a coding agent working in the user's repository from their terminal.
Use the tools to read, search, edit and run things; prefer small, verifiable steps; read a file
before editing it; keep answers short and concrete. Paths are relative to the project root."""


NOTICED = frozenset({"error-template"})   # provenances edgar wrote itself, from failures


class FactLike(Protocol):
    """What a prompt needs of a fact (``memory.store.Fact`` is one); read-only, as it is frozen."""

    @property
    def text(self) -> str: ...

    @property
    def provenance(self) -> str: ...


def _system_name() -> str:
    # platform.system() is os.uname().sysname wherever uname exists; importing platform
    # costs ~3 ms on every start, so it is only asked where there is no uname (Windows).
    if hasattr(os, "uname"):
        return os.uname().sysname
    import platform

    return platform.system()


def system_prompt(root: Path, facts: Iterable[str | FactLike] = (),
                  skills: Iterable[tuple[str, str]] = (),
                  today: datetime.date | None = None, append: str | None = None,
                  add_dirs: Iterable[str] = (), base: str | None = None) -> str:
    """``append``: the person's own words for the end (``--append-system-prompt``);
    ``add_dirs``: the directories the person added (``--add-dir``), named for the model;
    ``base``: the person's words in place of edgar's opening paragraph (``--system-prompt``;
    the project root, instructions, facts, skills and ``append`` stay)."""
    day = (today or datetime.date.today()).isoformat()
    where = f"Project root: {root}"
    added = [os.path.realpath(os.path.expanduser(d)) for d in add_dirs]
    if added:
        where += ("\nAdditional working directories (the tools read and write them too; give "
                  "their paths absolute): " + ", ".join(added))
    opening = base.strip() if base and base.strip() else BASE
    sections = [opening, f"{where}\nPlatform: {_system_name()}\nToday: {day}"]
    instructions = project_instructions(root)
    if instructions:
        sections.append("Project instructions:\n" + instructions)
    told: list[str] = []
    noticed: list[str] = []
    for fact in facts:           # a bare string is a fact the person typed or approved
        if isinstance(fact, str):
            told.append(fact)
        else:
            (noticed if fact.provenance in NOTICED else told).append(fact.text)
    if told:
        sections.append("The user told you:\n" + "\n".join(f"- {f}" for f in told))
    if noticed:
        sections.append("edgar noticed in earlier sessions:\n" +
                        "\n".join(f"- {f}" for f in noticed))
    for name, body in skills:
        sections.append(f'<skill name="{name}">\n{body.strip()}\n</skill>')
    if append and append.strip():
        sections.append(append.strip())
    return "\n\n".join(sections)
