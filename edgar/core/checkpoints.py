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
- After each ``write``/``edit`` and each ``shell`` call the turn's files are hashed again:
  the manifest knows what the turn left (``after``).
- ``undo(n)`` never discards the person's work (issue 21 item 4, ADR-0078): it first
  checks, newest turn first, that each file is still what that turn left (or already as
  undo would make it); if any is not — the person or another program changed it since — it
  changes nothing and names those files; ``force=True`` puts edgar's copies back anyway.
  Each step names the session and turn it reverts. ``diff()`` is a unified diff (3 lines of
  context) of a session's changes: each file's state before the session first changed it
  against the file now.
- Every read and write of a project file here goes beneath the root without following links
  (``tools/beneath``, ADR-0076); a manifest path that is not plain, or that names edgar's state
  or git's internals, is refused, never written (a manifest is data, not instructions).
- A manifest that cannot be believed (``core/manifest.py``: not a file, not JSON, a field of
  the wrong kind) makes ``turns`` — so undo and diff — raise ``BrokenState`` naming it, rather
  than skip a turn whose session is unknown; recording and expiry go on. ``damaged`` lists
  such turns (for ``edgar doctor --repair``); a turn directory moved aside
  (``….broken-STAMP``) is no turn.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from edgar.core import manifest as manifests
from edgar.tools import beneath
from edgar.tools.base import protected_reason

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


@dataclass(frozen=True)
class Step:
    """One turn put back: which session and turn it was, and what happened to each file."""

    session: str
    turn: str
    created: float
    files: tuple[Restored, ...]


@dataclass(frozen=True)
class Undone:
    """What ``undo`` did; ``changed`` non-empty means it stopped and changed nothing."""

    steps: tuple[Step, ...] = ()
    changed: tuple[tuple[str, str], ...] = ()   # (path, why) the person changed since


def _is_turn(name: str) -> bool:
    """``000012-SESSION-TURN``; a turn moved aside (``….broken-STAMP``) is not one."""
    return name[:6].isdigit() and name[6:7] in ("-", "") and ".broken-" not in name


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)


def _write_private(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
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
        try:
            full = (self.root / Path(path).expanduser()).resolve()
            return full.relative_to(self.root).as_posix()
        except (ValueError, OSError):   # outside, or a link swapped while it was read
            return None

    def _known(self, rel: str) -> bool:
        return any(f["path"] == rel for f in self.manifest.get("files", [])) or any(
            f["path"] == rel for f in self.manifest.get("shell", []))

    def before_write(self, path: str) -> None:
        """Keep the file as it is now, unless this turn already kept it."""
        rel = self._rel(path)
        if rel is None or (self.current is not None and self._known(rel)):
            return
        try:
            found = beneath.lstat(self.root, rel)
        except beneath.Refused:
            return   # a link on the way: the write itself is refused too
        target = self._open()
        exists = found is not None and stat.S_ISREG(found.st_mode)
        entry: dict[str, Any] = {"path": rel, "existed": exists, "blob": None, "mode": None,
                                 "before": None}
        if found is not None and exists:
            if found.st_size > self.max_file:
                entry["too_big"] = found.st_size
            else:
                try:
                    data = beneath.read(self.root, rel, self.max_file + 1) or b""
                except beneath.Refused:
                    return
                blob = str(len(self.manifest["files"]))
                _write_private(target / "files" / blob, data)
                entry["blob"], entry["mode"] = blob, found.st_mode & 0o7777
                entry["before"] = digest(data)
        self.manifest["files"].append(entry)
        self._save()

    def after_write(self, path: str) -> None:
        """Note what the write left, so undo can tell the person's later changes from it."""
        rel = self._rel(path)
        if rel is None or self.current is None:
            return
        for entry in self.manifest.get("files", []):
            if entry["path"] == rel:
                entry["after"] = self._digest_now(rel)
        self._save()

    def _digest_now(self, rel: str) -> str | None:
        try:
            return digest(beneath.read(self.root, rel))
        except (beneath.Refused, OSError):
            return "unreadable"   # never equal to a content digest: undo asks for --force

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
        if not fresh and self.current is None:
            return
        self._open()
        for path, code in fresh:
            self.manifest["shell"].append({"path": path, "untracked": code == "??"})
        # the command may also have changed files an earlier call of this turn recorded
        for entry in self.manifest["files"] + self.manifest["shell"]:
            entry["after"] = self._digest_now(entry["path"])
        self._save()

    # -- reading back ------------------------------------------------------------------------
    def _turn_dirs(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        return sorted((p for p in self.dir.iterdir() if p.is_dir() and _is_turn(p.name)),
                      key=lambda p: p.name)

    @staticmethod
    def _manifest(turn: Path) -> dict[str, Any] | None:
        return manifests.read(turn / manifests.NAME)[0]

    def damaged(self) -> list[tuple[Path, str]]:
        """(turn dir, why) of each stored turn whose manifest cannot be believed; a turn with
        none (interrupted before its first record) is not damaged, it recorded nothing."""
        found = []
        for turn in self._turn_dirs():
            why = manifests.read(turn / manifests.NAME)[1]
            if why is not None:
                found.append((turn, why))
        return found

    def turns(self, session: str | None = None) -> list[tuple[Path, dict[str, Any]]]:
        """(dir, manifest) of stored turns, oldest first; only ``session``'s when given.
        Raises ``BrokenState`` naming the first damaged manifest: whose turn it is cannot be
        known, so undo or diff would otherwise skip it and act on the wrong turns."""
        from edgar.storage.broken import BrokenState

        out = []
        for turn in self._turn_dirs():
            found, why = manifests.read(turn / manifests.NAME)
            if why is not None:
                raise BrokenState(turn / manifests.NAME, why)
            if found and (session is None or found.get("session") == session):
                out.append((turn, found))
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
        for turn, size in zip(turns, sizes, strict=True):
            if total <= self.max_bytes or turn == self.current:
                break
            shutil.rmtree(turn, ignore_errors=True)
            total -= size

    async def _head(self, path: str) -> bytes | None:
        # cat-file: the blob's bytes as stored, no filter and no textconv
        return await self._git("cat-file", "blob", f"HEAD:{path}")

    async def undo(self, n: int = 1, session: str | None = None, *,
                   force: bool = False, dry: bool = False) -> Undone:
        """Put back the newest ``n`` turns (of ``session`` if given), newest first.

        Checks first: a file that is no longer what its turn left (and not already as undo
        would make it) stops the whole undo, unless ``force``; a path that is not edgar's to
        write (a link on the way, edgar's state, git's internals) is never written.
        """
        chosen = list(reversed(self.turns(session)[-n:] if n > 0 else []))
        plans = [await self._plan(turn, manifest) for turn, manifest in chosen]
        now: dict[str, str | None] = {}     # what each path holds once the newer turns are undone
        changed: list[tuple[str, str]] = []
        for (_turn, manifest), plan in zip(chosen, plans, strict=True):
            for item in plan:
                path = item["path"]
                if path not in now:
                    now[path] = self._digest_now(path) if not item.get("refused") else None
                if item.get("refused") or item.get("unknown"):
                    continue
                if "after" not in item["entry"]:
                    changed.append((path, f"turn {manifest.get('turn', '?')} did not record what "
                                          "it left (an older edgar, or it was interrupted)"))
                elif now[path] not in (item["entry"]["after"], item["before"]):
                    changed.append((path, f"changed since turn {manifest.get('turn', '?')} of "
                                          f"session {manifest.get('session', '?')}"))
                now[path] = item["before"]
        if changed and not force:
            seen: dict[str, str] = {}
            for path, why in changed:
                seen.setdefault(path, why)
            return Undone(changed=tuple(seen.items()))
        if dry:   # the check alone (commit_undo asks before it moves a branch)
            return Undone()
        steps: list[Step] = []
        for (turn, manifest), plan in zip(chosen, plans, strict=True):
            files = tuple(self._apply(item) for item in plan)
            steps.append(Step(str(manifest.get("session", "")), str(manifest.get("turn", "")),
                              float(manifest.get("created", 0) or 0), files))
            shutil.rmtree(turn, ignore_errors=True)
            if turn == self.current:
                self.current, self.manifest = None, {}
        return Undone(steps=tuple(steps))

    async def _plan(self, turn: Path, manifest: dict[str, Any]) -> list[dict[str, Any]]:
        """What undoing one turn would do to each of its files, newest change first."""
        plan: list[dict[str, Any]] = []
        for entry in reversed(manifest.get("shell", [])):
            item = self._checked(entry)
            if item.get("refused"):
                plan.append(item)
            elif entry.get("untracked"):
                plan.append({**item, "before": None, "data": None})
            else:
                data = await self._head(item["path"])
                plan.append({**item, "before": digest(data), "data": data, "unknown": data is None,
                             "source": "HEAD"})
        for entry in reversed(manifest.get("files", [])):
            item = self._checked(entry)
            if item.get("refused"):
                plan.append(item)
            elif entry.get("too_big"):
                plan.append({**item, "unknown": True, "refused": f"not restorable: larger than "
                             f"{self.max_file} bytes, not copied"})
            elif not entry.get("existed"):
                plan.append({**item, "before": None, "data": None})
            else:
                try:
                    data = (turn / "files" / str(entry["blob"])).read_bytes()
                except (OSError, KeyError, TypeError):
                    plan.append({**item, "refused": "not restorable: its copy is missing"})
                    continue
                plan.append({**item, "before": digest(data), "data": data,
                             "mode": entry.get("mode")})
        return plan

    def _checked(self, entry: Any) -> dict[str, Any]:
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str):
            return {"path": repr(path), "entry": {}, "refused": "not restorable: not a path"}
        item: dict[str, Any] = {"path": path, "entry": entry}
        try:
            beneath.parts_of(path)
        except beneath.Refused as exc:
            return {**item, "refused": f"not restorable: {exc.reason}"}
        reason = protected_reason(self.root, self.root / path)
        if reason:
            return {**item, "refused": f"not restorable: {reason}"}
        try:
            beneath.lstat(self.root, path)
        except beneath.Refused as exc:
            return {**item, "refused": f"not restorable: {exc.reason}"}
        return item

    def _apply(self, item: dict[str, Any]) -> Restored:
        path = item["path"]
        if item.get("refused"):
            return Restored(path, item["refused"])
        if item.get("unknown"):
            return Restored(path, "not restorable: not in HEAD")
        try:
            if item["data"] is None:
                beneath.remove(self.root, path)
                return Restored(path, "removed")
            beneath.write(self.root, path, item["data"], item.get("mode"))
        except beneath.Refused as exc:
            return Restored(path, f"not restorable: {exc.reason}")
        except OSError as exc:
            return Restored(path, f"not restorable: {exc.strerror or exc}")
        return Restored(path, "restored from HEAD" if item.get("source") == "HEAD" else "restored")

    async def diff(self, session: str | None = None) -> str:
        """This session's changes (``session`` defaults to this one) as a unified diff."""
        import difflib

        first: dict[str, tuple[bytes | None, str]] = {}
        for turn, manifest in self.turns(session or self.session_id):
            for entry in manifest.get("files", []):
                if entry["path"] in first:
                    continue
                if entry.get("too_big"):
                    first[entry["path"]] = (None, "too big before this session")
                elif entry["existed"]:
                    try:
                        copy = (turn / "files" / entry["blob"]).read_bytes()
                    except OSError:
                        first[entry["path"]] = (None, "its copy is missing")
                        continue
                    first[entry["path"]] = (copy, "")
                else:
                    first[entry["path"]] = (b"", "new")
            for entry in manifest.get("shell", []):
                if entry["path"] not in first:
                    before = b"" if entry.get("untracked") else await self._head(entry["path"])
                    first[entry["path"]] = (before, "new" if entry.get("untracked") else "")
        chunks: list[str] = []
        for path, (before, note) in sorted(first.items()):
            if before is None:
                chunks.append(f"# {path}: not shown ({note or 'unknown before this session'})\n")
                continue
            try:
                found = beneath.read(self.root, path)
            except (beneath.Refused, OSError) as exc:
                chunks.append(f"# {path}: not shown ({exc})\n")
                continue
            now = found or b""
            if now == before:
                continue
            old_name = "/dev/null" if note == "new" else f"a/{path}"
            new_name = f"b/{path}" if found is not None else "/dev/null"
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


def describe(steps: Iterable[Step]) -> list[str]:
    """Lines saying what an undo did, for the REPL and ``edgar undo``: each step's session
    and turn, then one indented line per file."""
    out = []
    for step in steps:
        when = (time.strftime("%Y-%m-%d %H:%M", time.localtime(step.created))
                if step.created else "?")
        out.append(f"turn {step.turn or '?'} of session {step.session or '?'} ({when}):")
        for item in step.files:
            out.append(f"  {item.action} {item.path}")
    return out


def describe_refusal(changed: Iterable[tuple[str, str]]) -> list[str]:
    """Lines saying why undo changed nothing, naming each file."""
    lines = ["not undoing: these files changed after edgar's turn left them, and undo would "
             "discard that work:"]
    lines += [f"  {path} ({why})" for path, why in changed]
    lines.append("nothing was changed; look at them, or run undo with --force to put "
                 "edgar's copies back anyway")
    return lines
