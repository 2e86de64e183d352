"""The person's instruction files: ``AGENTS.md``, ``CLAUDE.md`` and its variants, ``EDGAR.md``.

Guarantees:
- The system prompt gets, in this order: the user-level ``AGENTS.md`` in edgar's user dir,
  Claude Code's user file ``~/.claude/CLAUDE.md``, the ``CLAUDE.md`` and ``CLAUDE.local.md``
  of every directory above the project root (from the home directory when the project is
  under it, else from below ``/``: Claude Code walks up to but not including ``/``), then
  the instruction files of every directory from the project root down to the directory edgar
  was started in (as Codex walks ``AGENTS.md``): ``AGENTS.md``, ``CLAUDE.md``,
  ``.claude/CLAUDE.md``, ``CLAUDE.local.md``, ``EDGAR.md``. Those are known when the session
  starts, so the system prompt stays byte-stable while they do not change.
- ``@path`` imports in Claude Code's files (``core/md_imports.py``, ADR-0096) follow the file
  that imports them, each in its own block; what is not followed is in ``instruction_notes``,
  said once at start.
- Instruction files of directories the session touches later (a ``read``, ``write``,
  ``edit``, ``glob`` or ``grep`` under ``sub/``) are not put into the system prompt, which
  would bust the prompt cache: ``NestedInstructions`` hands each one over once, as a block
  after that tool's result (``<instructions path="sub/AGENTS.md">``), the way Claude Code
  attaches a nested ``CLAUDE.md`` when a file there is first read. A subagent has its
  own history, so it gets its own tracker (``fresh``): each file once per conversation.
- Each file is read at most ``MAX_FILE`` characters; the same file reached twice (a
  ``CLAUDE.md`` symlinked to ``AGENTS.md``, identical copies) is given once.
- These are the person's own files, never learned from (learning sees only ``PromptTyped``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from edgar.core.claude_rules import matches, parse, rule_files

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "EDGAR.md")
ABOVE_ROOT = ("CLAUDE.md", "CLAUDE.local.md")   # what Claude Code reads walking up
IMPORTING = frozenset({"CLAUDE.md", "CLAUDE.local.md"})   # file names whose @imports are followed
MAX_FILE = 20_000
_DELIVERED = re.compile(r'<instructions path="([^"]+)">')


def _read(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        text = path.read_text(encoding="utf-8", errors="replace")[:MAX_FILE].strip()
    except OSError:
        return None
    return None if "\x00" in text else text   # a binary file is no instruction


def files_in(directory: Path) -> list[Path]:
    """The instruction files present in one directory, in ``INSTRUCTION_FILES`` order."""
    return [directory / name for name in INSTRUCTION_FILES if (directory / name).is_file()]


def _chain(root: Path, start: Path) -> list[Path]:
    """Directories from ``root`` down to ``start`` (just ``root`` when start is outside it)."""
    root, start = root.resolve(), start.resolve()
    if start != root and root not in start.parents:
        return [root]
    dirs = [start, *[p for p in start.parents if p == root or root in p.parents]]
    return list(reversed(dirs))


def _label(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _above(root: Path, home: Path) -> list[Path]:
    """Directories above ``root``, outermost first: from ``home`` when root is under it,
    else from the first directory below ``/``."""
    root = root.resolve()
    home = home.resolve()
    parents = list(reversed(root.parents))      # "/" first
    if home in parents:
        return parents[parents.index(home):]
    return [p for p in parents if p != p.parent]


def _home_label(path: Path, home: Path) -> str:
    try:
        return "~/" + path.resolve().relative_to(home.resolve()).as_posix()
    except ValueError:
        return str(path)


def _walk(root: Path, cwd: Path | None, user: Path | None,
          home: Path | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """(label, text) of every start-up instruction file in order, and the notes on imports."""
    from edgar.core.md_imports import Importer
    from edgar.paths import claude_dir
    from edgar.paths import home as find_home

    home = home or find_home()
    importer = Importer(root=root.resolve(), home=home, read=_read)
    seen = importer.seen
    texts: set[str] = set()
    out: list[tuple[str, str]] = []

    def add(path: Path, label: str) -> None:
        key = str(path.resolve())
        text = _read(path)
        if text is None or key in seen or text in texts:
            return
        seen.add(key)
        texts.add(text)
        out.append((label, text))
        if path.name in IMPORTING:
            for target, imported in importer.imports(path, text, label):
                if imported not in texts:
                    texts.add(imported)
                    out.append((f"imported {_label_any(root, target, home)}", imported))

    def add_rules(folder: Path, label: str) -> None:
        """Claude Code's rules without ``paths:`` (ADR-0112): start-up text, like CLAUDE.md."""
        for path in rule_files(folder):
            text = _read(path)
            if text is None:
                continue
            patterns, body = parse(text)
            if patterns is None and body and body not in texts:
                texts.add(body)
                out.append((f"{label}/{path.relative_to(folder).as_posix()}", body))

    notes = []
    if user is not None:
        add(user / "AGENTS.md", "user AGENTS.md")
    add(claude_dir() / "CLAUDE.md", "user ~/.claude/CLAUDE.md")
    add_rules(claude_dir() / "rules", "user ~/.claude/rules")
    for directory in _above(root, home):
        for name in ABOVE_ROOT:
            add(directory / name, _home_label(directory / name, home))
    project_rules = project_rule_files(root)
    for directory in _chain(root, cwd or root):
        for path in files_in(directory):
            add(path, _label(root, path))
        if directory == root.resolve() and project_rules:
            if project_rules_allowed(root):
                add_rules(root / RULES, RULES)
            else:
                notes.append(f"{RULES}: {len(project_rules)} rule file"
                             f"{'s' * (len(project_rules) != 1)} not loaded until `edgar trust` "
                             "(a cloned repository's instructions)")
    return out, importer.notes + notes


RULES = ".claude/rules"


def project_rule_files(root: Path) -> list[Path]:
    return rule_files(root / RULES)


def project_rules_allowed(root: Path) -> bool:
    """A project's rules are read once the project is trusted (ADR-0112)."""
    from edgar.config.trust import trusted

    return trusted(root)


def _label_any(root: Path, path: Path, home: Path) -> str:
    label = _label(root, path)
    return _home_label(path, home) if label.startswith("/") else label


def startup_instructions(root: Path, cwd: Path | None = None,
                         user: Path | None = None, home: Path | None = None) -> str:
    """The instruction text for the system prompt (user files, above the root, root … cwd)."""
    files, _ = _walk(root, cwd, user, home)
    return "\n\n".join(f"<{label}>\n{text}\n</{label}>" for label, text in files)


def instruction_notes(root: Path, cwd: Path | None = None, user: Path | None = None) -> list[str]:
    """What the start-up walk read but did not follow (imports leaving the project), said once."""
    return _walk(root, cwd, user)[1]


def project_instructions(root: Path) -> str:
    """What ``core.context`` puts under "Project instructions" (user dir from the config)."""
    from edgar.paths import user_dir

    return startup_instructions(root, Path.cwd(), user_dir())


class NestedInstructions:
    """Hands over instruction files of directories below the start chain, once each."""

    def __init__(self, root: Path, cwd: Path | None = None):
        self.root = root.resolve()
        self.covered = {str(d) for d in _chain(self.root, cwd or self.root)}
        self.delivered: set[str] = set()
        self._texts: set[str] = set()
        self._imported_seen: set[str] = set()
        self.scoped = scoped_rules(self.root)   # rules with paths: (label, patterns, body)

    def fresh(self) -> NestedInstructions:
        """A tracker for a new conversation (a subagent's): the same start chain is covered
        (it is in the shared system prompt), nothing else delivered yet."""
        other = NestedInstructions(self.root)
        other.covered = set(self.covered)
        other.scoped = self.scoped
        return other

    def already_seen(self, transcript: Iterable[str]) -> None:
        """Mark files whose block is already in a resumed conversation's text."""
        for text in transcript:
            self.delivered.update(_DELIVERED.findall(text))

    def for_paths(self, paths: Iterable[str]) -> str:
        """The blocks for instruction files not yet delivered above any of ``paths``."""
        blocks: list[str] = []
        for raw in paths:
            try:
                blocks += self._blocks_above(raw)
            except OSError:
                continue   # a link loop, or one swapped while read: no instructions from it
        if not blocks:
            return ""
        return ("Instructions from the project for the directories just used (follow them "
                "for files there):\n" + "\n\n".join(blocks))

    def _blocks_above(self, raw: str) -> list[str]:
        blocks: list[str] = []
        target = (self.root / raw).resolve()   # an absolute raw replaces the root
        if target != self.root and self.root not in target.parents:
            return blocks  # outside the project: its files are not the project's instructions
        directory = target if target.is_dir() else target.parent
        relative = target.relative_to(self.root).as_posix()
        for label, patterns, body in self.scoped:
            if label not in self.delivered and matches(patterns, relative):
                self.delivered.add(label)
                blocks.append(f'<instructions path="{label}">\n{body}\n</instructions>')
        for d in _chain(self.root, directory):
            if str(d) in self.covered:
                continue
            for path in files_in(d):
                label = _label(self.root, path)
                text = _read(path)
                if label in self.delivered or not text or text in self._texts:
                    continue
                self.delivered.add(label)
                self._texts.add(text)
                blocks.append(f'<instructions path="{label}">\n{text}\n</instructions>')
                if path.name in IMPORTING:
                    blocks += self._imported(path, text, label)
        return blocks

    def _imported(self, path: Path, text: str, label: str) -> list[str]:
        """Blocks for the files ``path`` imports (inside the project only: a project file)."""
        from edgar.core.md_imports import Importer
        from edgar.paths import home

        importer = Importer(root=self.root, home=home(), read=_read, seen=self._imported_seen)
        blocks = []
        for target, imported in importer.imports(path, text, label):
            name = _label(self.root, target)
            if name in self.delivered or imported in self._texts:
                continue
            self.delivered.add(name)
            self._texts.add(imported)
            blocks.append(f'<instructions path="{name}">\n{imported}\n</instructions>')
        blocks += [f"(edgar: {note})" for note in importer.notes]
        return blocks

    def for_calls(self, calls: Iterable[Any]) -> str:
        """``for_paths`` over the ``path`` argument of each tool call (read/write/edit/…)."""
        paths = []
        for call in calls:
            args = getattr(call, "input", None)
            if isinstance(args, dict) and isinstance(args.get("path"), str) and args["path"]:
                paths.append(args["path"])
        return self.for_paths(paths)


def scoped_rules(root: Path) -> list[tuple[str, list[str], str]]:
    """Claude Code's rules with ``paths:`` (label, patterns, body): the person's own, then the
    project's once it is trusted (ADR-0112)."""
    from edgar.paths import claude_dir

    found: list[tuple[str, list[str], str]] = []
    folders = [(claude_dir() / "rules", "~/.claude/rules")]
    if project_rule_files(root) and project_rules_allowed(root):
        folders.append((root / RULES, RULES))
    for folder, label in folders:
        for path in rule_files(folder):
            text = _read(path)
            patterns, body = parse(text or "")
            if patterns is not None and body:
                found.append((f"{label}/{path.relative_to(folder).as_posix()}", patterns, body))
    return found
