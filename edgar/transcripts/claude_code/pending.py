"""Queued text waiting for the record that repeats it (``enqueue`` before its ``user`` record).

``PendingTexts`` holds the typed messages found only in a queue, oldest first, and hands
each one back to the caller's ``place`` (``exchanges.Builder``) when it settles. Pure:
no I/O.

Guarantees:
- FIFO, as Claude Code's queue is: when a record repeats a pending text, everything queued
  before it settles first, in that order, and what was queued after it keeps waiting.
- At most ``MAX_PENDING`` texts wait; beyond that the oldest settles.
- Settling pops one text at a time, so while a text is being placed, the ones behind it
  still count in ``anchor``/``anchors`` (the caller prunes what it remembers by them).
- ``anchor(own)`` is the earliest (offset, line) a re-read must start from to rebuild
  something created now: its own point, or an earlier pending text's, since a later record
  may still repeat that text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .values import Typed

MAX_PENDING = 64  # queued texts awaiting a repeat; beyond it the oldest settles

Anchor = tuple[int, int]  # (offset, line) where a re-read must start


@dataclass
class Pending:
    """One queued text no record has repeated yet."""

    typed: Typed
    offset: int
    key: str  # ``text.dedupe_key`` of its text: what a repeat matches on
    seq: int  # main-chain assistant records seen when it was queued (bursts break on them)
    anchor: Anchor  # where a re-read must start to rebuild it


Place = Callable[[Typed, int, int], list]  # (typed, offset, seq) -> items it completes


class PendingTexts:
    """The queue of pending texts; ``place`` receives each one that settles."""

    def __init__(self, place: Place):
        self.items: list[Pending] = []
        self.place = place

    def __bool__(self) -> bool:
        return bool(self.items)

    def _pop(self) -> list:
        p = self.items.pop(0)
        return self.place(p.typed, p.offset, p.seq)

    def settle(self) -> list:
        """Every pending text was never repeated: each is typed text of its own."""
        items: list = []
        while self.items:
            items += self._pop()
        return items

    def add(self, typed: Typed, offset: int, key: str, seq: int, anchor: Anchor) -> list:
        """Queue a text; returns what settling the oldest (beyond ``MAX_PENDING``) completes."""
        self.items.append(Pending(typed, offset, key, seq, anchor))
        items: list = []
        while len(self.items) > MAX_PENDING:
            items += self._pop()
        return items

    def repeat(self, key: str) -> tuple[list, Pending | None]:
        """A record with the text ``key`` arrives: (items completed, the text it repeats).

        With a match, what was queued before it settles (delivered or dropped without a
        repeat, in the exchange it was typed in) and the match leaves the queue. Without
        one, nothing that waits can be repeated any more, so all of it settles.
        """
        match = next((p for p in self.items if p.key == key), None)
        if match is None:
            return self.settle(), None
        items: list = []
        while self.items[0] is not match:
            items += self._pop()
        self.items.pop(0)
        return items, match

    def anchor(self, own: Anchor) -> Anchor:
        return min([own] + [p.anchor for p in self.items])

    def anchors(self) -> list[Anchor]:
        return [p.anchor for p in self.items]

    def typed(self) -> tuple[Typed, ...]:
        return tuple(p.typed for p in self.items)
