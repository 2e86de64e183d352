"""Lines typed while a turn runs (seed 002: a neighbouring project's ADR-161, not in adr/).

Guarantees: lines are delivered in the order typed, each exactly once; a delivery takes
every line queued since the last one and joins them into one burst (one user message, one
matcher surface).
"""

from __future__ import annotations


class PromptQueue:
    def __init__(self) -> None:
        self._lines: list[str] = []

    def put(self, text: str) -> None:
        self._lines.append(text)

    def __len__(self) -> int:
        return len(self._lines)

    def drain(self) -> list[str]:
        """Every queued line, oldest first; the queue is empty afterwards."""
        lines, self._lines = self._lines, []
        return lines

    @staticmethod
    def burst(lines: list[str]) -> str:
        return "\n".join(lines)
