"""read, write and edit: the file tools.

Guarantees: ``write`` and ``edit`` replace a file atomically (temp file + rename), so a
crash never leaves it half-written; ``edit`` changes nothing unless ``old_string`` occurs
exactly once (or ``replace_all``), and says which of the two it was when it refuses.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from edgar.tools.base import (
    Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome, rel, resolve, resolve_for_write,
)


def _read_text(path: Path, shown: str) -> str:
    if not path.exists():
        raise ToolFailure("not_found", f"{shown} does not exist")
    if path.is_dir():
        raise ToolFailure("not_found", f"{shown} is a directory; use glob to list it")
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        raise ToolFailure("validation", f"{shown} looks binary; not reading it")
    return data.decode("utf-8", errors="replace")


def atomic_write(path: Path, text: str) -> None:
    import tempfile  # here, not at the top: it pulls in random and shutil, start-up time

    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
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
                   "of a large file.")
    Args = ReadArgs
    access = "read"

    async def run(self, args: ReadArgs, ctx: ToolContext) -> ToolOutcome:
        path = resolve(ctx, args.path)
        lines = _read_text(path, args.path).splitlines()
        start = (args.offset or 1) - 1
        end = len(lines) if args.limit is None else start + args.limit
        body = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines[start:end], start + 1))
        if not lines:
            body = "(empty file)"
        elif end < len(lines):
            body += f"\n… {len(lines) - end} more lines; read with offset={end + 1}"
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
        if path.is_dir():
            raise ToolFailure("validation", f"{args.path} is a directory")
        existed = path.exists()
        atomic_write(path, args.content)
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
        text = _read_text(path, args.path)
        if args.old_string == "":
            raise ToolFailure("validation", "old_string is empty; use write to create a file")
        count = text.count(args.old_string)
        if count == 0:
            raise ToolFailure("edit_no_match", f"old_string was not found in {args.path}; "
                              "read the file and copy the text exactly")
        if count > 1 and not args.replace_all:
            raise ToolFailure("edit_not_unique", f"old_string occurs {count} times in "
                              f"{args.path}; add surrounding lines to make it unique, or set "
                              "replace_all")
        new = text.replace(args.old_string, args.new_string, -1 if args.replace_all else 1)
        atomic_write(path, new)
        return ToolOutcome(f"edited {args.path} ({count} replacement{'s' * (count > 1)})",
                           files=(rel(ctx, path),))
