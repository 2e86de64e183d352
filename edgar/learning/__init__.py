"""The learning package: attached by name, deletable whole (seed 004, ADR-0011, NFR-12).

Guarantee: nothing outside this package imports it; ``cli/setup.py`` reaches ``attach``
through ``importlib.import_module("edgar.learning")``, so edgar runs without it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # imported by attach(): `edgar stats` and `edgar import` need none of it
    from edgar.bus import Bus
    from edgar.learning.experience import Experience
    from edgar.memory.store import MemoryStore


class Learning:
    """The handle `cli/setup.py` keeps: closes the telemetry database with the session."""

    def __init__(self, experience: Experience) -> None:
        self.experience = experience

    def close(self) -> None:
        self.experience.close()


def attach(bus: Bus, *, state: Path, memory: MemoryStore, redact: Callable[[str], str],
           history: bool = True) -> Learning:
    """Wire the three subscribers onto one session's bus; ``.close()`` when the session ends."""
    from edgar.events import Event, PromptTyped, ToolFinished
    from edgar.learning.error_facts import ErrorFacts
    from edgar.learning.experience import Experience, Recorder
    from edgar.learning.history import History
    from edgar.learning.learner import Learner

    experience = Experience(state / "experience.db", redact=redact)
    sinks = [experience.record] + ([History(state, redact).append] if history else [])
    bus.subscribe(PromptTyped, Learner(memory, bus.publish))
    bus.subscribe(Event, Recorder(sinks, redact))
    bus.subscribe(ToolFinished, ErrorFacts(experience, memory, bus.publish))
    return Learning(experience)
