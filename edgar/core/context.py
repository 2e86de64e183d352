"""The system prompt: who edgar is, the project's instructions, active facts, skills.

Guarantees: only active facts (and the person's own instruction files) reach a prompt;
telemetry, history and pending facts never do (design.md §3.7). Facts are bounded by
``memory.budget_chars``, newest first.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Iterable

from edgar.core.instructions import project_instructions

BASE = """You are edgar, a coding agent working in the user's repository from their terminal.
Use the tools to read, search, edit and run things; prefer small, verifiable steps; read a file
before editing it; keep answers short and concrete. Paths are relative to the project root."""


def _system_name() -> str:
    # platform.system() is os.uname().sysname wherever uname exists; importing platform
    # costs ~3 ms on every start, so it is only asked where there is no uname (Windows).
    if hasattr(os, "uname"):
        return os.uname().sysname
    import platform

    return platform.system()


def system_prompt(root: Path, facts: Iterable[str] = (), skills: Iterable[tuple[str, str]] = (),
                  today: datetime.date | None = None) -> str:
    day = (today or datetime.date.today()).isoformat()
    sections = [BASE, f"Project root: {root}\nPlatform: {_system_name()}\nToday: {day}"]
    instructions = project_instructions(root)
    if instructions:
        sections.append("Project instructions:\n" + instructions)
    facts = list(facts)
    if facts:
        sections.append("The user asked you to remember:\n" + "\n".join(f"- {f}" for f in facts))
    for name, body in skills:
        sections.append(f'<skill name="{name}">\n{body.strip()}\n</skill>')
    return "\n\n".join(sections)
