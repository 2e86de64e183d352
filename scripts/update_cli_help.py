"""Regenerate the ``--help`` blocks of docs/cli.md from the real ``edgar`` (cog-style).

``python scripts/update_cli_help.py`` rewrites, in place, every block between
``<!-- [[[help edgar …]]] -->`` and ``<!-- [[[end]]] -->`` with what ``python -m edgar … --help``
prints, and appends a block for any command that has none. ``--check`` changes nothing and
exits 1, naming the commands, when a block differs. ``tests/unit/test_cli_help_docs.py`` runs
the same comparison, so the docs cannot drift from the parser.

The help is produced with a fixed terminal width (``COLUMNS``) in an empty directory with an
empty ``EDGAR_HOME``, so nothing about the machine or the project shows in it. argparse lays
help out slightly differently across Python versions (3.13 writes ``-r, --resume [ID]`` where
3.11 writes ``-r [ID], --resume [ID]``, and wraps differently); the Python minor version that
wrote the blocks is recorded in the file. On that version blocks are compared byte for byte; on
any other, by the set of words they hold, so an option or a help sentence that changed is still
found while a layout argparse chose is not.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "cli.md"
COLUMNS = 100
BLOCK = re.compile(r"<!-- \[\[\[help (?P<command>edgar[^\]]*)\]\]\] -->\n(?P<body>.*?)"
                   r"<!-- \[\[\[end\]\]\] -->", re.S)
VERSION = re.compile(r"<!-- help written with Python (\d+\.\d+) -->")
LEARNING_COMMANDS = ("stats", "history", "import")


def python_version() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


@lru_cache(maxsize=None)
def help_text(command: str) -> str:
    """What ``command --help`` prints (``command`` starts with ``edgar``); run once per command."""
    words = command.split()[1:]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EDGAR_")}
        env.update(COLUMNS=str(COLUMNS), LINES="50", NO_COLOR="1", PYTHON_COLORS="0",
                   EDGAR_HOME=str(Path(tmp) / "home"), PYTHONPATH=str(ROOT))
        done = subprocess.run([sys.executable, "-m", "edgar", *words, "--help"], cwd=tmp,
                              env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"`{command} --help` exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def subcommands(text: str) -> list[str]:
    """The subcommands an argparse help lists: the 4-space-indented words under
    "positional arguments:" (a plain positional argument is indented 2)."""
    found: list[str] = []
    section = False
    for line in text.splitlines():
        if not line.startswith(" "):
            section = line.startswith("positional arguments:")
            continue
        match = re.match(r"^    ([a-z][\w-]*)(\s|$)", line)
        if section and match:
            found.append(match.group(1))
    return found


def commands() -> list[str]:
    """``edgar`` and every command and subcommand it has, in the order ``edgar --help`` names
    them (the epilog), each followed by its own subcommands."""
    top = " ".join(help_text("edgar").split())
    epilog = re.search(r"commands: (.*?) \(edgar help", top)
    if epilog is None:
        raise RuntimeError("`edgar --help` no longer lists its commands after 'commands:'")
    names = [n.strip() for n in epilog.group(1).split(",")]
    out = ["edgar"]
    for name in (n for n in names if n != "help"):
        if name in LEARNING_COMMANDS and not learning_installed():
            continue
        out.append(f"edgar {name}")
        out += [f"edgar {name} {sub}" for sub in subcommands(help_text(f"edgar {name}"))]
    return out


def learning_installed() -> bool:
    return (ROOT / "edgar" / "learning" / "__init__.py").exists()


def render(command: str, text: str) -> str:
    return f"<!-- [[[help {command}]]] -->\n```text\n{text.rstrip()}\n```\n<!-- [[[end]]] -->"


WORD = re.compile(r"[\w./:-]+")


def words(text: str) -> set[str]:
    """The words of a help block, without its layout (spacing, wrapping, brackets, commas)."""
    return set(WORD.findall(text))


def exact_here(doc: str) -> bool:
    """True when this Python's minor version wrote ``doc``'s blocks (or it names none)."""
    found = VERSION.search(doc)
    return found is None or found.group(1) == python_version()


def stale(doc: str, exact: bool | None = None) -> list[tuple[str, str, str]]:
    """(command, block as documented, block as it should be) for every block that differs:
    byte for byte when ``exact`` (by default: on the Python that wrote ``doc``), else in its
    words."""
    if exact is None:
        exact = exact_here(doc)
    out = []
    for match in BLOCK.finditer(doc):
        command = match.group("command").strip()
        if command.split()[1:2] and command.split()[1] in LEARNING_COMMANDS \
                and not learning_installed():
            continue
        want = render(command, help_text(command))
        if (match.group(0) != want) if exact else (words(match.group(0)) != words(want)):
            out.append((command, match.group(0), want))
    return out


def missing(doc: str) -> list[str]:
    have = {m.group("command").strip() for m in BLOCK.finditer(doc)}
    return [c for c in commands() if c not in have]


def regenerate(doc: str) -> str:
    doc = BLOCK.sub(lambda m: render(m.group("command").strip(),
                                     help_text(m.group("command").strip())), doc)
    for command in missing(doc):
        doc = doc.rstrip("\n") + f"\n\n## `{command}`\n\n{render(command, help_text(command))}\n"
    stamp = f"<!-- help written with Python {python_version()} -->"
    doc = VERSION.sub(stamp, doc) if VERSION.search(doc) else doc.rstrip("\n") + f"\n\n{stamp}\n"
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    doc = DOC.read_text(encoding="utf-8")
    if args.check:
        wrong = [c for c, _, _ in stale(doc)] + missing(doc)
        if wrong:
            print("docs/cli.md is stale for: " + ", ".join(wrong)
                  + " (run python scripts/update_cli_help.py)", file=sys.stderr)
            return 1
        return 0
    new = regenerate(doc)
    if new != doc:
        tmp = DOC.with_suffix(".md.tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(DOC)
        print(f"rewrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
