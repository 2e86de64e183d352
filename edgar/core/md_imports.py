"""``@path`` imports inside ``CLAUDE.md`` files, as Claude Code reads them (ADR-0096).

Guarantees:
- An import is ``@`` at the start of a line or after white space, then a path: relative to
  the importing file's directory, absolute, or ``~/`` (the home directory). Text inside a
  fenced code block or an inline code span is never an import; a path that names no file is
  not an import either (``@alice`` in prose), as in Claude Code.
- Imported files may import in turn, five hops deep at most (Claude Code's limit); a file
  already given (a cycle, or the same file twice) is given once.
- A file of the project imports only files inside the project: a hostile repository's
  ``CLAUDE.md`` cannot send ``@~/.ssh/id_rsa`` to the model. Such an import is not followed
  and is named (``notes``). A file of the person's own (under the home directory, outside
  the project) may import any file.
- Pure but for reading the files: no network, nothing written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

MAX_DEPTH = 5
MAX_IMPORTS = 100          # files given through imports in one walk
_FENCE = re.compile(r"(?ms)^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)")
_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1", re.S)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\@]|\\ )+)")
_TRAILING = ".,;:!?)]}'\""


def import_paths(text: str) -> list[str]:
    """The raw ``@path`` targets of ``text``, in order, code blocks and spans left out."""
    prose = _SPAN.sub(" ", _FENCE.sub("\n", text))
    return [m.group(1).replace("\\ ", " ") for m in _IMPORT.finditer(prose)]


def _resolve(raw: str, base: Path, home: Path) -> Path | None:
    """The file an import names, or None when it names none (then it is prose)."""
    for candidate in (raw, raw.rstrip(_TRAILING)):
        if not candidate:
            continue
        if candidate.startswith("~/"):
            path = home / candidate[2:]
        else:
            path = Path(candidate) if candidate.startswith("/") else base / candidate
        try:
            if path.is_file():
                return path.resolve()
        except OSError:
            return None
    return None


def _inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


@dataclass
class Importer:
    """Follows imports for one walk over the instruction files (one ``seen`` set)."""

    root: Path                       # the project's root, resolved
    home: Path
    read: Callable[[Path], str | None]   # the file's text, capped; None: not given
    seen: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    given: int = 0

    def own(self, path: Path) -> bool:
        """A file of the person's own: outside the project, under the home directory."""
        return not _inside(path, self.root) and _inside(path, self.home.resolve())

    def imports(self, path: Path, text: str, label: str, depth: int = 1) -> list[tuple[Path, str]]:
        """(file, text) of every file ``text`` (the file ``path``) imports, depth first."""
        out: list[tuple[Path, str]] = []
        if depth > MAX_DEPTH:
            return out
        for raw in import_paths(text):
            target = _resolve(raw, path.parent, self.home)
            if target is None or str(target) in self.seen:
                continue
            if not _inside(target, self.root) and not self.own(path.resolve()):
                self.notes.append(f"{label}: @{raw} is outside the project; a project's "
                                  "instruction file may import only files inside it (not "
                                  "followed)")
                continue
            if self.given >= MAX_IMPORTS:
                self.notes.append(f"{label}: @{raw} not followed: more than {MAX_IMPORTS} "
                                  "imported files")
                break
            imported = self.read(target)
            self.seen.add(str(target))
            if imported is None:
                continue
            self.given += 1
            out.append((target, imported))
            out += self.imports(target, imported, str(target), depth + 1)
        return out
