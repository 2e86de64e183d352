"""Where a project's root and edgar's state directory are.

Guarantee: the root is the nearest directory (from cwd upwards) holding ``.git``, else the
cwd; edgar's per-project state lives in ``<root>/.edgar``.
"""

from __future__ import annotations

import os
from pathlib import Path

GITIGNORE = """# edgar's per-project state: one person's sessions, not the team's
history.md
history.*.md
*.db
*.db-wal
*.db-shm
sessions/
input_history
import/
checkpoints/
"""


def find_root(start: Path | None = None) -> Path:
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def state_dir(root: Path) -> Path:
    return root / ".edgar"


def ensure_state_dir(root: Path) -> Path:
    """Create ``.edgar/`` (and its .gitignore) on first use; it is 0700, also when it existed."""
    path = state_dir(root)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text(GITIGNORE, encoding="utf-8")
    return path
