"""The real ``edgar`` command run as root or as the ordinary user of ``support.users``.

As root, the ordinary user is a uid no account has; it cannot enter a checkout under /root
nor run the venv's interpreter there. So ``Runner`` for that user copies the package and the
distributions it needs at run time (from this interpreter's metadata, not a hand-kept list)
into a directory that uid can read, and runs them with a Python that uid can run. Not root,
both runners are the person running the tests. Every path the runner is given (project, home)
must belong to that user: ``own`` hands a tree over.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from support.project import REPO, edgar_env
from support.users import User, as_user, ordinary_user

RUNTIME = ("httpx2", "prompt_toolkit", "rich", "platformdirs", "pydantic")


def _requirements(name: str, seen: set[str]) -> None:
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        return
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return
    seen.add(key)
    for req in dist.requires or []:
        if "extra ==" in req:
            continue
        _requirements(re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0], seen)


def _copy_distributions(target: Path) -> None:
    names: set[str] = set()
    for name in RUNTIME:
        _requirements(name, names)
    for key in sorted(names):
        dist = metadata.distribution(key)
        for item in dist.files or []:
            source = Path(dist.locate_file(item))
            if (not source.is_file() or item.parts[0] in ("..", "bin")
                    or "__pycache__" in item.parts):
                continue
            dest = target / item
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)


@dataclass
class Runner:
    """``run(args, cwd, env)`` as ``who``; ``env()`` is edgar_env for that user."""

    who: str                        # "root" or "user"
    user: User | None = None        # None: this process's own user
    base: Path | None = None
    pythonpath: str = str(REPO)
    python: str = field(default="")
    bwrap: bool = True              # False: PATH without bwrap, as support.hostile hides it

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        env = edgar_env(home, **extra)
        env["PYTHONPATH"] = self.pythonpath
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        if not self.bwrap:
            from support.hostile import path_without_bwrap

            env["PATH"] = path_without_bwrap(self.python)
        return env

    def own(self, *paths: Path) -> None:
        """Give each tree to the runner's user (nothing to do for root or when not root)."""
        if self.user is None or os.geteuid() != 0:
            return
        for top in paths:
            for path in (top, *top.rglob("*")):
                os.lchown(path, self.user.uid, self.user.gid)

    def run(self, args: list[str], cwd: Path, env: dict[str, str], stdin: str = "",
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
        kw = as_user(self.user) if self.user is not None else {}
        return subprocess.run([self.python, "-m", "edgar", *args], cwd=cwd, env=env,
                              input=stdin, capture_output=True, text=True, timeout=timeout, **kw)

    def close(self) -> None:
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)


def runner(who: str, bwrap: bool = True) -> Runner:
    import sys

    if who == "root" or os.geteuid() != 0:
        return Runner(who, python=sys.executable, bwrap=bwrap)
    user = ordinary_user()
    base = Path(tempfile.mkdtemp(prefix="edgar-user-run-"))
    src, deps = base / "src", base / "deps"
    shutil.copytree(REPO / "edgar", src / "edgar", ignore=shutil.ignore_patterns("__pycache__"))
    _copy_distributions(deps)
    os.chmod(base, 0o755)
    for path in base.rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return Runner(who, user, base, f"{src}{os.pathsep}{deps}", user.python, bwrap)


def workdir(run: Runner) -> Path:
    """A fresh directory the runner's user owns, outside any 0700 directory."""
    base = Path(tempfile.mkdtemp(prefix="edgar-user-work-"))
    os.chmod(base, 0o755)
    run.own(base)
    return base
