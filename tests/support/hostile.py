"""The four kinds of machine edgar meets — root or an ordinary user, bubblewrap installed or
not — for tests that drive the real ``edgar`` command against a hostile repository.

``Machine(user, bwrap)`` gives the environment and the subprocess arguments: as the ordinary
user of ``support.users`` the run uses a copy of the package that uid can read and owns the
test's tree; "bwrap hidden" gives a PATH that holds every program of the system's bin directories
except ``bwrap`` (and the interpreter's own directory only where that has no ``bwrap``, so the
ordinary user's ``/usr/bin/python3`` does not bring it back). That directory is made once,
outside every temp dir, as a person's ``/usr/bin`` is: a program found there is not one the model
could plant.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from support.project import REPO, beyond_temp, edgar_env
from support.users import User, as_user, ordinary_user

BWRAP = shutil.which("bwrap")
SYSTEM_BINS = ("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin")
KINDS = [("root", True), ("root", False), ("user", True), ("user", False)]
IDS = ["root-bwrap", "root-no-bwrap", "user-bwrap", "user-no-bwrap"]


# what ``edgar -p`` with the scripted provider imports from site-packages; an ordinary user
# cannot enter a virtualenv under /root, so these are copied where it can read them
RUNTIME = ("pydantic", "pydantic_core", "annotated_types", "typing_extensions",
           "typing_inspection", "platformdirs", "msgspec", "prompt_toolkit", "wcwidth")


def user_site() -> Path:
    """A copy of the runtime dependencies any uid can read (made once per machine state)."""
    import importlib
    import tempfile

    stamp = "-".join(str(int(os.stat(importlib.import_module(m).__file__ or "").st_mtime))
                     for m in RUNTIME[:2]) + f"-{len(RUNTIME)}"   # a name added: a new copy
    site = Path(tempfile.gettempdir()) / f"edgar-test-site-{os.getuid()}-{stamp}"
    if site.is_dir():
        return site
    partial = Path(tempfile.mkdtemp(prefix="edgar-test-site-"))
    for name in RUNTIME:
        source = Path(importlib.import_module(name).__file__ or "")
        if source.name == "__init__.py":
            shutil.copytree(source.parent, partial / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, partial / source.name)
    for path in (partial, *partial.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    try:
        partial.rename(site)
    except OSError:   # another worker made it first
        shutil.rmtree(partial, ignore_errors=True)
    return site


def bin_without_bwrap() -> Path:
    """A directory of links to every system program but bwrap, outside the temp dirs
    (`support.project.beyond_temp`), made once and then reused."""
    names = sorted({name for folder in SYSTEM_BINS if os.path.isdir(folder)
                    for name in os.listdir(folder) if name != "bwrap"})
    import hashlib

    stamp = hashlib.sha256("\0".join(names).encode()).hexdigest()[:12]
    # outside the temp dirs: a program in one is one the model could have planted, and edgar
    # rightly refuses to name it (issue 21 item 8); beyond_temp() is one any uid can reach
    where = beyond_temp() / f"test-bin-no-bwrap-{stamp}"
    if where.is_dir():
        return where
    where.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix="partial-", dir=where.parent))
    for folder in SYSTEM_BINS:
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            link = partial / name
            if name != "bwrap" and not os.path.lexists(link):
                link.symlink_to(os.path.join(folder, name))
    partial.chmod(0o755)
    try:
        partial.rename(where)
    except OSError:   # another worker made it first
        shutil.rmtree(partial, ignore_errors=True)
    return where


def path_without_bwrap(python: str) -> str:
    """A PATH with every system program but bwrap, and ``python``'s own directory first
    unless bwrap is there too (the ordinary user's ``/usr/bin/python3``)."""
    own = str(Path(python).parent)
    path = [own] if shutil.which("bwrap", path=own) is None else []
    found = os.pathsep.join([*path, str(bin_without_bwrap())])
    assert shutil.which("bwrap", path=found) is None, found
    return found


@dataclass
class Machine:
    base: Path                    # everything of the run lives beneath: chowned to the user
    who: str = "root"             # "root": the test's own uid; "user": support.users
    bwrap: bool = True
    user: User | None = field(init=False, default=None)
    src: Path = field(init=False, default=REPO)
    python: str = field(init=False, default=sys.executable)

    def __post_init__(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        if self.who == "user" and os.geteuid() == 0:
            self.user = ordinary_user()
            self.python = self.user.python
            self.src = self.base / "src"
            shutil.copytree(REPO / "edgar", self.src / "edgar",
                            ignore=shutil.ignore_patterns("__pycache__"))

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        env = edgar_env(home, **extra)
        env["PYTHONPATH"] = str(self.src)
        if self.user is not None and self.python != sys.executable:
            env["PYTHONPATH"] += os.pathsep + str(user_site())
        if not self.bwrap:
            env["PATH"] = path_without_bwrap(self.python)
        return env

    def own(self) -> None:
        """Hand the tree to the user (after the test has built it)."""
        if self.user is None:
            return
        for path in (self.base, *self.base.rglob("*")):
            os.lchown(path, self.user.uid, self.user.gid)

    def edgar(self, args: list[str], cwd: Path, env: dict[str, str],
              timeout: float = 90) -> subprocess.CompletedProcess[str]:
        self.own()
        kw = as_user(self.user) if self.user is not None else {}
        return subprocess.run([self.python, "-m", "edgar", *args], cwd=cwd, env=env, input="",
                              capture_output=True, text=True, timeout=timeout, **kw)

    def git(self, *args: str, cwd: Path) -> None:
        """The test's own setup git, as the person (never through edgar)."""
        env = {"PATH": os.environ["PATH"], "HOME": str(self.base), "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        subprocess.run(["git", "-c", "protocol.file.allow=always", *args], cwd=cwd, env=env,
                       check=True, capture_output=True)


def machine_fixture(prefix: str):
    """A `machine` fixture for a test module: one Machine per kind (root and the ordinary
    user, bubblewrap present and hidden) in a fresh temp dir named `prefix…`, removed after."""
    import pytest

    @pytest.fixture(params=KINDS, ids=IDS)
    def machine(request):
        who, bwrap = request.param
        base = Path(tempfile.mkdtemp(prefix=prefix))
        try:
            yield Machine(base, who, bwrap)
        finally:
            shutil.rmtree(base, ignore_errors=True)

    return machine
