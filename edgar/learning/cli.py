"""``edgar stats``, ``edgar history show|distill`` and ``edgar import`` (seed 004, stop 4).

Guarantees:
- Dispatched from ``cli/main.py`` by name (``import_module("edgar.learning.cli")``), with
  ``argv[0]`` the command and the composition root's ``open_project`` (so this package never
  imports ``edgar.cli``); returns an exit code: 0 ok, 2 usage or config error.
- Read-only, except ``history distill``, which stores proposals as ``distilled`` facts:
  pending, never active. No command here calls a model.
- ``--json`` output is machine-readable whatever stdout is; otherwise a rich table on a
  terminal and plain text elsewhere.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from typing import TYPE_CHECKING

from edgar.core.project import Project, ProjectOpener, find_root, state_dir
from edgar.learning import render
from edgar.learning.rollup import DIMENSIONS

if TYPE_CHECKING:
    from edgar.learning.experience import Stats

SOURCES = ("all", "edgar", "claude-code")


class _Usage(Exception):
    pass


def _since(value: str | None, now: float | None = None) -> str | None:
    """``7d``/``2w`` (days or weeks ago, that whole day included) or ``YYYY-MM-DD``."""
    if not value:
        return None
    value = value.strip().lower()
    if value[:-1].isdigit() and value[-1:] in ("d", "w"):
        days = int(value[:-1]) * (7 if value.endswith("w") else 1)
        when = (now or time.time()) - days * 86400
        return time.strftime("%Y-%m-%d", time.localtime(when))
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise _Usage(f"--since {value!r}: use a number of days (7d), weeks (2w) "
                     "or a date (2026-11-01)") from None


def _project(open_project: ProjectOpener) -> Project:
    """This project, opened by the composition root; a config mistake is a ConfigError."""
    from edgar.config import load
    from edgar.core.project import find_root

    root = find_root()
    return open_project(root, load(root))


def stats(argv: list[str], open_project: ProjectOpener) -> int:
    p = argparse.ArgumentParser(prog="edgar stats", description="What runs in this project did.")
    p.add_argument("--by", choices=DIMENSIONS, default="shape")
    p.add_argument("--since", metavar="7d|2w|YYYY-MM-DD",
                   help="runs on or after that day (7d: the day a week ago, included)")
    p.add_argument("--source", choices=SOURCES, default="all")
    p.add_argument("--project", metavar="NAME",
                   help="only runs imported from this Claude Code project: its folder name in "
                        "~/.claude/projects/ (-home-me-app), or its directory (a path with /)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(_glued(argv, "--project"))
    since = _since(args.since)
    # Only the state dir: stats reads no setting, and loading config (pydantic, the layers)
    # would cost more than the query over a million runs (issue 26).
    state = state_dir(find_root())
    source = None if args.source == "all" else args.source
    project = _project_name(args.project)
    groups: list[Stats] = []
    total: Stats | None = None
    path = state / "experience.db"
    if os.path.lexists(path):   # a directory there is said as broken, not as "no runs"
        from edgar.learning.experience import Experience

        with Experience(path) as store:
            groups, total = store.stats(args.by, since, source, project)
    label = args.source if project is None else f"{args.source}, project {project}"
    if args.json:
        out = render.stats_json(groups, total, args.by, since, args.source)
        print(json.dumps(out | {"project": project}, indent=2))
    elif sys.stdout.isatty():
        render.stats_rich(groups, total, args.by, since, label)
    else:
        sys.stdout.write(render.stats_text(groups, total, args.by, since, label))
    return 0


def _glued(argv: list[str], flag: str) -> list[str]:
    """``FLAG VALUE`` as ``FLAG=VALUE``: Claude Code folder names start with ``-``, which
    argparse would otherwise take for an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == flag and i + 1 < len(argv):
            out.append(f"{flag}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _project_name(value: str | None) -> str | None:
    """A Claude Code folder name as given, or the folder name of a directory given by path."""
    if value is None or not ("/" in value or value in (".", "..", "~")):
        return value
    from edgar.transcripts.claude_code.projects import folder_name

    return folder_name(os.path.realpath(os.path.expanduser(value)))


def history(argv: list[str], open_project: ProjectOpener) -> int:
    p = argparse.ArgumentParser(prog="edgar history", description="This project's history.md.")
    sub = p.add_subparsers(dest="action", required=True)
    show = sub.add_parser("show", help="print the last entries")
    show.add_argument("-n", type=int, default=10, metavar="N", help="how many (default 10)")
    dist = sub.add_parser("distill", help="propose facts from repeated patterns (pending)")
    dist.add_argument("--dry-run", action="store_true", help="print proposals, store nothing")
    args = p.parse_args(argv)
    project = _project(open_project)
    state, settings = project.state, project.settings
    from edgar.learning.history import History, distill_counted

    entries = History(state).entries()
    if not entries:
        print("no history yet in this project" + ("" if settings.memory.history else
              " (memory.history is off in config)"))
        return 0
    if args.action == "show":
        chosen = entries[-args.n:] if args.n > 0 else []
        text = "\n".join(chosen)
        if sys.stdout.isatty():
            from rich.console import Console
            from rich.markdown import Markdown

            Console().print(Markdown(text))
        else:
            sys.stdout.write(text)
        return 0
    counted = distill_counted(entries)
    proposals = [text for text, _ in counted]
    if not proposals:
        print(f"nothing repeats often enough in {len(entries)} entries to propose a fact")
        return 0
    stored = 0
    if not args.dry_run:
        stored = _store_proposals(project, proposals)
    for text, seen in counted:
        print(f"- {text} ({seen})")  # the evidence, shown, never part of the fact
    if args.dry_run:
        print(f"{len(proposals)} proposal(s); nothing stored (--dry-run)")
    else:
        print(f"{stored} new proposal(s) stored as pending; approve them with "
              "`edgar memory review`")
    return 0


def _store_proposals(project: Project, proposals: list[str]) -> int:
    with project.memory() as memory:
        return sum(memory.add(text, "distilled", source="history") is not None
                   for text in proposals)


def import_(argv: list[str], open_project: ProjectOpener) -> int:
    from edgar.learning import importer

    return importer.main(argv[1:], open_project)


def main(argv: list[str], open_project: ProjectOpener) -> int:
    """Run ``argv`` (``argv[0]`` the command) with the composition root's project opener."""
    command, rest = (argv[0], argv[1:]) if argv else ("stats", [])
    if command == "import":
        # Before the settings model is imported: a re-import that finds nothing new never
        # needs it, and importing it costs more than the rest of such a run.
        return import_(argv, open_project)
    try:
        if command == "stats":
            return stats(rest, open_project)
    except _Usage as exc:
        print(f"edgar: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:          # argparse: --help is 0, a bad flag is 2
        return exc.code if isinstance(exc.code, int) else 2
    from edgar.config import ConfigError

    try:
        if command == "history":
            return history(rest, open_project)
    except (ConfigError, _Usage) as exc:
        print(f"edgar: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:          # argparse: --help is 0, a bad flag is 2
        return exc.code if isinstance(exc.code, int) else 2
    print(f"edgar: unknown command {command!r}", file=sys.stderr)
    return 2
