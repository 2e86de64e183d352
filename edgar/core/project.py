"""Where a project's root and edgar's state directory are, and the opened ``Project``.

Guarantees:
- The root is the nearest directory (from cwd upwards) holding ``.git``, else the cwd;
  edgar's per-project state lives in ``<root>/.edgar``.
- A ``Project`` is built only by the composition root (``cli/setup.py``'s
  ``open_project``), which gives it the one ``Redactor``; commands that are not the CLI
  (``edgar stats``/``history``/``import`` in the learning package) receive the opener as a
  ``ProjectOpener`` and never import ``edgar.cli``. Every store it opens redacts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from edgar.config import Settings
    from edgar.memory.store import MemoryStore

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
commits.jsonl
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


@dataclass(frozen=True)
class Project:
    """One project as a command sees it: root, settings and the redactor every store uses."""

    root: Path
    settings: Settings
    redact: Callable[[str], str]

    @property
    def state(self) -> Path:
        """``<root>/.edgar``; not created (read-only commands must not create it)."""
        return state_dir(self.root)

    def ensure_state(self) -> Path:
        return ensure_state_dir(self.root)

    def memory(self) -> MemoryStore:
        """The fact store, opened with this project's redactor (creates ``.edgar/``)."""
        from edgar.memory.store import MemoryStore

        return MemoryStore(self.ensure_state() / "memory.db", redact=self.redact)


ProjectOpener = Callable[[Path, "Settings"], Project]
"""``cli/setup.py``'s ``open_project``, handed to commands outside the CLI package."""
