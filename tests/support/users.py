"""An ordinary (non-root) user for tests that must see what a user's machine sees.

CI and developers run as root; edgar's users do not. As root, ``ordinary_user()`` takes a uid
and gid that no account on the machine has (root may run a process as any number; nothing is
added to /etc/passwd) and finds a Python that uid can run. Not root, it is the user running
the tests. No Python that uid can run is an error saying so, not a skip: the test it serves
is the one that shows an ordinary user's commands cannot read edgar's environment.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest

FIRST_FREE = 61000   # above the usual ranges of system and login accounts


@dataclass(frozen=True)
class User:
    uid: int
    gid: int
    python: str


def ordinary_user() -> User:
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.getuid())
        return User(me.pw_uid, me.pw_gid, sys.executable)
    uid = next(n for n in range(FIRST_FREE, FIRST_FREE + 1000) if not _taken(pwd.getpwuid, n))
    gid = next(n for n in range(FIRST_FREE, FIRST_FREE + 1000) if not _taken(grp.getgrgid, n))
    tried = []
    for python in (sys.executable, "/usr/bin/python3", shutil.which("python3") or ""):
        if not python or python in tried:
            continue
        tried.append(python)
        try:
            done = subprocess.run([python, "-c", "import sys; assert sys.version_info >= (3, 11)"],
                                  user=uid, group=gid, extra_groups=[], capture_output=True)
        except OSError:
            continue  # not executable by that uid (a Python under /root, say)
        if done.returncode == 0:
            return User(uid, gid, python)
    pytest.fail(f"no Python >= 3.11 that uid {uid} can run (tried {', '.join(tried)}): install "
                "one outside /root, e.g. the system's python3", pytrace=False)


def _taken(lookup, number: int) -> bool:
    try:
        lookup(number)
        return True
    except KeyError:
        return False


def as_user(user: User) -> dict:
    """Keyword arguments for subprocess.run/Popen that run the child as ``user``."""
    if os.geteuid() != 0:
        return {}
    return {"user": user.uid, "group": user.gid, "extra_groups": []}


def runtime_copy(dest: str | os.PathLike[str], package_root: str | os.PathLike[str]) -> str:
    """A PYTHONPATH an ordinary user can import edgar from: a copy of the package and of the
    installed files of every runtime dependency (recursively, extras left out) under ``dest``;
    the interpreter's own site-packages may sit under /root, where that uid cannot read."""
    import re
    from importlib import metadata
    from pathlib import Path

    target = Path(dest)
    shutil.copytree(Path(package_root) / "edgar", target / "edgar",
                    ignore=shutil.ignore_patterns("__pycache__"))
    seen: set[str] = set()
    todo = [r for r in metadata.requires("edgar") or [] if "extra ==" not in r]
    while todo:
        name = re.split(r"[ ;<>=!~\[(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if not name or name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        todo += [r for r in dist.requires or [] if "extra ==" not in r]
        for file in dist.files or []:
            if "__pycache__" in file.parts or str(file).startswith(".."):
                continue
            source = Path(str(file.locate()))
            if source.is_file():
                out = target / file
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, out)
    return str(target)
