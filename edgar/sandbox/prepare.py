"""Protected paths made to exist before the first command, so they are protected even when a
project or a machine did not have them yet (issue 21 item 5).

Guarantees:
- ``prepare(policy)`` creates, where missing: edgar's user dir and the project's ``.edgar/``
  (0700), and in a repository ``.git/hooks`` (0755), an empty ``.git/config``, an empty
  ``.git/info/attributes``, ``.git/modules`` and each submodule's ``hooks``. A sandbox built
  afterwards binds them read-only (or, with Landlock alone, leaves them out of its grants), so
  removing and recreating one fails like writing it: ``rm -rf .git/hooks && mkdir .git/hooks``
  no longer plants a hook, and a shell cannot write edgar's user config before edgar did.
- What it makes is empty, so git, edgar and the person see no difference; an entry that
  exists is never changed, whatever it is (a regular file where a directory belongs is left
  to the code that reads it), and nothing is followed through a symlink.
- In each added directory (``Policy.extra_roots``, ``--add-dir``) the same git paths are made
  when it is a repository; its ``.edgar/`` is not made (it is not a project edgar opened).
- It never raises: a path it cannot make is left as it was (the layers still refuse what the
  policy refuses); mode ``off`` makes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from edgar.sandbox.policy import Policy, module_dirs


def _dir(path: Path, mode: int) -> None:
    try:
        if not os.path.lexists(path):
            path.mkdir(mode=mode, parents=True)
    except OSError:
        pass


def _file(path: Path) -> None:
    try:
        if not os.path.lexists(path.parent):
            path.parent.mkdir(parents=True)
        if path.parent.is_dir() and not path.parent.is_symlink():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            os.close(fd)
    except OSError:
        pass   # FileExistsError included: it is there already


def prepare(policy: Policy) -> None:
    if not policy.confined:
        return
    if policy.user_dir:
        _dir(Path(policy.user_dir), 0o700)
    if policy.root is None:
        return
    root = Path(policy.root)
    _dir(root / ".edgar", 0o700)
    for base in (root, *(Path(p) for p in policy.extra_roots)):
        _git(base / ".git")


def _git(git: Path) -> None:
    if not git.is_dir() or git.is_symlink():
        return
    _dir(git / "hooks", 0o755)
    _file(git / "config")
    _file(git / "info" / "attributes")
    _dir(git / "modules", 0o755)
    for module in module_dirs(git / "modules"):
        _dir(module / "hooks", 0o755)
