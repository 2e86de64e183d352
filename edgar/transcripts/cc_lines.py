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
from dataclasses import dataclass
from typing import BinaryIO, Iterator

from .cc_types import Malformed

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


def _parse(body: bytes) -> tuple[object, str | None]:
    try:
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
    if start_offset:
        f.seek(start_offset)
    number, pos = start_line, start_offset
    while True:
        chunk = f.readline(max_line + 1)
        if not chunk:
            return
        number += 1
        start = pos
        if len(chunk) > max_line and not chunk.endswith(b"\n"):
            length, ended = len(chunk), False
            del chunk  # why: never hold more than one chunk of an over-long line
            while True:
                more = f.readline(_CHUNK)
                if not more:
                    break
                length += len(more)
                if more.endswith(b"\n"):
                    ended = True
                    break
            if not ended:
                yield Line(number, start, start, Malformed(file, number, "torn last line longer than the line limit"))
                return
            pos = start + length
            yield Line(number, start, pos, Malformed(file, number, f"line longer than {max_line} bytes"))
            continue
        pos = start + len(chunk)
        complete = chunk.endswith(b"\n")
        body = chunk.strip(_PAD)
        nul = chunk.count(b"\x00") != body.count(b"\x00")
        if not complete:
            pos = start  # not consumed: see the module docstring
        if not body:
            value: object = Malformed(file, number, "only NUL bytes") if nul else BLANK
            yield Line(number, start, pos, value, nul, complete)
            continue
        value, problem = _parse(body)
        if problem is not None:
            if not complete:
                yield Line(number, start, start, Malformed(file, number, "torn last line (no newline, incomplete JSON)"))
                return
            yield Line(number, start, pos, Malformed(file, number, problem), nul)
            continue
        yield Line(number, start, pos, value, nul, complete)


def head_digest(f: BinaryIO, length: int) -> str:
    """Digest of the first ``length`` bytes (restores the position to 0)."""
    f.seek(0)
    digest = hashlib.blake2b(f.read(max(0, length)), digest_size=16).hexdigest()
    f.seek(0)
    return digest
