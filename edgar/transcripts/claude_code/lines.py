"""Physical lines of a JSONL file, read with bounded memory.

Guarantees:
- Reads only. Memory per line is bounded by ``max_line`` bytes: a longer line
  is drained in small chunks and reported as Malformed, never held whole.
- Line numbers are 1-based physical lines; offsets are byte offsets.
- NUL bytes before or after a record are stripped (crash padding); NULs inside
  one make it invalid JSON like any other damage.
- A last line without a trailing newline is never consumed (``end == start``),
  so a resumed scan reads it again once the writer has finished it (line
  numbers stay right when only its newline was missing). If it does not parse
  it is reported *torn* (a Malformed); if it parses it is yielded with
  ``terminated=False`` and the caller decides whether to use it.
- Nothing raises for any content; every failure becomes a Malformed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from .decode import Fast, Unfit
from .values import Malformed

MAX_LINE = 64 * 1024 * 1024  # a longer line is skipped unparsed
_CHUNK = 1024 * 1024  # drain size for over-long lines
_PAD = b"\x00 \t\r\n"
BLANK = object()  # value of an empty line (JSON null is a different thing)


@dataclass(frozen=True)
class Line:
    number: int
    start: int
    end: int  # offset after the line; == start when it was not consumed
    value: object  # parsed JSON value, BLANK, or a Malformed
    nul_stripped: bool = False
    terminated: bool = True  # False only for a last line without its newline


# the C scanner json.loads ends up in; typeshed's JSONDecoder omits this attribute (its
# __init__ sets it), and its make_scanner stub wants a scanner for context: stubs, not code
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_BAD_JSON = "invalid JSON (JSONDecodeError)"


def _parse(body: bytes) -> tuple[object, str | None]:
    try:
        # json.loads(bytes) sniffs the encoding, decodes, skips whitespace and
        # scans. A body starting with "{" and a non-NUL byte is UTF-8 to it,
        # and ``body`` has no JSON whitespace at either end (stripped), so the
        # scanner alone gives the same value and fails on the same lines.
        if body[0] == 0x7B and len(body) > 1 and body[1]:
            text = body.decode("utf-8", "surrogatepass")
            try:
                value, end = _scan_once(text, 0)
            except StopIteration:  # what json.loads reports as "Expecting value"
                return None, _BAD_JSON
            return (value, None) if end == len(text) else (None, _BAD_JSON)  # else: extra data
        return json.loads(body), None
    except Exception as exc:  # noqa: BLE001 - any parser failure is a bad line
        return None, f"invalid JSON ({type(exc).__name__})"


def read_lines(
    f: BinaryIO,
    file: str = "",
    start_offset: int = 0,
    start_line: int = 0,
    max_line: int = MAX_LINE,
) -> Iterator[Line]:
    """Yield every physical line from ``start_offset`` (a line start) to EOF."""
    for fields in raw_lines(f, file, start_offset, start_line, max_line):
        yield Line(*fields)


def raw_lines(
    f: BinaryIO,
    file: str = "",
    start_offset: int = 0,
    start_line: int = 0,
    max_line: int = MAX_LINE,
    fast: Fast | None = None,
) -> Iterator[tuple]:
    """``read_lines`` as plain 6-tuples of Line's fields, in Line's order.

    The scanner's hot loop reads these: a frozen dataclass per line costs
    more than most lines need. ``fast`` (``decode``) is tried first on
    object lines; the standard library decodes whatever it leaves.
    """
    if start_offset:
        f.seek(start_offset)
    readline = f.readline
    decode, unfit = (fast.decode, fast.errors) if fast is not None else (None, ())
    number, pos = start_line, start_offset
    while True:
        chunk = readline(max_line + 1)
        if not chunk:
            return
        number += 1
        start = pos
        if len(chunk) > max_line and not chunk.endswith(b"\n"):
            length, ended = len(chunk), False
            del chunk  # why: never hold more than one chunk of an over-long line
            while True:
                more = readline(_CHUNK)
                if not more:
                    break
                length += len(more)
                if more.endswith(b"\n"):
                    ended = True
                    break
            if not ended:
                torn = Malformed(file, number, "torn last line longer than the line limit")
                yield (number, start, start, torn, False, True)
                return
            pos = start + length
            too_long = Malformed(file, number, f"line longer than {max_line} bytes")
            yield (number, start, pos, too_long, False, True)
            continue
        pos = start + len(chunk)
        # The common line: a whole object, no NUL. JSON allows the newline after it, so it
        # is decoded as read (no stripped copy, no NUL count); a line either decoder cannot
        # decide here takes the general path below, which has the last word.
        common = chunk[0] == 0x7B and chunk[-1] == 0x0A and b"\x00" not in chunk
        tried = False
        if common and decode is not None:
            tried = True
            try:
                yield (number, start, pos, decode(chunk), False, True)
                continue
            except unfit:
                pass
        elif common:
            # What json.loads does with these bytes (UTF-8: "{" and no NUL), minus its
            # checks: the scanner reads one value, and only JSON whitespace may follow.
            try:
                text = chunk.decode("utf-8", "surrogatepass")
                whole, end = _scan_once(text, 0)
            except Exception:  # noqa: BLE001 - the general path says why
                pass
            else:
                if end == len(text) - 1 or not text[end:].strip(" \t\r\n"):
                    yield (number, start, pos, whole, False, True)
                    continue
        complete = chunk.endswith(b"\n")
        body = chunk.strip(_PAD)
        # Counting NULs scans the line twice; most lines have none at all.
        nul = b"\x00" in chunk and chunk.count(b"\x00") != body.count(b"\x00")
        if not complete:
            pos = start  # not consumed: see the module docstring
        if not body:
            value: object = Malformed(file, number, "only NUL bytes") if nul else BLANK
            yield (number, start, pos, value, nul, complete)
            continue
        if fast is not None and not tried and body[0] == 0x7B:
            try:
                yield (number, start, pos, fast(body), nul, complete)
                continue
            except Unfit:
                pass
        value, problem = _parse(body)
        if problem is not None:
            if not complete:
                torn = Malformed(file, number, "torn last line (no newline, incomplete JSON)")
                yield (number, start, start, torn, False, True)
                return
            yield (number, start, pos, Malformed(file, number, problem), nul, True)
            continue
        yield (number, start, pos, value, nul, complete)


def head_digest(f: BinaryIO, length: int) -> str:
    """Digest of the first ``length`` bytes (restores the position to 0)."""
    f.seek(0)
    digest = bytes_digest(f.read(max(0, length)))
    f.seek(0)
    return digest


def bytes_digest(data: bytes) -> str:
    """What ``head_digest`` gives for a file that starts with ``data``, read whole."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()
