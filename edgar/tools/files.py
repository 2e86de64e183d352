"""read, write and edit: the file tools.

Guarantees:
- ``write`` and ``edit`` replace a file atomically (temp file + rename), so a crash never
  leaves it half-written; ``edit`` changes nothing unless ``old_string`` occurs exactly once
  (or ``replace_all``), and says which of the two it was when it refuses. Neither writes
  under ``.edgar/``, ``.git/`` or edgar's user dir, or at a file trusted config runs
  (``resolve_for_write``).
- Beneath the root, or an added directory (``--add-dir``, ADR-0113), both open every
  component without following links (``tools/beneath``, ADR-0076): a directory swapped for a link
  after the check is refused with the reason, never
  written through. A file ``write`` creates gets 0666 less the umask; one it replaces keeps
  its mode.
- ``read`` reads only regular files (a FIFO, socket or device is refused, never waited on)
  and returns the requested window — at most ``READ_MAX_CHARS`` — without loading the rest
  of the file; ``edit`` refuses files over ``EDIT_MAX_BYTES``.
- ``read`` of a PNG, JPEG, GIF or WebP file (told by its bytes) returns the image itself, as
  an image block within the providers' limits (``edgar.images``), with one line of text saying
  what it is and whether it was resized; an image that cannot be sent is a ``validation``
  failure saying why, never its bytes as text.
- File I/O runs off the event loop (``fileio.off_loop``), so Ctrl-C is never stuck behind it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO

from edgar.declared import Field
from edgar.tools import beneath
from edgar.tools.base import (
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
    rel,
    resolve,
    resolve_for_write,
)
from edgar.tools.fileio import SNIFF, is_binary, lines, off_loop, open_regular, text

READ_MAX_CHARS = 100_000          # characters one read returns; the rest is offered by offset
EDIT_MAX_BYTES = 16 * 1024 * 1024  # edit loads the file whole; past this it refuses
COUNT_MAX_BYTES = 64 * 1024 * 1024  # how far past the window "N more lines" is counted


def _read_text(roots: tuple[Path, ...], path: Path, shown: str) -> str:
    """A whole (bounded) text file, for edit; beneath its root without following links."""
    root, inner = _beneath(roots, path)
    if inner is None:
        with open_regular(path, shown) as handle:
            data = handle.read(EDIT_MAX_BYTES + 1)
    else:
        try:
            found = beneath.read(root, inner, EDIT_MAX_BYTES + 1)
        except beneath.Refused as exc:
            raise ToolFailure("denied", f"{shown}: {exc.reason}") from None
        if found is None:
            raise ToolFailure("not_found", f"{shown} does not exist")
        data = found
    if len(data) > EDIT_MAX_BYTES:
        raise ToolFailure("validation", f"{shown} is over {EDIT_MAX_BYTES:,} bytes; edit works "
                          "on files up to that size (use shell tools such as sed)")
    if is_binary(data[:SNIFF]):
        raise ToolFailure("validation", f"{shown} looks binary; not reading it")
    return data.decode("utf-8", errors="replace")


def read_image(path: Path, shown: str) -> ToolOutcome | None:
    """The image at ``path`` as the model's picture, or None when it is not an image file."""
    from edgar import images

    with open_regular(path, shown) as handle:
        if images.kind(handle.read(16)) is None:
            return None
        if os.fstat(handle.fileno()).st_size > images.MAX_FILE:
            raise ToolFailure("validation", f"{shown}: an image over {images.MAX_FILE // 2**20} "
                              "MB; not read")
        handle.seek(0)
        data = handle.read(images.MAX_FILE + 1)
    try:
        ready = images.to_block(data, shown)
    except images.ImageRefused as exc:
        raise ToolFailure("validation", str(exc)) from None
    said = images.describe(ready.block) + (f" ({ready.note})" if ready.note else "")
    return ToolOutcome(said, images=(ready.block,))


def read_window(path: Path, shown: str, offset: int, limit: int | None,
                stop: threading.Event) -> str:
    """Numbered lines ``offset``… of a text file, without loading the rest of it."""
    with open_regular(path, shown) as handle:
        if is_binary(handle.read(SNIFF)):
            raise ToolFailure("validation", f"{shown} looks binary; not reading it")
        handle.seek(0)
        out: list[str] = []
        chars, number, cut = 0, 0, False
        for number, raw in enumerate(lines(handle, stop), 1):
            if number < offset:
                continue
            line = text(raw)
            if (limit is not None and number >= offset + limit) or (
                    out and chars + len(line) > READ_MAX_CHARS):
                cut = True
                break
            out.append(f"{number:>6}\t{line}")
            chars += len(line) + 8
        if not out:
            return "(empty file)" if number == 0 else (
                f"(the file has {number} lines; offset {offset} is past the end)")
        body = "\n".join(out)
        if cut:
            last = offset + len(out)
            body += f"\n… {_more(handle, stop, number)}; read with offset={last}"
        return body


def _more(handle: IO[bytes], stop: threading.Event, current: int) -> str:
    """How much follows the window: a line count when it is cheap to count."""
    count, seen = 1, 0   # the line that stopped the window is one of them
    while seen < COUNT_MAX_BYTES and not stop.is_set():
        chunk = handle.read(1024 * 1024)
        if not chunk:
            return f"{count} more lines"
        count += chunk.count(b"\n")
        seen += len(chunk)
    size = os.fstat(handle.fileno()).st_size
    return f"more lines follow line {current - 1} (the file is {size:,} bytes)"


def _beneath(roots: tuple[Path, ...], path: Path) -> tuple[Path, str | None]:
    """The first of ``roots`` (resolved: the project's, then the added directories) that
    holds ``path``, and ``path`` relative to it; (the project root, None) when none does."""
    for root in roots:
        try:
            return root, path.relative_to(root).as_posix()
        except ValueError:
            continue
    return roots[0], None


def write_roots(ctx: ToolContext) -> tuple[Path, ...]:
    """Where this context's tools may write: the project root, then each added directory."""
    return (ctx.root.resolve(), *ctx.extra_roots)


def save(roots: tuple[Path, ...], path: Path, shown: str, text: str) -> None:
    """Write ``text`` to ``path``: beneath its root link-free (ADR-0076, ADR-0113), else as
    before."""
    root, inner = _beneath(roots, path)
    if inner is None:   # outside the root: only with tools.allow_outside_root
        atomic_write(path, text)
        return
    try:
        beneath.write(root, inner, text.encode("utf-8"), mode=None)
    except beneath.Refused as exc:
        raise ToolFailure("denied", f"{shown}: {exc.reason}") from None


def atomic_write(path: Path, text: str, new_mode: int = 0o666) -> None:
    """Replace ``path`` atomically: an existing file keeps its mode, a new one gets
    ``new_mode`` less the umask — 0666 for the ``write`` tool, like any editor (a temp file
    from ``mkstemp`` would leave it 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 new_mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


class ReadArgs(ToolArgs):
    """Arguments of ``read``."""

    path: str = Field(description="File path, relative to the project root")
    offset: int | None = Field(None, description="First line to read (1-based)", ge=1)
    limit: int | None = Field(None, description="How many lines to read", ge=1)


class Read(Tool):
    name = "read"
    description = ("Read a text file. Lines come back numbered. Use offset/limit for a range "
                   "of a large file. A PNG, JPEG, GIF or WebP file comes back as the image.")
    Args = ReadArgs
    access = "read"

    async def run(self, args: ReadArgs, ctx: ToolContext) -> ToolOutcome:
        path = resolve(ctx, args.path)
        picture = await off_loop(lambda stop: read_image(path, args.path))
        if picture is not None:
            return picture
        body = await off_loop(lambda stop: read_window(path, args.path, args.offset or 1,
                                                       args.limit, stop))
        return ToolOutcome(body)


class WriteArgs(ToolArgs):
    """Arguments of ``write``."""

    path: str = Field(description="File path, relative to the project root")
    content: str = Field(description="The whole new content of the file")


class Write(Tool):
    name = "write"
    description = "Create or overwrite a file with the given content."
    Args = WriteArgs
    access = "write"

    async def run(self, args: WriteArgs, ctx: ToolContext) -> ToolOutcome:
        path = resolve_for_write(ctx, args.path)
        return await off_loop(lambda stop: self._write(path, args, ctx))

    def _write(self, path: Path, args: WriteArgs, ctx: ToolContext) -> ToolOutcome:
        if path.is_dir():
            raise ToolFailure("validation", f"{args.path} is a directory")
        existed = path.exists()
        save(write_roots(ctx), path, args.path, args.content)
        verb = "overwrote" if existed else "created"
        return ToolOutcome(f"{verb} {args.path} ({len(args.content)} characters)",
                           files=(rel(ctx, path),))


class EditArgs(ToolArgs):
    """Arguments of ``edit``."""

    path: str = Field(description="File path, relative to the project root")
    old_string: str = Field(description="Exact text to replace; must occur exactly once "
                                         "unless replace_all")
    new_string: str = Field(description="Replacement text")
    replace_all: bool = Field(False, description="Replace every occurrence")


class Edit(Tool):
    name = "edit"
    description = ("Replace an exact string in a file. old_string must match the file "
                   "exactly (whitespace included) and be unique unless replace_all is true.")
    Args = EditArgs
    access = "write"

    async def run(self, args: EditArgs, ctx: ToolContext) -> ToolOutcome:
        path = resolve_for_write(ctx, args.path)
        if args.old_string == "":
            raise ToolFailure("validation", "old_string is empty; use write to create a file")
        return await off_loop(lambda stop: self._edit(path, args, ctx))

    def _edit(self, path: Path, args: EditArgs, ctx: ToolContext) -> ToolOutcome:
        content = _read_text(write_roots(ctx), path, args.path)
        count = content.count(args.old_string)
        if count == 0:
            raise ToolFailure("edit_no_match", f"old_string was not found in {args.path}; "
                              "read the file and copy the text exactly")
        if count > 1 and not args.replace_all:
            raise ToolFailure("edit_not_unique", f"old_string occurs {count} times in "
                              f"{args.path}; add surrounding lines to make it unique, or set "
                              "replace_all")
        new = content.replace(args.old_string, args.new_string, -1 if args.replace_all else 1)
        save(write_roots(ctx), path, args.path, new)
        return ToolOutcome(f"edited {args.path} ({count} replacement{'s' * (count > 1)})",
                           files=(rel(ctx, path),))
