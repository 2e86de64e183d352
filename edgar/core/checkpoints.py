"""Checkpoints: what a turn changed, so ``/undo`` and ``edgar undo`` can put it back.

Guarantees:
- Before a turn first changes a file through ``write`` or ``edit`` (any depth), an exact
  copy of it (or the fact that it did not exist) is stored; later changes in the same turn
  keep that first copy. Copies are the person's own working files, so they are not
  redacted (ADR-0048), and are written 0600 in 0700 directories under
  ``.edgar/checkpoints/`` (gitignored), each turn's manifest replaced atomically.
- In a git work tree, files a ``shell`` call made dirty (clean before it, so equal to
  ``HEAD``) or created (untracked) are recorded too: undo restores them from ``HEAD`` or
  removes them. A shell change to a file that was already dirty is not seen (ADR-0048).
  Every git command here goes through ``edgar.sandbox.git`` (inside the session's sandbox,
  neutralised: the repository's config cannot make it run a program; ADR-0070).
- The store is bounded (``max_bytes`` in all, ``max_file`` per copy): the oldest turns are
  dropped first; a file too large to copy is recorded as such and undo says so.
- The store is short-lived: a session's turns are deleted once ``max_age`` (7 days) has passed
  since that session's last recorded change — when a turn is next recorded in the project,
  and when ``edgar undo`` or ``edgar diff`` runs (``expire``). The running session's own turns
  are never expired.
- ``undo(n)`` restores the newest ``n`` turns' files, newest first, and returns what it did
  to each path; ``diff()`` is a unified diff (3 lines of context) of a session's changes:
  each file's state before the session first changed it against the file now.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Protocol

if TYPE_CHECKING:
    from edgar.events import TurnStarted
    from edgar.sandbox.core import Sandbox


class Confinement(Protocol):
    """Where edgar's git runs: the session's sandbox (built at first use)."""

    def get(self) -> Sandbox: ...

MAX_BYTES = 50_000_000
MAX_FILE = 5_000_000
MAX_AGE = 7 * 24 * 3600  # seconds after a session's last change that its copies are kept


@dataclass(frozen=True)
class Restored:
    path: str
    action: str          # "restored", "removed", "not restorable: …"


def _private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)


def _write_private(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def _restore_file(path: Path, data: bytes, mode: int | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.edgar-undo")
    with open(tmp, "wb") as handle:
        handle.write(data)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)


class Checkpoints:
    def __init__(self, root: Path, state: Path, session_id: str, *,
                 max_bytes: int = MAX_BYTES, max_file: int = MAX_FILE, max_age: float = MAX_AGE,
                 sandbox: Confinement | None = None):
        self.root = root.resolve()
        self.sandbox = sandbox   # None: the project's default confined policy
        self.dir = state / "checkpoints"
        self.session_id = session_id
        self.max_bytes, self.max_file, self.max_age = max_bytes, max_file, max_age
        self.turn_id = ""
        self.current: Path | None = None
        self.manifest: dict[str, Any] = {}
        self._dirty_before: set[str] | None = None

    # -- wiring (cli/setup.py subscribes on_turn_started; the harness calls the rest) ---------
    def on_turn_started(self, event: TurnStarted) -> None:
        if getattr(event, "depth", 0) == 0:
            self.turn_id, self.current, self.manifest = event.turn_id, None, {}

    def _open(self) -> Path:
        if self.current is None:
            self.expire()
            _private_dir(self.dir)
            ignore = self.dir / ".gitignore"
            if not ignore.exists():  # copies of working files: never committed, whatever
                ignore.write_text("*\n", encoding="utf-8")  # .edgar/.gitignore says
            seq = max((int(p.name.split("-", 1)[0]) for p in self._turn_dirs()), default=0) + 1
            self.current = self.dir / f"{seq:06d}-{self.session_id}-{self.turn_id or 'turn'}"
            _private_dir(self.current)
            _private_dir(self.current / "files")
            self.manifest = {"session": self.session_id, "turn": self.turn_id,
                             "created": time.time(), "files": [], "shell": []}
        return self.current

    def _save(self) -> None:
        assert self.current is not None
        _write_private(self.current / "manifest.json", json.dumps(self.manifest).encode())
        self._prune()

    def _rel(self, path: str | Path) -> str | None:
        full = (self.root / Path(path).expanduser()).resolve()
        try:
            return full.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _known(self, rel: str) -> bool:
        return any(f["path"] == rel for f in self.manifest.get("files", [])) or any(
            f["path"] == rel for f in self.manifest.get("shell", []))

    def before_write(self, path: str) -> None:
        """Keep the file as it is now, unless this turn already kept it."""
        rel = self._rel(path)
        if rel is None or (self.current is not None and self._known(rel)):
            return
        target = self._open()
        full = self.root / rel
        entry: dict[str, Any] = {"path": rel, "existed": full.is_file(), "blob": None,
                                 "mode": None}
        if full.is_file():
            size = full.stat().st_size
            if size > self.max_file:
                entry["too_big"] = size
            else:
                blob = str(len(self.manifest["files"]))
                _write_private(target / "files" / blob, full.read_bytes())
                entry["blob"], entry["mode"] = blob, full.stat().st_mode & 0o7777
        self.manifest["files"].append(entry)
        self._save()

    # -- shell calls, in a git work tree -----------------------------------------------------
    def _box(self) -> Sandbox:
        if self.sandbox is not None:
            return self.sandbox.get()
        from edgar.sandbox import Policy, Sandbox

        box = Sandbox(Policy.for_project(self.root))
        self.sandbox = _Fixed(box)
        return box

    async def _git(self, *args: str) -> bytes | None:
        from edgar.sandbox.git import git

        done = await git(list(args), root=self.root, sandbox=self._box())
        return done.stdout if done.ok else None

    async def _status(self) -> dict[str, str] | None:
        if not (self.root / ".git").exists():
            return None
        out = await self._git("status", "--porcelain", "-z", "--untracked-files=all")
        if out is None:
            return None
        status: dict[str, str] = {}
        records = out.decode("utf-8", "replace").split("\0")
        i = 0
        while i < len(records):
            record = records[i]
            i += 1
            if len(record) < 4:
                continue
            code, path = record[:2], record[3:]
            if code[0] in "RC":
                i += 1   # the rename's source follows; the destination is what changed
            status[path] = code
        return status

    async def before_shell(self) -> None:
        status = await self._status()
        self._dirty_before = None if status is None else set(status)

    async def after_shell(self) -> None:
        before, self._dirty_before = self._dirty_before, None
        if before is None:
            return
        status = await self._status()
        if status is None:
            return
        changed = [(p, c) for p, c in status.items() if p not in before]
        fresh = [(p, c) for p, c in changed if self.current is None or not self._known(p)]
        if not fresh:
            return
        self._open()
        for path, code in fresh:
            self.manifest["shell"].append({"path": path, "untracked": code == "??"})
        self._save()

    # -- reading back ------------------------------------------------------------------------
    def _turn_dirs(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        return sorted((p for p in self.dir.iterdir() if p.is_dir() and p.name[:6].isdigit()),
                      key=lambda p: p.name)

    @staticmethod
    def _manifest(turn: Path) -> dict[str, Any] | None:
        try:
            manifest = json.loads((turn / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return manifest if isinstance(manifest, dict) else None

    def turns(self, session: str | None = None) -> list[tuple[Path, dict[str, Any]]]:
        """(dir, manifest) of stored turns, oldest first; only ``session``'s when given."""
        out = []
        for turn in self._turn_dirs():
            manifest = self._manifest(turn)
            if manifest and (session is None or manifest.get("session") == session):
                out.append((turn, manifest))
        return out

    def expire(self, now: float | None = None) -> list[str]:
        """Delete the turns of every other session whose last change is more than ``max_age``
        ago; returns the sessions expired. A turn with no readable manifest is judged by its
        directory's modification time."""
        now = time.time() if now is None else now
        last: dict[str, float] = {}
        dirs: dict[str, list[Path]] = {}
        for turn in self._turn_dirs():
            manifest = self._manifest(turn)
            session = manifest.get("session", "") if manifest else f"?{turn.name}"
            try:
                when = float(manifest["created"]) if manifest else turn.stat().st_mtime
            except (KeyError, TypeError, ValueError, OSError):
                when = now  # unknown age: kept, rather than lost by a guess
            last[session] = max(last.get(session, when), when)
            dirs.setdefault(session, []).append(turn)
        gone = [s for s, t in last.items() if s != self.session_id and now - t > self.max_age]
        for session in gone:
            for turn in dirs[session]:
                shutil.rmtree(turn, ignore_errors=True)
        return gone

    def _prune(self) -> None:
        turns = self._turn_dirs()
        sizes = [sum(f.stat().st_size for f in t.rglob("*") if f.is_file()) for t in turns]
        total = sum(sizes)
        for turn, size in zip(turns, sizes):
            if total <= self.max_bytes or turn == self.current:
                break
            shutil.rmtree(turn, ignore_errors=True)
            total -= size

    async def _head(self, path: str) -> bytes | None:
        # cat-file: the blob's bytes as stored, no filter and no textconv
        return await self._git("cat-file", "blob", f"HEAD:{path}")

    async def undo(self, n: int = 1, session: str | None = None) -> list[list[Restored]]:
        """Restore the newest ``n`` turns (of ``session`` if given); one list per turn."""
        done: list[list[Restored]] = []
        for turn, manifest in reversed(self.turns(session)[-n:] if n > 0 else []):
            done.append(await self._undo_one(turn, manifest))
            shutil.rmtree(turn, ignore_errors=True)
            if turn == self.current:
                self.current, self.manifest = None, {}
        return done

    async def _undo_one(self, turn: Path, manifest: dict[str, Any]) -> list[Restored]:
        out: list[Restored] = []
        for entry in reversed(manifest.get("shell", [])):
            full = self.root / entry["path"]
            if entry.get("untracked"):
                if full.is_file():
                    full.unlink()
                out.append(Restored(entry["path"], "removed"))
                continue
            data = await self._head(entry["path"])
            if data is None:
                out.append(Restored(entry["path"], "not restorable: not in HEAD"))
            else:
                _restore_file(full, data, None)
                out.append(Restored(entry["path"], "restored from HEAD"))
        for entry in reversed(manifest.get("files", [])):
            full = self.root / entry["path"]
            if entry.get("too_big"):
                out.append(Restored(entry["path"], f"not restorable: larger than "
                                                   f"{self.max_file} bytes, not copied"))
            elif not entry["existed"]:
                if full.is_file():
                    full.unlink()
                out.append(Restored(entry["path"], "removed"))
            else:
                _restore_file(full, (turn / "files" / entry["blob"]).read_bytes(), entry["mode"])
                out.append(Restored(entry["path"], "restored"))
        return out

    async def diff(self, session: str | None = None) -> str:
        """This session's changes (``session`` defaults to this one) as a unified diff."""
        import difflib

        first: dict[str, tuple[bytes | None, str]] = {}
        for turn, manifest in self.turns(session or self.session_id):
            for entry in manifest.get("files", []):
                if entry["path"] in first:
                    continue
                if entry.get("too_big"):
                    first[entry["path"]] = (None, "too big")
                elif entry["existed"]:
                    first[entry["path"]] = ((turn / "files" / entry["blob"]).read_bytes(), "")
                else:
                    first[entry["path"]] = (b"", "new")
            for entry in manifest.get("shell", []):
                if entry["path"] not in first:
                    before = b"" if entry.get("untracked") else await self._head(entry["path"])
                    first[entry["path"]] = (before, "new" if entry.get("untracked") else "")
        chunks: list[str] = []
        for path, (before, note) in sorted(first.items()):
            if before is None:
                chunks.append(f"# {path}: not shown ({note or 'unknown'} before this session)\n")
                continue
            full = self.root / path
            now = full.read_bytes() if full.is_file() else b""
            if now == before:
                continue
            old_name = "/dev/null" if note == "new" else f"a/{path}"
            new_name = f"b/{path}" if full.is_file() else "/dev/null"
            lines = difflib.unified_diff(_lines(before), _lines(now), old_name, new_name, n=3)
            chunks.append("".join(lines))
        return "".join(chunks)


class _Fixed:
    def __init__(self, box: Sandbox):
        self.box = box

    def get(self) -> Sandbox:
        return self.box


def _lines(data: bytes) -> list[str]:
    lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def describe(turns: Iterable[list[Restored]]) -> list[str]:
    """Lines saying what an undo did, for the REPL and ``edgar undo``."""
    out = []
    for number, restored in enumerate(turns, 1):
        for item in restored:
            out.append(f"{item.action} {item.path}")
    return out
