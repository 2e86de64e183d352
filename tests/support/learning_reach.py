"""Which test files can come out differently when ``edgar/learning`` is deleted.

`.ci/run` proves that everything but learning works without the package by running the suite
again on a copy of the tree without it (design.md §3.2). A test whose code can never touch the
package gives the same result both times, so that pass runs only the others
(``pytest --learning-may-differ``, tests/conftest.py). Decided from the source (AST, nothing
imported), conservatively — when in doubt, a test file is kept:

A test file may differ when anything it can reach — itself, the test modules and
``tests/support`` modules it imports, and every edgar module those import, function bodies
included, followed transitively — does one of these:

- imports ``edgar.learning`` or names it in a string (``importorskip``, ``find_spec``,
  ``import_module``: the composition root ``cli/setup.py`` and ``cli/main.py`` do), or uses
  the ``learning`` marker;
- starts edgar as a process (``-m edgar`` in a command list, or the ``edgar`` program);
- looks at the source tree on disk (a path built with ``/ "edgar"`` or ``/ "learning"``).
"""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

from support.architecture import parse

LEARNING = "edgar.learning"


def may_differ(root: Path, test_file: Path) -> bool:
    """True when ``test_file`` (under ``root/tests``) can pass or fail differently without
    ``root/edgar/learning``. (One question: for many, ``Reach(root).may_differ``.)"""
    return Reach(root).may_differ(test_file)


class Reach:
    """The answers for one tree, each file read once (the tree must not change meanwhile)."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        self._touches: dict[Path, tuple[bool, list[Path]]] = {}
        self._answers: dict[Path, bool] = {}

    def may_differ(self, test_file: Path) -> bool:
        test_file = test_file.resolve()
        if test_file not in self._answers:
            self._answers[test_file] = self._reaches(test_file)
        return self._answers[test_file]

    def _reaches(self, test_file: Path) -> bool:
        seen: set[Path] = set()
        todo = [test_file]
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            seen.add(path)
            if path not in self._touches:
                self._touches[path] = _facts(self.root, path)
            touches, reaches = self._touches[path]
            if touches:
                return True
            todo.extend(reaches)
        return False


def _facts(root: Path, path: Path) -> tuple[bool, list[Path]]:
    """(does this file itself touch the package, the edgar and test modules it imports)."""
    try:
        source = path.read_text(encoding="utf-8")
        tree = parse(source, str(path))
    except (OSError, SyntaxError, ValueError):
        return True, []   # unreadable: cannot rule it out
    in_tests = _is_under(path, root / "tests")
    if _is_under(path, root / "edgar" / "learning") or LEARNING in source \
            or "edgar/learning" in source:
        return True, []   # (in a string, a comment or a docstring: kept, to be safe)
    reaches: list[Path] = []
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(root, path, node)
            names = [base, *(f"{base}.{a.name}" for a in node.names)] if base else []
        else:
            continue
        if any(_is_learning(n) for n in names):
            return True, []
        for name in names:
            reaches += _locate(root, path, name, in_tests)
    # the expressions are walked only where one of the patterns can be (a quoted "edgar" or
    # "learning"): walking every node of every file is most of the cost
    if in_tests and any(q + word in source for q in "'\"" for word in ("edgar", "learning")) \
            or "mark.learning" in source:
        for node in ast.walk(tree):
            if _starts_edgar(node) or _reads_the_tree(node) or _marked(node):
                return True, []
    return False, reaches


def _statements(tree: ast.AST):
    """Every statement, in every body (imports in functions, ``if``, ``try`` included)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, name, None)
            if isinstance(children, list):
                todo.extend(c for c in children if isinstance(c, ast.AST))


def _marked(node: ast.AST) -> bool:
    """``pytest.mark.learning``."""
    return (isinstance(node, ast.Attribute) and node.attr == "learning"
            and isinstance(node.value, ast.Attribute) and node.value.attr == "mark")


def _is_learning(name: str) -> bool:
    return name == LEARNING or name.startswith(LEARNING + ".")


def _is_under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _absolute(root: Path, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    if not _is_under(path, root / "edgar"):
        return ""   # relative imports in tests/ are not used
    parts = list(path.relative_to(root).with_suffix("").parts)
    parts = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join(parts + ([node.module] if node.module else []))


def _locate(root: Path, importer: Path, name: str, in_tests: bool) -> list[Path]:
    """The file(s) of a module name that is edgar's or the tests' own; [] for the rest."""
    parts = name.split(".")
    if parts[0] == "edgar":
        bases = [root]
    elif in_tests:
        # test files import tests/support/… and their sibling test modules by bare name
        bases = [root / "tests", importer.parent]
    else:
        return []
    for base in bases:
        target = base.joinpath(*parts)
        for candidate in (target.with_suffix(".py"), target / "__init__.py"):
            if candidate.is_file():
                return [candidate.resolve()]
    return []


def _strings(node: ast.AST) -> list[str | None]:
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else []
    out: list[str | None] = []
    for item in items:
        value = item.value if isinstance(item, ast.Constant) else None
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        out.append(value if isinstance(value, str) else None)
    return out


def _starts_edgar(node: ast.AST) -> bool:
    strings = _strings(node)
    if any(a == "-m" and b == "edgar" for a, b in pairwise(strings)):
        return True
    if strings and strings[0] == "edgar":
        return True   # the console script (or a row of data starting "edgar": kept, harmless)
    if isinstance(node, ast.Call):   # shutil.which("edgar"), python -m edgar in one string
        for arg in node.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and (
                    arg.value == "edgar" or arg.value.startswith("edgar ")
                    or "-m edgar" in arg.value):
                return True
    return False


def _reads_the_tree(node: ast.AST) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
            and isinstance(node.right, ast.Constant) and node.right.value in ("edgar", "learning"))
