"""What the person had put in the project when the session began: its commit, and the moment
(issue 21 item 8, ADR-0021). An error fact may name a project file only if that file was
committed before the session began; never one created, staged or committed during it.

Use it like this::

    baseline = Baseline.take(root)            # when the session is built, before any command
    ...
    if committed(baseline, root, "scripts/build.sh", sandbox): ...

Guarantees:
- ``Baseline.take`` reads the commit ``HEAD`` names from git's own files (``HEAD``, the loose
  ref, ``packed-refs``; a worktree's or submodule's ``.git`` file followed) and runs nothing.
  No repository, no commit yet, a ref it cannot read (a reftable repository): ``commit`` is
  None, and no project file is ever vouched for in that session.
- ``committed`` asks git once (``cat-file --batch``, through ``edgar.sandbox.git``: sandboxed,
  neutralised) for the baseline commit and each tree on the path, and believes none of it
  unchecked: every object's id is recomputed from its bytes (SHA-1 or SHA-256, by the id's
  length), the commit's tree and each tree's entry for the next directory must be the objects
  git returned, and the last component must be a file or a link in its tree. An object the
  model rewrote in ``.git/objects`` to name a file of its own fails that check, so does a
  path not in that commit; either way the answer is False. Paths with an empty, ``.`` or
  ``..`` component, a newline or a NUL are never committed.
- ``began_ns`` is when the baseline was taken, on the clock files are stamped with (the
  coarse real-time clock), for telling a file made during the session (its ``ctime`` is the
  same or later; no program can set a ctime back) from one that was there.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgar.sandbox.core import Sandbox

_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF = re.compile(r"refs/[A-Za-z0-9._/+-]+")
FILE_MODES = (b"100644", b"100755", b"120000")   # a blob, an executable blob, a link
TREE_MODE = b"40000"
MAX_LINKS = 5   # symbolic refs followed from HEAD
CLOCK_REALTIME_COARSE = 5   # <linux/time.h>; Python 3.11's time module does not name it
COARSE_NS = 20_000_000   # without the coarse clock: how far a file's stamp may lag the clock


@dataclass(frozen=True, slots=True)
class Baseline:
    """The project as the session found it: the commit ``HEAD`` named, and when."""

    began_ns: int
    commit: str | None

    @classmethod
    def take(cls, root: Path) -> Baseline:
        return cls(file_clock_ns(), head_commit(root))


def file_clock_ns() -> int:
    """Now, on the clock the kernel stamps files with (Linux: the coarse real-time clock,
    which may lag ``time.time_ns`` by a tick): a file changed after this has a later ctime."""
    if sys.platform == "linux":
        try:
            return time.clock_gettime_ns(CLOCK_REALTIME_COARSE)
        except OSError:
            pass
    return time.time_ns() - COARSE_NS


def head_commit(root: Path) -> str | None:
    """The commit id ``HEAD`` names at ``root``, from git's files (nothing runs), or None."""
    from edgar.sandbox.gitdir import git_dirs

    gitdir, common = git_dirs(root)
    text = _read(gitdir / "HEAD")
    for _ in range(MAX_LINKS):
        if text is None:
            return None
        if _OID.fullmatch(text):
            return text
        if not text.startswith("ref:"):
            return None
        name = text[len("ref:"):].strip()
        if not _REF.fullmatch(name) or ".." in name.split("/"):
            return None
        text = _read(common / name) or _read(gitdir / name) or packed_ref(common, name)
    return None


def packed_ref(common: Path, name: str) -> str | None:
    text = _read_all(common / "packed-refs")
    if text is None:
        return None
    for line in text.split("\n"):
        oid, _, ref = line.partition(" ")
        if ref == name and _OID.fullmatch(oid):
            return oid
    return None


def _read(path: Path) -> str | None:
    text = _read_all(path)
    return None if text is None else text.strip()


def _read_all(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(4 << 20)
    except (OSError, ValueError):
        return None
    return data.decode("ascii", "replace")


# --- the pure part: objects, trees, cat-file's answer --------------------------------------

def object_id(kind: bytes, body: bytes, length: int) -> str:
    """git's id of an object of ``kind`` holding ``body``: SHA-1 (40 digits) or SHA-256 (64)."""
    algo = hashlib.sha1 if length == 40 else hashlib.sha256
    return algo(kind + b" " + str(len(body)).encode() + b"\0" + body).hexdigest()


def tree_entries(body: bytes, length: int) -> dict[bytes, tuple[bytes, str]]:
    """A tree object's entries: name → (mode, id). Raises ValueError when it does not parse."""
    size = length // 2
    entries: dict[bytes, tuple[bytes, str]] = {}
    at = 0
    while at < len(body):
        space = body.index(b" ", at)
        nul = body.index(b"\0", space)
        if nul + 1 + size > len(body):
            raise ValueError("a tree entry is cut short")
        entries[body[space + 1:nul]] = (body[at:space], body[nul + 1:nul + 1 + size].hex())
        at = nul + 1 + size
    return entries


def batch_objects(out: bytes) -> list[tuple[str, bytes, bytes] | None]:
    """``git cat-file --batch`` output → (id, kind, body) per name asked, None for one git
    did not find. Raises ValueError on output that does not parse."""
    found: list[tuple[str, bytes, bytes] | None] = []
    at = 0
    while at < len(out):
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            body = out[end + 1:end + 1 + size]
            if len(body) != size or out[end + 1 + size:end + 2 + size] != b"\n":
                raise ValueError("an object is cut short")
            found.append((header[0].decode("ascii"), header[1], body))
            at = end + 2 + size
        elif header[-1] in (b"missing", b"ambiguous"):
            found.append(None)
            at = end + 1
        else:
            raise ValueError("not cat-file's answer")
    return found


def plain_parts(rel: str) -> list[str] | None:
    """``rel``'s components when every one is plain (not empty, ``.``, ``..``), else None."""
    if not rel or "\n" in rel or "\0" in rel or rel.startswith("/"):
        return None
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return None
    return parts


def verified_entry(commit: str, parts: list[str],
                   objects: list[tuple[str, bytes, bytes] | None]) -> bytes | None:
    """The mode of ``parts`` in ``commit``, walked through ``objects`` (the commit, its tree,
    then each directory's tree, as asked of cat-file), each one's id recomputed and each link
    checked; None when anything does not hold."""
    length = len(commit)
    if len(objects) != len(parts) + 1 or any(o is None for o in objects):
        return None
    checked: list[tuple[str, bytes, bytes]] = [o for o in objects if o is not None]
    for oid, kind, body in checked:
        if len(oid) != length or object_id(kind, body, length) != oid:
            return None
    oid, kind, body = checked[0]
    if oid != commit or kind != b"commit":
        return None
    first = body.split(b"\n", 1)[0]
    if not first.startswith(b"tree "):
        return None
    want = first[len(b"tree "):].decode("ascii", "replace")
    for i, name in enumerate(parts):
        oid, kind, body = checked[i + 1]
        if oid != want or kind != b"tree":
            return None
        try:
            entries = tree_entries(body, length)
        except ValueError:
            return None
        entry = entries.get(name.encode("utf-8", "surrogateescape"))
        if entry is None:
            return None
        mode, want = entry
        if i == len(parts) - 1:
            return mode
        if mode != TREE_MODE:
            return None
    return None


# --- asking git ---------------------------------------------------------------------------

def committed(baseline: Baseline | None, root: Path, rel: str, sandbox: Sandbox) -> bool:
    """Whether ``rel`` (relative to ``root``) is a file or link in the baseline's commit."""
    from edgar.sandbox.git import git_sync

    parts = plain_parts(rel)
    if baseline is None or baseline.commit is None or parts is None:
        return False
    commit = baseline.commit
    names = [commit, f"{commit}^{{tree}}"]
    names += [f"{commit}:{'/'.join(parts[:i])}" for i in range(1, len(parts))]
    done = git_sync(["cat-file", "--batch"], root=root, sandbox=sandbox, timeout=5,
                    input=("\n".join(names) + "\n").encode("utf-8", "surrogateescape"))
    if not done.ok:
        return False
    try:
        objects = batch_objects(done.stdout)
    except ValueError:
        return False
    return verified_entry(commit, parts, objects) in FILE_MODES


def made_since(path: str, baseline: Baseline) -> bool:
    """Whether the directory entry ``path`` changed (was made, linked, renamed, chmodded)
    after the baseline was taken: its ``ctime``, which no program can set back."""
    try:
        return os.lstat(path).st_ctime_ns >= baseline.began_ns
    except OSError:
        return True
