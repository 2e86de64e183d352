"""Which ``~/.claude/projects/`` folder belongs to which project directory.

Pure, except ``projects_dir`` (reads the environment) and ``folders_for`` (resolves paths).

Guarantees:
- ``folder_name(path)`` is the name Claude Code gives the folder of a session started in
  ``path``: every UTF-16 code unit that is not an ASCII letter or digit becomes ``-`` (no
  collapsing, so ``/a/.b`` is ``-a--b`` and an astral character gives two dashes); a name
  longer than 200 characters keeps its first 200 and gets ``-`` plus the base-36 of the
  absolute 32-bit rolling hash (``h = h*31 + unit``) of the original path. This is the rule
  in Claude Code's CLI bundle as quoted by several projects that match its folders
  (docs/claude-code-import.md, "Which folder").
- ``folders_for(root, cwd, pwd)`` lists the folder names to try for a project, the resolved
  path first: Claude Code names the folder after the real path (it resolves symlinks), but
  an IDE extension started from a symlinked path uses that path, so both are tried.
- ``project_of(file)`` is the project folder a transcript file sits in: the file's folder,
  or for a subagent file (``<session>/subagents/agent-*.jsonl``) the folder above the
  session's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePath

LIMIT = 200  # longer names are cut and get a hash


def _units(text: str) -> list[int]:
    """UTF-16 code units, as JavaScript's ``charCodeAt`` walks a string."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | data[i + 1] << 8 for i in range(0, len(data), 2)]


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def _hash(text: str) -> int:
    h = 0
    for unit in _units(text):
        h = (h * 31 + unit) & 0xFFFFFFFF  # JS: (h << 5) - h + c, then |0
    if h >= 1 << 31:
        h -= 1 << 32
    return abs(h)


def folder_name(path: str) -> str:
    """Claude Code's folder name for a session started in ``path`` (an absolute path)."""
    name = "".join(
        chr(u) if u < 128 and chr(u).isalnum() else "-" for u in _units(path)
    )
    if len(name) <= LIMIT:
        return name
    return f"{name[:LIMIT]}-{_base36(_hash(path))}"


def projects_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """``$CLAUDE_CONFIG_DIR/projects``, else ``~/.claude/projects``."""
    base = environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base).expanduser() if base else Path("~/.claude").expanduser()) / "projects"


def _logical(root: Path, cwd: Path, pwd: str | None) -> Path | None:
    """``root`` as reached through ``$PWD`` (a symlinked path), when that differs."""
    if not pwd or not os.path.isabs(pwd):
        return None
    try:
        if os.path.realpath(pwd) != str(cwd):
            return None  # a stale PWD: it is not where we are
        up = len(cwd.parts) - len(root.parts)
    except OSError:
        return None
    if up < 0 or cwd.parts[: len(root.parts)] != root.parts:
        return None
    logical = PurePath(pwd)
    for _ in range(up):
        logical = logical.parent
    return Path(logical) if str(logical) != str(root) else None


def folders_for(root: Path, cwd: Path | None = None, pwd: str | None = None) -> list[str]:
    """Folder names to read for the project at ``root``: the real path's, then the logical one's."""
    real = Path(os.path.realpath(root))
    names = [folder_name(str(real))]
    if str(root) != str(real):
        names.append(folder_name(str(root)))
    logical = _logical(real, Path(os.path.realpath(cwd or Path.cwd())), pwd)
    if logical is not None:
        names.append(folder_name(str(logical)))
    return list(dict.fromkeys(names))


def project_of(file: str) -> str:
    """The project folder name of a transcript file (see the module docstring)."""
    parts = PurePath(file).parts
    if len(parts) >= 4 and "subagents" in parts[:-1]:
        i = len(parts) - 2 - parts[::-1][1:].index("subagents")  # the last "subagents" folder
        if i >= 2:
            return parts[i - 2]
    return parts[-2] if len(parts) >= 2 else ""
