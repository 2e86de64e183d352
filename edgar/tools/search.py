"""glob and grep over the project, skipping VCS and edgar's own state.

Guarantees:
- Results are bounded (``LIMIT`` entries) and say when they were cut; an invalid regular
  expression is a ``validation`` error.
- Only regular files inside the root (or the added directory searched, ``--add-dir``) are
  listed or read: a symlink whose target leaves it is skipped (never followed), and so are FIFOs,
  sockets and devices — nothing can make
  a search block or read ``/dev/zero``.
- grep streams each file line by line (lines cut at ``fileio.MAX_LINE``), skips binary files,
  and skips files over ``GREP_MAX_BYTES`` while walking a directory, saying which; memory
  stays bounded whatever the tree holds (``bench/grep_memory.py``).
- File names that are not valid UTF-8 are shown with U+FFFD, never a crash.
- The walk runs off the event loop and stops when the call is cancelled.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from edgar.declared import Field
from edgar.tools.base import (
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
    rel,
    resolve,
    root_of,
)
from edgar.tools.fileio import SNIFF, inside, is_binary, lines, off_loop, shown, text

SKIP_DIRS = {".git", ".hg", ".svn", ".edgar", "node_modules", "__pycache__", ".venv", "venv",
             ".mypy_cache", ".pytest_cache", ".tox"}
LIMIT = 500
GREP_MAX_BYTES = 20 * 1024 * 1024


def walk(base: Path, root: Path, stop: threading.Event | None = None) -> Iterator[Path]:
    """Regular files under ``base`` (sorted), never through or to anything outside ``root``."""
    for dirpath, dirnames, filenames in os.walk(base):  # os.walk never descends a dir link
        if stop is not None and stop.is_set():
            return
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if regular_inside(path, root):
                yield path


def regular_inside(path: Path, root: Path) -> bool:
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            if not inside(root, path):
                return False
            info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode)


class GlobArgs(ToolArgs):
    """Arguments of ``glob``."""

    pattern: str = Field(description="Glob pattern relative to the root, e.g. 'src/**/*.py'")
    path: str | None = Field(None, description="Directory to search in (default: the project "
                             "root); the pattern is relative to it")


class Glob(Tool):
    name = "glob"
    description = "List files matching a glob pattern (** matches directories)."
    Args = GlobArgs
    access = "read"

    async def run(self, args: GlobArgs, ctx: ToolContext) -> ToolOutcome:
        base = resolve(ctx, args.path) if args.path else ctx.root.resolve()
        return await off_loop(lambda stop: self._glob(args, base, ctx, stop))

    def _glob(self, args: GlobArgs, base: Path, ctx: ToolContext,
              stop: threading.Event) -> ToolOutcome:
        if not base.is_dir():
            raise ToolFailure("not_found", f"{args.path} is not a directory")
        root = _walk_root(ctx, base)
        pattern = args.pattern.lstrip("./") if args.pattern.startswith("./") else args.pattern
        found: list[str] = []
        for path in walk(base, root, stop):
            if _glob_match(path.relative_to(base).as_posix(), pattern):
                found.append(shown(rel(ctx, path)))
                if len(found) > LIMIT:
                    break
        if not found:
            return ToolOutcome(f"no files match {args.pattern}")
        cut = f"\n… more than {LIMIT} matches; narrow the pattern" if len(found) > LIMIT else ""
        return ToolOutcome("\n".join(found[:LIMIT]) + cut)


def _walk_root(ctx: ToolContext, base: Path) -> Path:
    """The root a walk from ``base`` stays in: the added directory holding it (``--add-dir``),
    else the project root."""
    root = ctx.root.resolve()
    return root_of(base, (root, *ctx.extra_roots)) or root


def _glob_match(name: str, pattern: str) -> bool:
    if "/" not in pattern:
        return fnmatch.fnmatch(os.path.basename(name), pattern)
    return Path(name).match(pattern) or fnmatch.fnmatch(name, pattern) or (
        pattern.startswith("**/") and fnmatch.fnmatch(name, pattern[3:]))


class GrepArgs(ToolArgs):
    """Arguments of ``grep``."""

    pattern: str = Field(description="Regular expression (Python syntax)")
    path: str | None = Field(None, description="File or directory to search (default: root)")
    glob: str | None = Field(None, description="Only files whose name matches this glob")


class Grep(Tool):
    name = "grep"
    description = "Search file contents with a regular expression; prints path:line:text."
    Args = GrepArgs
    access = "read"

    async def run(self, args: GrepArgs, ctx: ToolContext) -> ToolOutcome:
        try:
            regex = re.compile(args.pattern)
        except re.error as exc:
            raise ToolFailure("validation", f"invalid regular expression: {exc}") from None
        base = resolve(ctx, args.path or ".")
        return await off_loop(lambda stop: self._grep(regex, base, args, ctx, stop))

    def _grep(self, regex: re.Pattern[str], base: Path, args: GrepArgs, ctx: ToolContext,
              stop: threading.Event) -> ToolOutcome:
        root = _walk_root(ctx, base)
        if not base.exists():
            raise ToolFailure("not_found", f"{args.path} does not exist")
        single = not base.is_dir()
        if single and not regular_inside(base, Path("/")):
            raise ToolFailure("validation", f"{args.path} is not a regular file; only regular "
                              "files are searched")
        files = iter([base]) if single else walk(base, root, stop)
        hits: list[str] = []
        too_big: list[str] = []
        for path in files:
            name = shown(rel(ctx, path))
            if args.glob and not _glob_match(name, args.glob):
                continue
            if not single and _size(path) > GREP_MAX_BYTES:
                too_big.append(name)
                continue
            _search(path, name, regex, hits, stop)
            if len(hits) > LIMIT or stop.is_set():
                break
        notes = ""
        if len(hits) > LIMIT:
            notes += f"\n… more than {LIMIT} matches; narrow the search"
        if too_big:
            listed = ", ".join(too_big[:5]) + (f" and {len(too_big) - 5} more"
                                               if len(too_big) > 5 else "")
            notes += (f"\n… skipped {len(too_big)} file(s) over {GREP_MAX_BYTES // 2**20} MB: "
                      f"{listed} (grep one of them by path to search it)")
        if not hits:
            return ToolOutcome(f"no matches for {args.pattern}{notes}")
        return ToolOutcome("\n".join(hits[:LIMIT]) + notes)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _search(path: Path, name: str, regex: re.Pattern[str], hits: list[str],
            stop: threading.Event) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return
    with os.fdopen(fd, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or is_binary(handle.read(SNIFF)):
                return   # swapped for something else since the walk, or binary
            handle.seek(0)
            for number, raw in enumerate(lines(handle, stop), 1):
                line = text(raw)
                if regex.search(line):
                    hits.append(f"{name}:{number}:{line[:300]}")
                    if len(hits) > LIMIT:
                        return
        except OSError:
            return
