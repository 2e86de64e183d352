"""cc_pending.PendingTexts: queued text waits for its repeat, first in, first out, bounded."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from edgar.transcripts.claude_code.pending import MAX_PENDING, PendingTexts
from edgar.transcripts.claude_code.values import Typed


def _typed(line: int, text: str) -> Typed:
    return Typed("f.jsonl", line, "s", None, "enqueue", text, True)


def _queue() -> tuple[PendingTexts, list[tuple[int, int, int]]]:
    placed: list[tuple[int, int, int]] = []

    def place(t: Typed, offset: int, seq: int) -> list:
        placed.append((t.line, offset, seq))
        return [t.line]

    return PendingTexts(place), placed


def test_a_repeat_settles_what_was_queued_before_it_and_leaves_what_came_after():
    q, placed = _queue()
    for line, key in [(1, "a"), (2, "b"), (3, "c")]:
        added = q.add(_typed(line, key), line * 10, key, seq=line, anchor=(line * 10, line - 1))
        assert added == []
    items, match = q.repeat("b")
    assert match is not None and match.typed.line == 2
    assert items == [1] and placed == [(1, 10, 1)]
    assert q.typed() == (_typed(3, "c"),)
    assert q.anchors() == [(30, 2)]


def test_text_no_pending_entry_repeats_settles_everything_in_order():
    q, placed = _queue()
    q.add(_typed(1, "a"), 10, "a", 0, (10, 0))
    q.add(_typed(2, "b"), 20, "b", 0, (20, 1))
    items, match = q.repeat("z")
    assert match is None and items == [1, 2] and not q


def test_beyond_the_bound_the_oldest_settles():
    q, placed = _queue()
    for line in range(1, MAX_PENDING + 1):
        assert q.add(_typed(line, str(line)), line, str(line), 0, (line, line - 1)) == []
    assert q.add(_typed(999, "x"), 999, "x", 0, (999, 998)) == [1]
    assert len(q.typed()) == MAX_PENDING and q.typed()[0].line == 2


def test_settling_pops_one_at_a_time_so_the_rest_stay_visible():
    seen: list[list[tuple[int, int]]] = []
    q = PendingTexts(lambda t, offset, seq: seen.append(q.anchors()) or [])
    q.add(_typed(1, "a"), 10, "a", 0, (10, 0))
    q.add(_typed(2, "b"), 20, "b", 0, (20, 1))
    q.settle()
    assert seen == [[(20, 1)], []]


@given(st.lists(st.integers(0, 5), max_size=80), st.integers(0, 5))
def test_anchor_is_the_earliest_point_still_pending(keys, own):
    q, _ = _queue()
    for i, k in enumerate(keys, 1):
        q.add(_typed(i, str(k)), i * 7, str(k), 0, (i * 7, i - 1))
    anchors = q.anchors()
    assert q.anchor((own, own)) == min([(own, own)] + anchors)
    assert len(anchors) == min(len(keys), MAX_PENDING)
