"""Typed messages and exchanges from a stream of Claude Code records.

``Builder`` is fed one parsed record at a time (already shape-checked) and
returns what each record completes. Pure: no I/O.

Guarantees (seed 000 (ADR 0079 of a neighbouring project, amended by its 0082) plus seed 002's
aggregation):
- Only a typed message (see ``classify``) starts an exchange. A queued one
  (typed while the agent worked) joins the open exchange as a follow-up;
  queued messages with no assistant record between them form one ``Burst``.
- Client-written messages join the open exchange as labelled ``Evidence``;
  tool results are counted, not kept. Before the first typed message of a
  session nothing is learned (replies and evidence are dropped, tokens counted).
- Text found in ``enqueue`` waits ("pending") until a ``user`` record or a
  ``queued_command`` repeats it (then that record is the typed message and the
  enqueue is dropped) or until something shows it was never repeated: another
  typed message, a session change, or the end of a ``final`` scan. A record
  repeating queued text already in the open exchange is not counted again.
- Assistant records are merged by ``message.id`` (then ``requestId``, then
  ``uuid``) within the open exchange (``streamed``); blocks ordered by
  ``apiBlockIndex`` when every block has one, else file order; exact repeats
  dropped; usage is the per-field maximum over the records, never the sum;
  thinking kept apart (``messages``).
- Memory does not grow with the file, only with the open exchange (its
  replies, evidence and follow-ups): at most ``streamed.MAX_OPEN`` messages
  are merged at once (older ones are finished early), at most
  ``pending.MAX_PENDING`` queued texts wait (``pending``), and every set of seen keys or
  labels is capped or pruned.
- Resuming: lines at or before ``after_line`` were reported by an earlier
  scan; their typed messages (``emitted``) and counts are not reported again,
  nor are exchanges that started before ``open_line`` (emitted closed then).
  Every open exchange and pending text carries an *anchor*: the earliest line
  whose records still decide its outcome (a queued text pending when it was
  created may be repeated later). ``resume`` is the earliest anchor.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from .classify import classify, classify_queued
from .messages import Merged, Tally, bump
from .messages import text_or_none as _str
from .pending import PendingTexts
from .streamed import OpenMessages
from .text import dedupe_key
from .values import Burst, Evidence, Exchange, SessionStats, Typed

MAX_SESSIONS = 1000  # sessions with their own stats; the rest share "<other>"


@dataclass
class _Open:
    """The exchange being built (mutable while open)."""

    id: int
    question: Typed
    offset: int
    followups: list = field(default_factory=list)  # (Typed, seq)
    replies: list = field(default_factory=list)
    evidence: list = field(default_factory=list)
    queued_keys: set = field(default_factory=set)
    tool_results: int = 0
    end_line: int = 0
    ended: str | None = None  # timestamp of the last main-chain assistant record
    fresh: bool = True  # its question is reported by this scan (count it here)
    anchor: tuple = (0, 0)  # (offset, line) where a re-read must start to rebuild it


class Builder:
    """Feed records in file order with ``feed``; call ``finish`` once at the end."""

    def __init__(
        self,
        file: str,
        *,
        sidechain: bool = False,
        default_session: str = "",
        after_line: int = 0,
        emitted: tuple[int, ...] = (),
        session_id: str | None = None,
        open_line: int = 0,
    ):
        self.file = file
        self.sidechain = sidechain
        self.default_session = default_session
        self.after = after_line
        self.known: set[int] = set(emitted)  # typed lines already reported
        self.reported: set[int] = set(emitted)  # (for the next mark)
        self.session = session_id
        self.open_line = open_line  # exchanges starting before it were emitted closed
        self.resume: tuple[int, int] | None = None
        self.exchange: _Open | None = None
        self.pending = PendingTexts(self._place)  # queued text awaiting its repeat
        self.messages = OpenMessages()  # assistant messages still merging
        self.line = 0  # line being fed
        self.seq = 0  # main-chain assistant records seen: bursts break on them
        self.next_id = 0
        self.accs: dict[str, Tally] = {}
        self._tally_key: str | None = None  # the session whose Tally is ``_tally``
        self._tally = Tally()
        self.client: Counter = Counter()
        self.typed_count = 0
        self.exchange_count = 0

    # ----- helpers -------------------------------------------------------
    def _new(self, line: int) -> bool:
        return line > self.after

    def _acc(self, session: str) -> Tally:
        acc = self.accs.get(session)
        if acc is None:
            if len(self.accs) >= MAX_SESSIONS:
                session = "<other>"
            acc = self.accs.setdefault(session, Tally())
        return acc

    def _sid(self, record: dict) -> str:
        return _str(record.get("sessionId")) or self.session or self.default_session

    def _typed(self, record: dict, line: int, source: str, text: str, queued: bool,
               ts: object = None) -> Typed:
        ts = record.get("timestamp") if ts is None else ts
        return Typed(self.file, line, self._sid(record), _str(ts), source, text, queued,
                     _str(record.get("uuid")))

    def _emit(self, t: Typed) -> list:
        if t.line in self.known:
            return []  # reported by an earlier scan of this file
        self.known.add(t.line)
        self.reported.add(t.line)
        self.typed_count += 1
        self._acc(t.session_id).typed += 1
        return [t]

    # ----- exchanges ---------------------------------------------------------
    def _open(self, t: Typed, offset: int) -> list:
        items = self._close()
        # Messages still merging belong to what came before: finish them now,
        # so everything open afterwards lies inside this exchange.
        self._finish(self.messages.finish())
        self.exchange = _Open(
            self.next_id, t, offset, end_line=t.line, fresh=t.line not in self.known,
            anchor=self.pending.anchor((offset, t.line - 1)),
        )
        self.next_id += 1
        if t.queued:
            self.exchange.queued_keys.add(dedupe_key(t.text))
        self._prune()
        return items

    def _prune(self) -> None:
        # Typed lines below the oldest thing still open can never come again.
        point = self._resume_point()
        floor = point[1] + 1 if point else self.line
        self.known = {n for n in self.known if n >= floor}
        self.reported = {n for n in self.reported if n >= floor}

    def _place(self, t: Typed, offset: int, seq: int) -> list:
        """A typed message arrives: a follow-up if queued and an exchange is open."""
        ex = self.exchange
        if t.queued and ex is not None:
            ex.followups.append((t, seq))
            ex.queued_keys.add(dedupe_key(t.text))
            ex.end_line = max(ex.end_line, t.line)
            return self._emit(t)
        return self._open(t, offset) + self._emit(t)

    def _close(self, *, still_open: bool = False) -> list:
        ex = self.exchange
        if ex is None:
            return []
        self._finish(self.messages.finish(lambda m: m.exchange_id == ex.id))
        bursts: list[Burst] = []
        group: list[Typed] = []
        last_seq = None
        for t, seq in sorted(ex.followups, key=lambda p: p[0].line):
            if group and seq != last_seq:
                bursts.append(Burst(tuple(group)))
                group = []
            group.append(t)
            last_seq = seq
        if group:
            bursts.append(Burst(tuple(group)))
        q = ex.question
        item = Exchange(
            self.file, q.session_id, q.line, q, tuple(bursts),
            tuple(sorted(ex.replies, key=lambda r: r.line)), tuple(ex.evidence),
            ex.tool_results, ex.end_line, still_open, ex.ended,
        )
        if ex.fresh:
            ex.fresh = False  # an exchange emitted open at the end counts once
            self.exchange_count += 1
            self._acc(q.session_id).exchanges += 1
        if not still_open:
            self.exchange = None
        if q.line < self.open_line:
            return []  # closed, and emitted as such, by an earlier scan
        return [item]

    def _arrive(self, t: Typed, offset: int) -> list:
        """A typed message from a user record or a queued_command."""
        key = dedupe_key(t.text)
        if self.exchange is not None and key in self.exchange.queued_keys:
            return []  # the same queued text, written a second time
        items, match = self.pending.repeat(key)
        if match is not None:
            if match.typed.line in self.known and match.typed.line == self.open_line:
                # An earlier (final) scan reported this text under the enqueue's
                # line and opened the exchange still open then with it: the
                # repeat keeps that identity, so that exchange is emitted again
                # under the same (file, line) and replaces its row instead of
                # being counted a second time under the repeat's line. It is
                # queued exactly when the repeat is, as in a scan of the whole
                # file: a repeat marked queued makes later copies of the same
                # words repeats too; an unmarked one makes them new messages.
                t, offset = replace(match.typed, queued=t.queued), match.offset
            elif match.typed.line in self.known:
                # Reported by an earlier (final) scan as a follow-up of an
                # exchange this scan rebuilds: the repeat is not news.
                self.known.add(t.line)
                self.reported.add(t.line)
        return items + self._place(t, offset, self.seq)

    def _enqueue(self, t: Typed, offset: int) -> list:
        key = dedupe_key(t.text)
        ex = self.exchange
        if ex is not None and key in ex.queued_keys:
            return []
        anchor = self.pending.anchor(ex.anchor if ex else (offset, t.line - 1))
        return self.pending.add(t, offset, key, self.seq, anchor)

    def _client_text(self, kind: str, text: str, line: int) -> None:
        if line > self.after:
            client = self.client
            if kind in client:        # (bump, inlined: once per client record)
                client[kind] += 1
            else:
                bump(client, kind)
        ex = self.exchange
        if ex is None or kind == "sidechain":
            return
        if line > ex.end_line:
            ex.end_line = line
        if kind == "tool-result":
            ex.tool_results += 1
        else:
            ex.evidence.append(Evidence(kind, text, line))

    # ----- messages ------------------------------------------------------------
    def _finish(self, finished: list[Merged]) -> None:
        """Finished messages: replies of the open exchange if theirs; counted if new."""
        ex = self.exchange
        ex_id = ex.id if ex is not None else None
        for m in finished:
            reply = m.reply()
            if ex is not None and m.exchange_id == ex_id:
                ex.replies.append(reply)
            if m.line > self.after:
                self._acc(m.session).add(m, reply)

    def _assistant(self, record: dict, line: int, offset: int, session: str, ts: object) -> None:
        message = record["message"]
        side = self.sidechain or bool(record.get("isSidechain"))
        model = message.get("model")
        if type(model) is not str:
            model = None
        if not side:
            error = record.get("isApiErrorMessage")
            if error or model == "<synthetic>":
                text = Merged((), None, "", line, offset, None)
                text.add(record, message, model)
                self._client_text("api-error" if error else "synthetic", text.reply().text, line)
                return
            self.seq += 1
            ex = self.exchange
            if ex is not None:
                if line > ex.end_line:
                    ex.end_line = line
                if type(ts) is str:
                    ex.ended = ts
                exchange_id = ex.id
            else:
                exchange_id = None
        else:
            exchange_id = None
        finished = self.messages.add(record, message, model, line, offset, exchange_id, side,
                                     session)
        if finished:
            self._finish(finished)

    # ----- queue and attachments -------------------------------------------------
    def _queue(self, record: dict, line: int, offset: int) -> list:
        if record.get("operation") != "enqueue" or self.sidechain:
            return []  # dequeue/remove/popAll repeat or drop what enqueue wrote
        content = record.get("content")
        if content is None:
            return []
        v = classify_queued(content, record.get("origin"), has_origin="origin" in record,
                            source="enqueue")
        if not v.typed:
            self._client_text(v.kind, v.text, line)
            return []
        return self._enqueue(self._typed(record, line, "enqueue", v.text, True), offset)

    def _attachment(self, record: dict, line: int, offset: int) -> list:
        att = record["attachment"]
        if att.get("type") != "queued_command" or self.sidechain or record.get("isSidechain"):
            return []
        v = classify_queued(att.get("prompt"), att.get("origin"), has_origin="origin" in att,
                            source="queued_command")
        if v.typed and (att.get("isMeta") or record.get("isMeta")):
            self._client_text("meta", v.text, line)
            return []
        if not v.typed:
            self._client_text(v.kind, v.text, line)
            return []
        text = v.text
        if att.get("commandMode") == "bash" and not text.startswith("!"):
            text = "!" + text
        ts = record.get("timestamp") or att.get("timestamp")
        return self._arrive(self._typed(record, line, "queued_command", text, True, ts), offset)

    # ----- entry points -----------------------------------------------------------
    def _switch(self, sid: str) -> list:
        """A record of another session: what was open belongs to the last one."""
        items: list = []
        if self.session is not None:
            items = self._end_session()
        self.session = sid
        return items

    def _end_session(self) -> list:
        items = self.pending.settle() + self._close()
        self._finish(self.messages.finish())
        self._prune()
        return items

    def feed(self, line: int, offset: int, record: dict) -> list:
        """Take one shape-checked record; return the items it completes."""
        self.line = line
        sid = record.get("sessionId")
        if type(sid) is not str:
            sid = None
        items = self._switch(sid) if sid is not None and sid != self.session else []
        kind = record.get("type")
        ts = record.get("timestamp")
        if ts and type(ts) is str and line > self.after:
            # (inlined Tally.seen on the session's cached tally: this runs for every line)
            key = sid or self.session or self.default_session
            if key != self._tally_key:
                self._tally_key, self._tally = key, self._acc(key)
            tally = self._tally
            if not tally.first:
                tally.first = ts
            tally.last = ts
        if kind == "assistant":     # (the most common record first)
            self._assistant(record, line, offset, sid or self.session or self.default_session, ts)
        elif kind == "user":
            v = classify(record, sidechain=self.sidechain)
            if v is not None and v.typed:
                t = self._typed(record, line, v.source, v.text, v.queued)
                items += self._arrive(t, offset)
            elif v is not None:
                self._client_text(v.kind, v.text, line)
        elif kind == "queue-operation":
            items += self._queue(record, line, offset)
        elif kind == "attachment":
            items += self._attachment(record, line, offset)
        elif (kind == "system" and record.get("subtype") == "compact_boundary"
              and not self.sidechain and not record.get("isSidechain")):
            self._client_text("compact-boundary", _str(record.get("content")) or "", line)
        return items

    def finish(self, final: bool) -> list:
        """End of the readable file. ``final`` settles pending queued text.

        The resume point is taken before settling, so a later scan re-reads
        what was settled here and recognises its repeats.
        """
        self.resume = self._resume_point()
        items = self.pending.settle() if final else []
        ex = self.exchange
        self._finish(self.messages.finish(lambda m: ex is None or m.exchange_id != ex.id))
        items += self._close(still_open=True)
        self._finish(self.messages.finish())
        return items

    def _resume_point(self) -> tuple[int, int] | None:
        """Where a later scan must start to rebuild what is still open."""
        points = self.pending.anchors()
        points += self.messages.anchors()
        if self.exchange is not None:
            points.append(self.exchange.anchor)
        return min(points) if points else None

    def pending_typed(self) -> tuple[Typed, ...]:
        return self.pending.typed()

    def emitted_since(self, line: int) -> tuple[int, ...]:
        return tuple(sorted(n for n in self.reported if n > line))

    def session_stats(self) -> tuple[SessionStats, ...]:
        return tuple(a.stats(sid, self.file) for sid, a in self.accs.items())
