"""``edgar init``: create .edgar/ from the example, or (--agents) a starter AGENTS.md.

Guarantees: never overwrites an existing file; writes ``.edgar/.gitignore`` so an older
edgar's history, sessions and databases are not committed (edgar keeps them in the user dir
now, ADR-0075). A key the user config already sets is
written commented out in the project's ``config.toml``, so ``init`` never overrides the
person's own choices (model, permission mode, …) for this project.
"""

from __future__ import annotations

import argparse
import shutil
from importlib import resources
from pathlib import Path

from edgar.core.project import ensure_shared_dir, find_root


def example_dir() -> Path:
    bundled = Path(str(resources.files("edgar").joinpath("data/example")))
    if bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parents[2] / ".edgar.example"


def run(argv: list[str]) -> int:
    from edgar.cli.suggest import described

    parser = argparse.ArgumentParser(prog="edgar init", description=described(__doc__))
    parser.add_argument("--agents", action="store_true",
                        help="write a starter AGENTS.md from the build files (never overwrites)")
    args = parser.parse_args(argv)
    root = find_root()
    if args.agents:
        return _agents(root)
    state = ensure_shared_dir(root)
    source = example_dir()
    created = []
    for path in sorted(source.rglob("*")):
        if path.is_dir():
            continue
        target = state / path.relative_to(source)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.name == "config.toml" and path.parent == source:
            target.write_text(commented(path.read_text(encoding="utf-8"), user_keys()),
                              encoding="utf-8")
        else:
            shutil.copyfile(path, target)
        created.append(str(target.relative_to(root)))
    for name in created:
        print(f"created {name}")
    if not created:
        print(f"{state.relative_to(root)}/ is already set up")
    return 0


def user_keys() -> set[str]:
    """Dotted keys the user config sets (``model``, ``tools.shell_timeout``, …)."""
    from edgar.paths import user_dir

    path = user_dir() / "config.toml"
    if not path.is_file():
        return set()
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return set()
    keys: set[str] = set()

    def walk(table: dict, prefix: str) -> None:
        for key, value in table.items():
            keys.add(prefix + key)
            if isinstance(value, dict):
                walk(value, prefix + key + ".")
    walk(data, "")
    return keys


def commented(text: str, keys: set[str]) -> str:
    """The example with every assignment of a key in ``keys`` commented out, and why."""
    import re

    section, out = "", []
    for line in text.splitlines(keepends=True):
        header = re.match(r"^\s*\[([^\]]+)\]", line)
        if header:
            section = header.group(1).strip() + "."
        assign = re.match(r"^(\s*)([A-Za-z0-9_-]+)\s*=", line)
        if assign and section + assign.group(2) in keys:
            body = line.rstrip("\n")
            line = f"{assign.group(1)}# {body.strip()}   # set in your user config\n"
        out.append(line)
    return "".join(out)


def _agents(root: Path) -> int:
    from edgar.cli.starter_agents import commands, starter

    target = root / "AGENTS.md"
    if target.exists():
        print(f"{target.name} already exists; not overwriting it")
        return 0
    text = starter(root)
    with open(target, "x", encoding="utf-8") as handle:  # "x": never clobber a racing writer
        handle.write(text)
    found = commands(root)
    print(f"created {target.name}"
          + (f" ({', '.join(f'{label.lower()} from {source}' for label, _, source in found)})"
             if found else " (no build file found: fill in the commands)"))
    return 0
