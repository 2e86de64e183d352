"""``edgar init``: create ``.edgar/`` from the documented example; ``--agents`` writes a
starter ``AGENTS.md`` instead.

Guarantees: never overwrites an existing file; writes ``.edgar/.gitignore`` so one person's
history, sessions and databases are not committed.
"""

from __future__ import annotations

import argparse
import shutil
from importlib import resources
from pathlib import Path

from edgar.core.project import ensure_state_dir, find_root


def example_dir() -> Path:
    bundled = Path(str(resources.files("edgar").joinpath("data/example")))
    if bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parents[2] / ".edgar.example"


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="edgar init", description=__doc__.splitlines()[0])
    parser.add_argument("--agents", action="store_true",
                        help="write a starter AGENTS.md from the build files (never overwrites)")
    args = parser.parse_args(argv)
    root = find_root()
    if args.agents:
        return _agents(root)
    state = ensure_state_dir(root)
    source = example_dir()
    created = []
    for path in sorted(source.rglob("*")):
        if path.is_dir():
            continue
        target = state / path.relative_to(source)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        created.append(str(target.relative_to(root)))
    for name in created:
        print(f"created {name}")
    if not created:
        print(f"{state.relative_to(root)}/ is already set up")
    return 0


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
    print(f"created {target.name}" + (f" ({', '.join(f'{label.lower()} from {source}' for label, _, source in found)})"
                                      if found else " (no build file found: fill in the commands)"))
    return 0
