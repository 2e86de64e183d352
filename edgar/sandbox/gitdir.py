"""Where a project's repository keeps its files, read without running anything (``git_dirs``).

Guarantees:
- ``git_dirs(root)`` is (the git dir, the common dir): ``root/.git`` itself, or where a
  ``.git`` file (a worktree, a submodule) points, and that dir's ``commondir``. Nothing is
  run and nothing heavy is imported, so the session may ask it at start-up; neither path
  need exist.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def git_dirs(root: Path | str) -> tuple[Path, Path]:
    """(the git dir, the common dir) of ``root``'s repository, read from its files without
    running anything: ``.git`` itself, or where a ``.git`` file (a worktree, a submodule)
    points, and that dir's ``commondir``. Neither need exist."""
    base = Path(os.path.realpath(root))
    dot = base / ".git"
    gitdir = dot
    if dot.is_file():
        try:
            text = dot.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return dot, dot
        if text.startswith("gitdir:"):
            gitdir = (base / text[len("gitdir:"):].strip()).resolve()
    common = gitdir
    with contextlib.suppress(OSError, ValueError):
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    return gitdir, common
