"""Moving a project's learned state out of the repository, once (issue 21 item 2, ADR-0075).

Older edgar kept facts, counters, sessions, checkpoints and input history in
``<project>/.edgar/``; now they live in the user dir (``edgar.paths.project_state``). On the
first open of such a project the person's own files are moved there, in place.

Guarantees:
- Only edgar's state names are looked at (``LEGACY``: the databases and their WAL files,
  history, sessions, input history, imports, checkpoints, auto-commit records); config,
  commands, skills and hooks stay where they are — a team shares those on purpose.
- A file is moved only if it is a regular file (never a link, never through one), owned by
  this uid, and not tracked by git — asked with ``git ls-files`` through
  ``edgar.sandbox.git`` (sandboxed, neutralised: the repository's config cannot make it run a
  program). A repository that cannot be asked (git missing, the sandbox refused) moves
  nothing. A ``.edgar`` that is a link is never entered.
- Nothing is overwritten: a file whose name is already taken in the user dir stays where it
  is, said as such. A file not moved is never read by edgar, whatever it holds.
- The person is told in one line what moved, and in one line what was left and why — the
  latter once per file (``IGNORED``, in the project's state dir, remembers what was said by
  size and mtime, so an unchanged left-over costs no git call on later starts).
- It never raises: a move that fails leaves the file where it was and says so.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LEGACY = ("memory.db", "experience.db", "imports.db", "*.db", "*.db-wal", "*.db-shm",
          "history.md", "history.*.md", "sessions", "input_history", "import", "checkpoints",
          "commits.jsonl")
IGNORED = "ignored-from-project"   # in the state dir: the left-overs already said


@dataclass
class Adopted:
    """What one pass did: relative names (``sessions/a.jsonl``) moved, and left with why."""

    moved: list[str] = field(default_factory=list)
    left: dict[str, str] = field(default_factory=dict)


def _is_legacy(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in LEGACY)


def _walk(legacy: Path) -> tuple[dict[str, os.stat_result], dict[str, str]]:
    """Every file under the legacy names (relative to ``.edgar``) with its lstat, and the
    entries refused on sight (links, devices) with why; links are not followed."""
    files: dict[str, os.stat_result] = {}
    refused: dict[str, str] = {}
    try:
        names = sorted(n for n in os.listdir(legacy) if _is_legacy(n))
    except OSError:
        return files, refused
    for name in names:
        stack = [name]
        while stack:
            rel = stack.pop()
            try:
                st = os.lstat(legacy / rel)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                refused[rel] = "a link"
            elif stat.S_ISDIR(st.st_mode):
                if st.st_uid != os.getuid():
                    refused[rel + "/"] = "owned by another user"
                    continue
                try:
                    stack.extend(f"{rel}/{child}" for child in sorted(os.listdir(legacy / rel)))
                except OSError:
                    refused[rel + "/"] = "not readable"
            elif stat.S_ISREG(st.st_mode):
                files[rel] = st
            else:
                refused[rel] = "not a regular file"
    return files, refused


def _signature(st: os.stat_result) -> str:
    return f"{st.st_size}\t{st.st_mtime_ns}"


def _said(state: Path) -> dict[str, str]:
    try:
        text = (state / IGNORED).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        rel, _, sig = line.partition("\t")
        if rel:
            out[rel] = sig
    return out


def _tracked(root: Path) -> set[str] | str:
    """The files under ``.edgar`` git tracks (relative to ``.edgar``), or why git could not
    say. Not a repository: nothing is tracked."""
    git = root / ".git"
    if not os.path.lexists(git):
        return set()
    from edgar.sandbox import Policy, Sandbox
    from edgar.sandbox.git import git_sync

    try:
        box = Sandbox(Policy.for_project(root))
        done = git_sync(["ls-files", "-z", "--full-name", "--", ".edgar"], root=root, sandbox=box)
    except OSError as exc:
        return f"git could not be asked ({exc.strerror or exc})"
    if not done.ok:
        if b"not a git repository" in done.stderr:
            return set()
        return "git could not say whether it is tracked (" + (
            done.problem or done.stderr.decode("utf-8", "replace").strip()[:120]
            or f"exit {done.exit_code}") + ")"
    names = set()
    for raw in done.stdout.split(b"\0"):
        name = os.fsdecode(raw)
        if name.startswith(".edgar/"):
            names.add(name[len(".edgar/"):])
    return names


def _move(source: Path, target: Path) -> str | None:
    """Move one file (no overwrite), 0600 in 0700 directories; why not, or None."""
    if os.path.lexists(target):
        return f"{target} already exists"
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            os.rename(source, target)
        except OSError as exc:
            if exc.errno != 18:   # EXDEV: another file system, so copy then remove
                raise
            shutil.copy2(source, target, follow_symlinks=False)
            os.unlink(source)
        os.chmod(target, 0o600)
    except OSError as exc:
        return f"could not be moved ({exc.strerror or exc})"
    return None


def _prune(legacy: Path, moved: list[str]) -> None:
    """Remove the directories the moves emptied (deepest first); never one still holding
    something."""
    dirs = {str(Path(rel).parent) for rel in moved if "/" in rel}
    every: set[str] = set()
    for rel in dirs:
        parts = Path(rel).parts
        every.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    for rel in sorted(every, key=lambda r: r.count("/"), reverse=True):
        with contextlib.suppress(OSError):
            os.rmdir(legacy / rel)


def adopt(root: Path, state: Path, say: Callable[[str], None]) -> Adopted:
    """Move this user's own legacy state from ``root/.edgar`` into ``state``; see the module."""
    out = Adopted()
    legacy = root / ".edgar"
    try:
        st = os.lstat(legacy)
    except OSError:
        return out
    if not stat.S_ISDIR(st.st_mode):
        return out
    files, refused = _walk(legacy)
    if not files and not refused:
        return out
    said = _said(state)
    if all(said.get(rel) == _signature(s) for rel, s in files.items()) and all(
            said.get(rel) == "-" for rel in refused):
        return out   # all said before, none changed: no git call, nothing to say
    tracked = _tracked(root) if files else set()
    for rel, st_file in files.items():
        if isinstance(tracked, str):
            out.left[rel] = tracked
        elif rel in tracked:
            out.left[rel] = "tracked by git"
        elif st_file.st_uid != os.getuid():
            out.left[rel] = "owned by another user"
        else:
            problem = _move(legacy / rel, state / rel)
            if problem is None:
                out.moved.append(rel)
            else:
                out.left[rel] = problem
    out.left.update(refused)
    if out.moved:
        _prune(legacy, out.moved)
        tops = sorted({rel.split("/", 1)[0] + ("/" if "/" in rel else "") for rel in out.moved})
        say(f"moved this project's learned state ({', '.join(tops)}) from "
            f"{legacy}/ to {state}/ — it is kept there now (ADR-0075)")
    fresh = {rel: why for rel, why in out.left.items()
             if said.get(rel) != (_signature(files[rel]) if rel in files else "-")}
    if fresh:
        named = ", ".join(f".edgar/{rel} ({why})" for rel, why in sorted(fresh.items())[:6])
        more = f" and {len(fresh) - 6} more" if len(fresh) > 6 else ""
        say(f"ignored {named}{more}: edgar never reads learned state it did not write for you")
        lines = [f"{rel}\t{_signature(files[rel]) if rel in files else '-'}"
                 for rel in sorted(out.left)]
        try:
            state.mkdir(mode=0o700, parents=True, exist_ok=True)
            tmp = state / f".{IGNORED}.tmp"
            tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            os.replace(tmp, state / IGNORED)
        except OSError:
            pass   # said again next time: harmless
    return out
