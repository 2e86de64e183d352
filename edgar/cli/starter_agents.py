"""A starter ``AGENTS.md`` from what a project's files show (``edgar init --agents``).

Guarantees: ``starter(root)`` only reads the project (build files, test layout); it runs
nothing and never calls a model. Every command it writes is one a build file names; where
it cannot tell, it leaves a commented placeholder rather than guessing.
"""

from __future__ import annotations

import json
from pathlib import Path


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _python(root: Path) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    pyproject = _read(root / "pyproject.toml")
    if pyproject or (root / "setup.py").is_file():
        found.append(("Build", "pip install -e ." + ("'[test]'" if "test =" in pyproject
                                                    or "test=" in pyproject else "")))
        if ("[tool.pytest" in pyproject or (root / "pytest.ini").is_file()
                or (root / "tests").is_dir() or "pytest" in pyproject):
            found.append(("Test", "python -m pytest -q"))
        if "[tool.ruff" in pyproject:
            found.append(("Lint", "ruff check ."))
        if "[tool.mypy" in pyproject:
            found.append(("Types", "mypy ."))
    return found


def _node(root: Path) -> list[tuple[str, str]]:
    text = _read(root / "package.json")
    if not text:
        return []
    try:
        scripts = json.loads(text).get("scripts") or {}
    except (ValueError, AttributeError):
        return []
    if not isinstance(scripts, dict):
        return []
    runner = "pnpm" if (root / "pnpm-lock.yaml").is_file() else (
        "yarn" if (root / "yarn.lock").is_file() else "npm")
    found = [("Install", f"{runner} install")]
    for script, label in (("build", "Build"), ("test", "Test"), ("lint", "Lint")):
        if script in scripts:
            found.append((label,
                          f"{runner} test" if script == "test" else f"{runner} run {script}"))
    return found


def _make(root: Path) -> list[tuple[str, str]]:
    text = _read(root / "Makefile")
    found = []
    for target, label in (("build:", "Build"), ("test:", "Test"), ("lint:", "Lint")):
        if any(line.startswith(target) for line in text.splitlines()):
            found.append((label, f"make {target[:-1]}"))
    return found


SIMPLE = (
    ("Cargo.toml", [("Build", "cargo build"), ("Test", "cargo test"), ("Lint", "cargo clippy")]),
    ("go.mod", [("Build", "go build ./..."), ("Test", "go test ./..."), ("Lint", "go vet ./...")]),
)


def commands(root: Path) -> list[tuple[str, str, str]]:
    """(label, command, the file it comes from), first source per label wins."""
    out: list[tuple[str, str, str]] = []
    sources: list[tuple[str, list[tuple[str, str]]]] = [
        ("pyproject.toml", _python(root)), ("package.json", _node(root)),
        ("Makefile", _make(root))]
    sources += [(name, rows) for name, rows in SIMPLE if (root / name).is_file()]
    labels: set[str] = set()
    for source, rows in sources:
        for label, command in rows:
            if label not in labels:
                labels.add(label)
                out.append((label, command, source))
    return out


def starter(root: Path) -> str:
    """The text of a starter AGENTS.md for the project at ``root``."""
    rows = commands(root)
    lines = ["# AGENTS.md", "",
             "Instructions for coding agents (edgar, Codex, Claude Code read this file).",
             "Keep it short: what to run, where things are, and the rules of this repository.",
             "", "## Commands", ""]
    if rows:
        lines += [f"- {label}: `{command}`" for label, command, _ in rows]
    else:
        lines += ["<!-- no build file found: add how to build and test, e.g.", "- Test: `…` -->"]
    layout = sorted(p.name + "/" for p in root.iterdir()
                    if p.is_dir() and not p.name.startswith(".") and p.name not in
                    ("node_modules", "target", "build", "dist", "venv", "__pycache__"))[:12]
    if layout:
        lines += ["", "## Layout", ""] + [f"- `{name}`" for name in layout]
    lines += ["", "## Rules", "",
              "<!-- e.g. run the tests before saying a change is done; keep commits small -->", ""]
    return "\n".join(lines)
