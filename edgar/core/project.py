"""Where a project's root and edgar's state directory are, and the opened ``Project``.

Guarantees:
- The root is the nearest directory (from cwd upwards) holding ``.git``, else the cwd.
- edgar's per-project learned and resumable state (facts, counters, sessions, checkpoints,
  input history) lives in the user dir, keyed by the root's real path
  (``edgar.paths.project_state``, ADR-0075), never in the repository: a clone cannot ship
  it. ``<root>/.edgar`` holds only what a team shares on purpose (config, commands, skills,
  hooks), behind trust. The first ``state_dir`` of a process for a root moves this user's own
  state from an older ``<root>/.edgar`` (``core/adopt.py``) and says so on stderr.
- A ``Project`` is built only by the composition root (``cli/setup.py``'s
  ``open_project``), which gives it the one ``Redactor``; commands that are not the CLI
  (``edgar stats``/``history``/``import`` in the learning package) receive the opener as a
  ``ProjectOpener`` and never import ``edgar.cli``. Every store it opens redacts.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgar.config import Settings
    from edgar.memory.store import MemoryStore

GITIGNORE = """# edgar keeps learned state in the user dir now; older versions wrote it here
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


_adopted: set[str] = set()   # roots whose old .edgar state this process has looked at


def _say(message: str) -> None:
    print(f"edgar: {message}", file=sys.stderr)


def shared_dir(root: Path) -> Path:
    """``<root>/.edgar``: what the repository shares (config, commands, skills, hooks)."""
    return root / ".edgar"


def state_dir(root: Path) -> Path:
    """This project's state dir in the user dir; not created (unless old state moves there)."""
    from edgar.paths import project_state

    path = project_state(root)
    key = os.path.realpath(root)
    if key not in _adopted:
        _adopted.add(key)
        from edgar.core.adopt import adopt

        adopt(Path(key), path, _say)
    return path


STATE_DIRS = ("sessions", "checkpoints")   # folders in the state dir edgar writes into


def ensure_state_dir(root: Path) -> Path:
    """Create the state dir on first use; it is 0700, also when it existed. The state dir,
    or one of ``STATE_DIRS`` in it, that is not a directory is ``BrokenState`` (one line
    with the way out), never a ``FileExistsError`` halfway through a session."""
    path = state_dir(root)
    for folder in (path, *(path / name for name in STATE_DIRS)):
        if os.path.lexists(folder) and not folder.is_dir():
            from edgar.storage.broken import BrokenState

            raise BrokenState(folder, "is not a directory")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def ensure_shared_dir(root: Path) -> Path:
    """Create ``<root>/.edgar`` (and its .gitignore, for older edgars' state) for
    ``edgar init``; 0700, also when it existed."""
    path = shared_dir(root)
    if os.path.lexists(path) and not path.is_dir():
        from edgar.storage.broken import BrokenState

        raise BrokenState(path, "is not a directory")
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
        """The project's state dir in the user dir; not created (read-only commands must not
        create it)."""
        return state_dir(self.root)

    def ensure_state(self) -> Path:
        return ensure_state_dir(self.root)

    def memory(self) -> MemoryStore:
        """The fact store, opened with this project's redactor (creates the state dir)."""
        from edgar.memory.store import MemoryStore

        return MemoryStore(self.ensure_state() / "memory.db", redact=self.redact)


ProjectOpener = Callable[[Path, "Settings"], Project]
"""``cli/setup.py``'s ``open_project``, handed to commands outside the CLI package."""
