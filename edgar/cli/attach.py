"""What a person attaches without typing it: ``@path`` files and piped stdin.

Guarantees:
- ``at_paths`` attaches an ``@token`` only when it names an existing regular file inside the
  project root (after symlinks are resolved). Anything else — ``@dataclass``, ``@alice``, a
  missing file, a directory — stays plain prompt text, without an error.
- An ``@token`` naming an existing file that resolves outside the root is refused with
  ``AttachRefused`` (one line saying which token and why), as the tools refuse such paths.
- ``read_stdin`` reads piped bytes and decodes them as UTF-8 with replacement: bytes that are
  not UTF-8 never raise. A terminal on stdin is never read (what is typed there is typed).
- ``typed`` makes text from argv or a terminal safe to store: lone surrogates (undecodable
  argv bytes) become U+FFFD, so nothing downstream fails to encode it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import IO

AT_PATH = re.compile(r"(?<!\S)@(\S+)")
TRAILING = ".,;:!?)\"'"


class AttachRefused(Exception):
    """An ``@path`` that names a file outside the project root; the message is one line."""


def typed(text: str) -> str:
    """``text`` with lone surrogates (bytes argv could not decode) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")   # the bytes argv could not decode
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "replace")           # a surrogate no byte stands for
    return raw.decode("utf-8", "replace")


def at_paths(prompt: str, cwd: Path, root: Path) -> list[tuple[str, str]]:
    """(``@path``, body) for each ``@token`` naming a real file inside ``root``."""
    out: list[tuple[str, str]] = []
    real_root = root.resolve()
    for match in AT_PATH.finditer(prompt):
        name = match.group(1).rstrip(TRAILING)
        if not name:
            continue
        try:
            path = (cwd / Path(name).expanduser()).resolve()
            if not path.is_file():
                continue                        # @dataclass, @alice, a directory: plain text
        except (OSError, RuntimeError, ValueError):
            continue
        if not path.is_relative_to(real_root):
            raise AttachRefused(f"@{name}: outside the project root ({real_root}); "
                                "not attached")
        try:
            body = path.read_bytes().decode("utf-8", "replace")
        except OSError as exc:
            raise AttachRefused(f"@{name}: cannot read it ({exc.strerror})") from None
        out.append((f"@{name}", body))
    return out


def read_stdin(stream: IO[str] | None) -> str:
    """Everything piped on ``stream`` as text ('' for a terminal, a closed or absent stream)."""
    if stream is None or stream.closed:
        return ""
    try:
        if stream.isatty():
            return ""
        raw = getattr(stream, "buffer", None)
        if raw is not None:
            return raw.read().decode("utf-8", "replace")
        return stream.read()
    except (OSError, ValueError):
        return ""
