"""glob and grep over the project, skipping VCS and edgar's own state.

Guarantees: results are bounded (``LIMIT`` entries) and say when they were cut; binary and
unreadable files are skipped, never fatal; an invalid regular expression is a
``validation`` error.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from pydantic import Field

from edgar.tools.base import (
    Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome, rel, resolve,
)

SKIP_DIRS = {".git", ".hg", ".svn", ".edgar", "node_modules", "__pycache__", ".venv", "venv",
             ".mypy_cache", ".pytest_cache", ".tox"}
LIMIT = 500


def walk(base: Path):
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath) / name


class GlobArgs(ToolArgs):
    """Arguments of ``glob``."""

    pattern: str = Field(description="Glob pattern relative to the root, e.g. 'src/**/*.py'")


class Glob(Tool):
    name = "glob"
    description = "List files matching a glob pattern (** matches directories)."
    Args = GlobArgs
    access = "read"

    async def run(self, args: GlobArgs, ctx: ToolContext) -> ToolOutcome:
        root = ctx.root.resolve()
        pattern = args.pattern.lstrip("./") if args.pattern.startswith("./") else args.pattern
        found: list[str] = []
        for path in walk(root):
            name = rel(ctx, path)
            if _glob_match(name, pattern):
                found.append(name)
                if len(found) > LIMIT:
                    break
        if not found:
            return ToolOutcome(f"no files match {args.pattern}")
        cut = f"\n… more than {LIMIT} matches; narrow the pattern" if len(found) > LIMIT else ""
        return ToolOutcome("\n".join(found[:LIMIT]) + cut)


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
        if not base.exists():
            raise ToolFailure("not_found", f"{args.path} does not exist")
        files = [base] if base.is_file() else walk(base)
        hits: list[str] = []
        for path in files:
            if args.glob and not _glob_match(rel(ctx, path), args.glob):
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if b"\0" in data[:4096]:
                continue
            for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                if regex.search(line):
                    hits.append(f"{rel(ctx, path)}:{number}:{line[:300]}")
                    if len(hits) > LIMIT:
                        break
            if len(hits) > LIMIT:
                break
        if not hits:
            return ToolOutcome(f"no matches for {args.pattern}")
        cut = f"\n… more than {LIMIT} matches; narrow the search" if len(hits) > LIMIT else ""
        return ToolOutcome("\n".join(hits[:LIMIT]) + cut)
