"""A pure, streaming reader of Claude Code JSONL transcripts.

File in, records and exchanges out. See docs/claude-code-import.md for the tour.

Guarantees:
- Read-only: the file is opened ``rb`` and never written, moved or locked;
  nothing is printed. ``scan_stream`` works on any binary file object.
- Streaming: memory does not grow with the file; it is bounded by the longest
  line (``max_line``, longer lines are skipped unread) and the open exchange.
- Never raises on content: invalid JSON, a torn last line, NUL bytes, a
  record without ``type`` or ``uuid``, ``message`` that is not an object,
  ``content`` of the wrong type, a line over the limit: each is skipped and
  yielded as ``Malformed(file, line, reason)``; its neighbours are read as if
  it were not there. Missing timestamps, unknown block types and stripped
  NUL padding keep the record and are yielded as ``Anomaly``; unknown record
  types are counted in ``ScanResult.unknown_types``.
- Who typed what: ``classify`` (markers first, text rules only without
  markers); sidechain files (``agent-*.jsonl``, ``subagents/``) yield no
  ``Typed`` at all.
- Items are yielded in the order they complete: ``Typed``, ``Exchange``,
  ``Malformed``, ``Anomaly``; the last item is always a ``ScanResult``.

Resumable scans. ``ScanResult.mark`` records the file's size, mtime and
first bytes, the byte offset after the last whole line, and where the state
still open at the end begins: the open exchange, or earlier if a queued
message that was pending when it opened (or is still pending) came before it.
``scan(path, mark)`` re-reads from there to rebuild that state and reports
nothing twice: typed messages it reported are suppressed, exchanges already
emitted closed are not emitted again, and counts cover only new lines. The
exchange still open at the end is emitted with ``open=True`` and emitted
again, complete, by the next scan under the same (file, line) key.
A last line without its newline is not consumed, so a later scan reads it
once it is whole: if it does not parse it is reported as torn; if it parses,
a final scan uses it and a non-final one leaves it for later. A file that shrank or whose
first bytes changed is read again from the start (``ScanResult.restarted``).
``final=False`` leaves queued text that no record has repeated yet pending
(``ScanResult.pending``): with it, any split of a file into scans yields
exactly the typed messages and exchanges of one scan. ``final=True`` (the
default) takes the end of the file as the end of the session and reports
that text; if the file grows later, no typed text is reported twice, though
a repeat may then be reported under the enqueue's line rather than its own.
Session stats count each API message in the scan that reads its first
record; a message still streaming when a scan ends keeps the usage seen so far.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from . import decode
from .classify import Verdict, classify, classify_queued
from .exchanges import Builder
from .lines import BLANK, MAX_LINE, bytes_digest, head_digest, raw_lines, read_lines
from .messages import bump
from .text import dedupe_key, message_text, strip_elements
from .values import (
    Anomaly,
    Burst,
    Evidence,
    Exchange,
    Malformed,
    Reply,
    ScanMark,
    ScanResult,
    SessionStats,
    Typed,
    Usage,
)

__all__ = [
    "Anomaly", "Burst", "Evidence", "Exchange", "Malformed", "Reply", "ScanMark", "ScanResult",
    "SessionStats", "Typed", "Usage", "Verdict", "classify", "classify_queued", "dedupe_key",
    "message_text", "strip_elements", "read_lines", "scan", "scan_stream", "summarize",
    "is_sidechain_path", "check_record", "MAX_LINE",
]

Item = Typed | Exchange | Malformed | Anomaly | ScanResult

HEAD = 4096  # bytes hashed to recognise the same file on resume
READ_BUFFER = 1024 * 1024  # the file's read buffer

KNOWN_TYPES = frozenset({
    "user", "assistant", "system", "attachment", "progress", "summary", "file-history-snapshot",
    "queue-operation", "last-prompt", "ai-title", "custom-title", "agent-name", "agent-setting",
    "agent-color", "tag", "mode", "permission-mode", "atis-latch", "isolation-latch", "pr-link",
    "bridge-session", "worktree-state", "file-history-delta", "attribution-snapshot",
    "content-replacement", "cost-state", "ended", "relocated",
})
_BLOCKS = {
    "user": frozenset({"text", "image", "document", "tool_result"}),
    "assistant": frozenset({
        "text", "thinking", "redacted_thinking", "tool_use", "server_tool_use",
        "web_search_tool_result", "advisor_tool_result", "mcp_tool_use", "mcp_tool_result",
    }),
}


def is_sidechain_path(path: str) -> bool:
    """``agent-*.jsonl`` next to sessions, or anything under ``subagents/``."""
    # (string operations, not PurePath: this runs once per file of a large tree)
    parts = path.rstrip(os.sep).split(os.sep)
    return parts[-1].startswith("agent-") or "subagents" in parts[:-1]


def _stem(path: str) -> str:
    """``PurePath(path).stem``, without building a path."""
    name = path.rstrip(os.sep).rsplit(os.sep, 1)[-1]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def check_record(value: object) -> tuple[str | None, list[str]]:
    """(reason to skip the record, or None; oddities of a kept record)."""
    # ``type(x) is`` rather than isinstance: JSON values are exactly dict/str/list, and
    # this runs once per line of every file.
    if type(value) is not dict:
        return "not a JSON object", []
    get = value.get
    kind = get("type")
    if kind == "assistant" or kind == "user":   # (the common records first)
        if type(get("uuid")) is not str:
            return "no uuid", []
        message = get("message")
        if type(message) is not dict:
            return "message is not an object", []
        content = message.get("content")
        tc = type(content)
        if tc is not str and tc is not list:
            return "content of the wrong type", []
        odd = _NONE if type(get("timestamp")) is str else ["no timestamp"]
        if type(content) is list:   # (tc: mypy narrows on the expression, not the name)
            allowed = _BLOCKS[kind]  # hoisted: assistant records run this per block
            for block in content:
                if type(block) is not dict:
                    odd = [*odd, "content block is not an object"]
                    continue
                btype = block.get("type")
                if type(btype) is not str or btype not in allowed:  # (lists are unhashable)
                    odd = [*odd, f"unknown block type {str(btype)[:40]!r}"]
        return None, odd
    if type(kind) is not str:
        return "no record type", []
    if kind == "queue-operation":
        if not isinstance(value.get("operation"), str):
            return "queue operation without an operation", []
        if not isinstance(value.get("content"), (str, list, type(None))):
            return "queue content of the wrong type", []
    elif kind == "attachment" and not isinstance(value.get("attachment"), dict):
        return "attachment is not an object", []
    return None, _NONE


_NONE: list[str] = []  # (never appended to: callers only read a kept record's oddities)


def _empty(file: str, mark: ScanMark, restarted: bool = False) -> ScanResult:
    return ScanResult(file=file, lines=0, malformed=0, anomalies=0, typed=0, exchanges=0,
                      sessions=(), client_messages={}, unknown_types={}, pending=(), mark=mark,
                      restarted=restarted)


def scan_stream(
    f: BinaryIO,
    file: str,
    mark: ScanMark | None = None,
    *,
    final: bool = True,
    sidechain: bool | None = None,
    size: int | None = None,
    mtime_ns: int = 0,
    max_line: int = MAX_LINE,
    decoder: str | None = None,
) -> Iterator[Item]:
    """Scan an open binary file; ``file`` is the name reported in every item.

    ``decoder``: ``"msgspec"`` or ``"stdlib"`` (``decode.py``; default: the fastest
    available). Both give the same items.
    """
    side = is_sidechain_path(file) if sidechain is None else sidechain
    if size is None:
        try:
            size = os.fstat(f.fileno()).st_size
        except (AttributeError, OSError, ValueError):
            size = -1  # unknown (e.g. BytesIO): the mark cannot short-cut
    restarted = False
    # The first bytes, read once (from the buffer the first lines are then read from): the
    # old mark's check and the new mark hash a prefix of them.
    head = f.read(HEAD)
    f.seek(0)

    def digest(length: int) -> str:
        # (longer than what was read: the file grew since, so read it again, as before)
        return bytes_digest(head[:length]) if length <= len(head) else head_digest(f, length)

    if mark is not None:
        fits = size < 0 or mark.offset <= size
        if fits and mark.head_len:
            fits = digest(mark.head_len) == mark.head
        if not fits:
            mark, restarted = None, True
        elif size >= 0 and (size, mtime_ns) == (mark.size, mark.mtime_ns) and mark.final and final:
            yield _empty(file, mark)
            return
    m = mark or ScanMark()
    after = m.line
    builder = Builder(
        file, sidechain=side, default_session=_stem(file), after_line=after,
        emitted=m.emitted, session_id=m.session_id, open_line=m.open_line,
    )
    end_offset, end_line = (m.resume_offset, m.resume_line) if mark else (0, 0)
    lines = malformed = anomalies = 0
    unknown: Counter = Counter()
    feed = builder.feed
    # Plain tuples (not ``Line``s): this loop runs once per line of every file.
    fast = decode.decoder(decoder)[1]
    rows = raw_lines(f, file, end_offset, end_line, max_line, fast)
    for number, start, end, value, nul_stripped, terminated in rows:
        new = number > after
        if end > start:  # a torn last line is not consumed
            end_offset, end_line = end, number
            lines += new
        if value is BLANK:
            continue
        if type(value) is Malformed:
            if new:
                malformed += 1
                yield value
            continue
        if not terminated and not final:
            continue  # an unterminated last line waits for its newline unless final
        problem, odd = check_record(value)
        if problem is not None:
            if new:
                malformed += 1
                yield Malformed(file, number, problem)
            continue
        if nul_stripped:
            odd = [*odd, "NUL bytes stripped"]
        if new:
            for reason in odd:
                anomalies += 1
                yield Anomaly(file, number, reason)
            if value["type"] not in KNOWN_TYPES:
                bump(unknown, value["type"][:64])
        items = feed(number, start, value)
        if items:
            yield from items
    yield from builder.finish(final)
    at_end = (end_offset, end_line)
    resume_offset, resume_line = min(builder.resume or at_end, at_end)
    head_len = min(HEAD, end_offset)
    open_ex = builder.exchange
    new_mark = ScanMark(
        size=max(size, 0), mtime_ns=mtime_ns, offset=end_offset, line=end_line,
        resume_offset=resume_offset, resume_line=resume_line,
        emitted=builder.emitted_since(resume_line), session_id=builder.session,
        head=digest(head_len) if head_len else "", head_len=head_len, final=final,
        open_line=open_ex.question.line if open_ex else 0,
    )
    yield ScanResult(
        file=file, lines=lines, malformed=malformed, anomalies=anomalies,
        typed=builder.typed_count, exchanges=builder.exchange_count,
        sessions=builder.session_stats(), client_messages=dict(builder.client),
        unknown_types=dict(unknown), pending=() if final else builder.pending_typed(),
        mark=new_mark, restarted=restarted,
    )


def scan(
    path: str | os.PathLike,
    mark: ScanMark | None = None,
    *,
    final: bool = True,
    sidechain: bool | None = None,
    max_line: int = MAX_LINE,
    decoder: str | None = None,
) -> Iterator[Item]:
    """Scan a transcript file (opened read-only); see the module docstring."""
    name = os.fspath(path)
    # A 1 MiB buffer, not 8 KiB: most records are longer than a few KiB, and each refill is
    # a system call (half the reading time on the bench trees).
    with open(name, "rb", buffering=READ_BUFFER) as f:
        st = os.fstat(f.fileno())
        yield from scan_stream(
            f, name, mark, final=final, sidechain=sidechain, size=st.st_size,
            mtime_ns=st.st_mtime_ns, max_line=max_line, decoder=decoder,
        )


def summarize(results: Iterable[ScanResult]) -> dict:
    """The import summary over many files' ScanResults."""
    files = lines = malformed = exchanges = typed = 0
    sessions: set[str] = set()
    client: Counter = Counter()
    for r in results:
        files += 1
        lines += r.lines
        malformed += r.malformed
        exchanges += r.exchanges
        typed += r.typed
        sessions.update(s.session_id for s in r.sessions)
        client.update(r.client_messages)
    return {
        "files": files, "lines": lines, "malformed": malformed, "sessions": len(sessions),
        "exchanges": exchanges, "typed_messages": typed, "client_messages": dict(client),
    }
