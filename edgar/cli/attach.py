"""What a person attaches without typing it: ``@path`` files, pasted image paths, piped stdin.

Guarantees:
- ``at_paths`` attaches an ``@token`` only when it names an existing regular file inside the
  project root (after symlinks are resolved). Anything else — ``@dataclass``, ``@alice``, a
  missing file, a directory — stays plain prompt text, without an error.
- An ``@token`` naming an existing file that resolves outside the root is refused with
  ``AttachRefused`` (one line saying which token and why), as the tools refuse such paths.
- A PNG, JPEG, GIF or WebP file (told by its bytes) is attached as the image itself
  (``edgar.images``: resized to the providers' limits, said in ``notes``); one that cannot
  be sent is refused. Any other binary file is refused with one line. Text is attached up to
  ``ATTACH_MAX_BYTES`` (cut at a line end, the cap and the line to ``read`` on from named in
  the body and in ``notes``); the rest of the file is never read.
- ``pasted_images`` attaches an absolute (``/…``, ``~/…``, ``file://…``) path to an image file
  the person pasted or dragged into the line (quoted or with ``\\ `` escapes), wherever it is:
  they typed it. Nothing else in a line is treated as a path.
- ``read_stdin`` reads piped bytes and decodes them as UTF-8 with replacement: bytes that are
  not UTF-8 never raise. A terminal on stdin is never read (what is typed there is typed).
- ``typed`` makes text from argv or a terminal safe to store: lone surrogates (undecodable
  argv bytes) become U+FFFD, so nothing downstream fails to encode it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from edgar.conversation import Attachment, ImageBlock

AT_PATH = re.compile(r"(?<!\S)@(\S+)")
TRAILING = ".,;:!?)\"'"
ATTACH_MAX_BYTES = 256 * 1024      # text of one @file sent; the rest is the read tool's
SNIFF = 8192


class AttachRefused(Exception):
    """An ``@path`` that cannot be attached (outside the root, binary, an image that cannot be
    sent); the message is one line."""


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


def at_paths(prompt: str, cwd: Path, root: Path,
             notes: list[str] | None = None) -> list[Attachment]:
    """(``@path``, body) for each ``@token`` naming a real file inside ``root``; what was cut
    or resized is added to ``notes``."""
    out: list[Attachment] = []
    notes = [] if notes is None else notes
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
            out.append((f"@{name}", _body(path, f"@{name}", name, notes)))
        except OSError as exc:
            raise AttachRefused(f"@{name}: cannot read it ({exc.strerror})") from None
    return out


def _body(path: Path, shown: str, name: str, notes: list[str]) -> str | ImageBlock:
    from edgar import images

    with open(path, "rb") as handle:
        head = handle.read(SNIFF)
        if images.kind(head) is not None:
            return _image(path, shown, notes)
        if b"\0" in head:
            raise AttachRefused(f"{shown}: a binary file (neither text nor a PNG, JPEG, GIF or "
                                "WebP image); not attached")
        size = os.fstat(handle.fileno()).st_size
        data = head + handle.read(ATTACH_MAX_BYTES + 1 - len(head))
    if len(data) <= ATTACH_MAX_BYTES:
        return data.decode("utf-8", "replace")
    kept = data[:ATTACH_MAX_BYTES]
    end = kept.rfind(b"\n")
    kept = kept[:end + 1] if end > 0 else kept
    lines = kept.count(b"\n")
    cap = f"{ATTACH_MAX_BYTES // 1024} KB"
    notes.append(f"{shown} is {size:,} bytes: only its first {cap} ({lines:,} lines) are "
                 "attached; the model can read the rest")
    return (kept.decode("utf-8", "replace")
            + f"\n[… only the first {cap} ({lines:,} lines) of this {size:,}-byte file are "
            f"attached; read the rest with the read tool: path {name}, offset={lines + 1}]")


def _image(path: Path, shown: str, notes: list[str]) -> ImageBlock:
    from edgar import images

    try:
        ready = images.to_block(images.read_file(str(path), shown), shown.lstrip("@"))
    except images.ImageRefused as exc:
        raise AttachRefused(str(exc)) from None
    if ready.note:
        notes.append(ready.note)
    return ready.block


def pasted_images(line: str, cwd: Path, notes: list[str] | None = None) -> list[Attachment]:
    """(path, image) for each absolute image path pasted into ``line`` (not an ``@token``)."""
    import shlex
    from urllib.parse import unquote

    from edgar import images

    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    out: list[Attachment] = []
    seen: set[Path] = set()
    for word in words:
        if word.startswith("file://"):
            word = unquote(word[len("file://"):])
        if not word.startswith(("/", "~")) or not word.lower().endswith(images.SUFFIXES):
            continue
        try:
            path = (cwd / Path(word).expanduser()).resolve()
            if path in seen or not path.is_file():
                continue
            with open(path, "rb") as handle:
                if images.kind(handle.read(16)) is None:
                    continue
        except (OSError, RuntimeError, ValueError):
            continue
        seen.add(path)
        out.append((word, _image(path, word, [] if notes is None else notes)))
    return out


def attached(prompt: str, cwd: Path, root: Path,
             notes: list[str] | None = None) -> list[Attachment]:
    """Everything a typed prompt attaches: its ``@path`` files, then its pasted images."""
    return [*at_paths(prompt, cwd, root, notes), *pasted_images(prompt, cwd, notes)]


def as_event(items: Iterable[Attachment]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(bodies, sources) for the ``Attached`` event: an image is named by one line."""
    from edgar import images

    rows = list(items)
    bodies = tuple(b if isinstance(b, str) else images.describe(b) for _, b in rows)
    return bodies, tuple(s for s, _ in rows)


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
