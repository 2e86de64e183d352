"""Streamed assistant records grouped into API messages, a bounded number at a time.

Claude Code writes one ``assistant`` record per content block, and the records
of one API message are not always adjacent (tool results and other messages
sit between them). ``OpenMessages`` holds the messages whose records may still
arrive and hands back the ones that are finished. How the records of one
message are merged is ``messages.Merged``'s job; what a finished message
means for the open exchange is ``exchanges.Builder``'s. Pure: no I/O.

Guarantees:
- Records are grouped by ``message.id``, then ``requestId``, then ``uuid``
  (then the line, for a record with none of them), within one exchange and
  one chain: the same id under another exchange, or in a sidechain, is
  another message.
- At most MAX_OPEN messages are open at once: a record that opens one more
  finishes the message that received a record longest ago.
- Every message is finished once and handed back in the order it finished.
  The keys of the last _RECENT finished messages are remembered, and a late
  record of one of them (a late sibling) is ignored: its usage was counted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from .messages import Merged
from .messages import text_or_none as _str

MAX_OPEN = 16  # assistant messages merged at once (siblings sit close together)
_RECENT = 256  # finished message keys remembered, to ignore late siblings


class OpenMessages:
    """The API messages still merging, least recently fed first."""

    def __init__(self) -> None:
        self.msgs: OrderedDict[tuple, Merged] = OrderedDict()
        self.done: OrderedDict[tuple, None] = OrderedDict()
        self.last: Merged | None = None  # the message fed last (already the newest in msgs)

    def add(self, record: dict, message: dict, model: str | None, line: int, offset: int,
            exchange_id: int | None, side: bool, session: str) -> list[Merged] | None:
        """Merge one assistant record (its ``message`` and ``model`` already read) into its
        message; return the messages finished for room, if any."""
        message_id = message.get("id")
        if type(message_id) is not str:
            message_id = None
        mid = (message_id or _str(record.get("requestId")) or _str(record.get("uuid"))
               or f"line {line}")
        key = (exchange_id, side, mid)
        last = self.last
        if last is not None and last.key == key:
            last.add(record, message, model)   # the usual case: the next block of the same message
            return None
        if key in self.done:
            return None  # a late sibling of a finished message: its usage was counted
        msgs = self.msgs
        m = msgs.get(key)
        if m is None:
            m = msgs[key] = Merged(key, exchange_id, session, line, offset, message_id)
        else:
            msgs.move_to_end(key)
        self.last = m
        m.add(record, message, model)
        if len(msgs) <= MAX_OPEN:
            return None
        finished: list[Merged] = []
        while len(msgs) > MAX_OPEN:
            finished.append(self._done(msgs.popitem(last=False)[1]))
        return finished

    def finish(self, which: Callable[[Merged], bool] | None = None) -> list[Merged]:
        """Finish the open messages ``which`` selects (all by default), oldest first."""
        keys = [k for k, m in self.msgs.items() if which is None or which(m)]
        return [self._done(self.msgs.pop(key)) for key in keys]

    def anchors(self) -> list[tuple[int, int]]:
        """(offset, line) where a re-read must start to rebuild each open message."""
        return [(m.offset, m.line - 1) for m in self.msgs.values()]

    def _done(self, m: Merged) -> Merged:
        if m is self.last:
            self.last = None
        self.done[m.key] = None
        if len(self.done) > _RECENT:
            self.done.popitem(last=False)
        return m
