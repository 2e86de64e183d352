"""What a sandboxed command may do: the policy, independent of how it is enforced.

Guarantees:
- ``Policy.for_project(root)`` (mode ``workspace-write``) allows writes beneath the project
  root and the temp dirs only; inside them ``.edgar/``, ``.git/hooks``, ``.git/config`` (and
  ``.git`` itself when it is a file pointing elsewhere) and edgar's user dir stay read-only,
  and so does each path in ``extra_protected`` (the project files trusted config runs,
  ADR-0073: the caller names them, since the sandbox knows nothing of config).
  ``read-only`` allows writes to the temp dirs only; ``off`` confines nothing.
- ``extra_roots`` (the person's ``--add-dir`` directories, ADR-0113) are writable in
  ``workspace-write`` like the project root, and what ``protected_in`` names inside each
  (its ``.edgar/``, its ``.git`` hooks and config) stays read-only as the project's does;
  ``read-only`` protects them whole.
- Network is off unless ``network=True``.
- ``env`` names the variables the person passes to commands beyond the allow-list of
  ``edgar.sandbox.env`` (``[sandbox] env``); the policy carries names of edgar's environment,
  never their values. ``set_env`` is the one place values travel: variables the person wrote
  in a settings file (Claude Code's ``env``, ADR-0079), set for the commands, hooks and MCP
  servers this policy confines (``edgar.spawn.settings_env``), never for edgar's own git.
- ``anchors()`` names the directories between a writable root and a protected path, which
  the enforcement turns into mount points so the protected path cannot be renamed away
  (``mv .git x && mkdir .git``) from inside.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Mode = Literal["workspace-write", "read-only", "off"]
MODES: tuple[Mode, ...] = ("workspace-write", "read-only", "off")

# devices and kernel-backed places every shell expects to write
DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
                "/dev/ptmx")
DEVICE_DIRS = ("/dev/pts", "/dev/shm")
MAX_PROCESSES = 1024   # a build's make -j and test workers fit; a fork bomb does not


def temp_dirs() -> tuple[str, ...]:
    import tempfile  # here: it imports random and shutil, start-up time

    found: list[str] = []
    for path in ("/tmp", "/var/tmp", tempfile.gettempdir()):
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in found:
            found.append(real)
    return tuple(found)


def protected_in(root: Path) -> list[Path]:
    """The paths under a project root that a command must not change: ``.edgar``, and in a
    repository what makes git run a program — its hooks, its config, ``info/attributes``
    (filters, diff drivers) and every submodule's config and hooks; ``.git/modules`` whole
    while it holds no submodule yet (so none can be planted there)."""
    paths = [root / ".edgar"]
    git = root / ".git"
    if git.is_dir() and not git.is_symlink():
        paths += [git / "hooks", git / "config", git / "info" / "attributes"]
        modules = git / "modules"
        found = module_dirs(modules)
        if found:
            for module in found:
                paths += [module / "config", module / "hooks"]
        else:
            paths.append(modules)
    elif git.exists() or git.is_symlink():
        paths.append(git)  # a gitdir file or link: rewriting it would swap hooks and config
    return paths


def module_dirs(modules: Path) -> list[Path]:
    """The git dirs of submodules beneath ``.git/modules`` (nested ones too; a submodule's
    name may hold slashes, ``vendor/lib``): each holds HEAD, objects/ and refs/."""
    if not modules.is_dir() or modules.is_symlink():
        return []
    found = []
    for head in sorted(modules.rglob("HEAD")):
        git = head.parent
        if (head.is_file() and git != modules and not git.is_symlink()
                and (git / "objects").is_dir() and (git / "refs").is_dir()):
            found.append(git)
    return found


@dataclass(frozen=True, slots=True)
class Policy:
    """Where a command may write and whether it may reach the network."""

    mode: Mode = "workspace-write"
    writable: tuple[str, ...] = ()   # directories beneath which writes are allowed
    protected: tuple[str, ...] = ()  # read-only even beneath a writable directory
    network: bool = False
    root: str | None = None          # the project root (where commands start)
    env: tuple[str, ...] = ()        # more variables the person passes ([sandbox] env)
    set_env: tuple[tuple[str, str], ...] = ()   # (name, value) a settings file sets (ADR-0079)
    user_dir: str | None = None      # edgar's user dir (protected; made before the first command)
    extra_roots: tuple[str, ...] = ()   # --add-dir directories, writable like the root
    max_processes: int = MAX_PROCESSES   # processes one command may have at once
    devices: tuple[str, ...] = field(default=DEVICE_FILES)

    @classmethod
    def for_project(cls, root: Path, *, mode: Mode = "workspace-write", network: bool = False,
                    extra_writable: tuple[str, ...] = (), user_dir: Path | None = None,
                    env: tuple[str, ...] = (),
                    extra_protected: tuple[str, ...] = (),
                    set_env: tuple[tuple[str, str], ...] = (),
                    extra_roots: tuple[str, ...] = ()) -> Policy:
        if mode not in MODES:
            raise ValueError(f"unknown sandbox mode {mode!r} (one of {', '.join(MODES)})")
        real = Path(os.path.realpath(root))
        added = [os.path.realpath(p) for p in extra_roots]
        writable = [*temp_dirs(), *DEVICE_DIRS]
        if mode == "workspace-write":
            writable[0:0] = [str(real), *added]
        writable += [os.path.realpath(p) for p in extra_writable]
        protected = [str(p) for p in protected_in(real)]
        for other in added:
            protected += [str(p) for p in protected_in(Path(other))]
        protected += [os.path.realpath(p) for p in extra_protected]
        if mode == "read-only":
            protected[0:0] = [str(real), *added]  # even where they live in a temp dir
        if user_dir is None:
            from edgar.paths import user_dir as find_user_dir

            user_dir = find_user_dir()
        protected.append(os.path.realpath(user_dir))
        return cls(mode=mode, writable=tuple(dict.fromkeys(writable)),
                   protected=tuple(dict.fromkeys(protected)), network=network, root=str(real),
                   env=tuple(dict.fromkeys(env)), set_env=tuple(set_env),
                   user_dir=os.path.realpath(user_dir),
                   extra_roots=tuple(dict.fromkeys(added)))

    @property
    def confined(self) -> bool:
        return self.mode != "off"

    def is_writable(self, path: str) -> bool:
        """Whether the policy lets a command write ``path`` (a real, absolute path)."""
        if not self.confined:
            return True
        if any(_beneath(path, p) for p in self.protected):
            return False
        return path in self.devices or any(_beneath(path, w) for w in self.writable)

    def protected_inside(self) -> list[str]:
        """Protected paths that exist beneath a writable root (the ones that need binding)."""
        return [p for p in self.protected
                if os.path.lexists(p) and any(_beneath(p, w) and p != w for w in self.writable)]

    def anchors(self) -> list[str]:
        """Directories strictly between the outermost writable root and each protected path,
        outermost first (each becomes a mount point so it cannot be renamed)."""
        return anchors(self.writable, self.protected_inside())


def anchors(writable: tuple[str, ...] | list[str], protected: list[str]) -> list[str]:
    """The pure part of ``Policy.anchors``."""
    found: list[str] = []
    for path in protected:
        roots = [w for w in writable if _beneath(path, w) and path != w]
        if not roots:
            continue
        outer = min(roots, key=len)
        parent = os.path.dirname(path)
        chain: list[str] = []
        while parent != outer and _beneath(parent, outer):
            chain.append(parent)
            parent = os.path.dirname(parent)
        found.extend(reversed(chain))
    return sorted(dict.fromkeys(found), key=lambda p: p.count("/"))


def _beneath(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")
