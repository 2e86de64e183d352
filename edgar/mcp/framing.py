"""stdio MCP framing: one JSON-RPC message per line, of any length up to a total bound.

Guarantees (no SDK import; asyncio only):
- ``read_line`` returns the next whole line (with its ``\\n``, or the last bytes before end
  of file without one), however long it is, or ``None`` at end of file. The stream's own
  buffer limit only sets how much is read at a time, never how long a message may be.
- A line longer than ``bound`` bytes raises ``MessageTooLarge`` with its size so far, having
  read no more of the stream than that line's first ``bound`` bytes plus what was buffered.
"""

from __future__ import annotations

import asyncio

DEFAULT_BOUND = 64 << 20   # 64 MiB: a large file from server-filesystem, base64 images


class MessageTooLarge(Exception):
    """A message past the bound; ``size`` is how many bytes had been read of it."""

    def __init__(self, size: int, bound: int):
        super().__init__(f"a message larger than {bound} bytes ({size} read so far)")
        self.size, self.bound = size, bound


async def read_line(reader: asyncio.StreamReader, bound: int = DEFAULT_BOUND) -> bytes | None:
    parts: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:   # end of file
            if exc.partial:
                parts.append(exc.partial)
                size += len(exc.partial)
            if size > bound:
                raise MessageTooLarge(size, bound) from None
            return b"".join(parts) if parts else None
        except asyncio.LimitOverrunError as exc:
            # no newline within the buffer: take what is there and keep reading this line
            chunk = await reader.readexactly(exc.consumed)
            parts.append(chunk)
            size += len(chunk)
            if size > bound:
                raise MessageTooLarge(size, bound) from None
            continue
        parts.append(chunk)
        size += len(chunk)
        if size > bound:
            raise MessageTooLarge(size, bound) from None
        return b"".join(parts)
