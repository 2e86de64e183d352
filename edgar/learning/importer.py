"""``edgar import claude-code [PATH…|--all]``: what a person typed into Claude Code, as proposals.

Guarantees:
- Scope: with no PATH only this project's folder of ``~/.claude/projects/`` (or
  ``$CLAUDE_CONFIG_DIR/projects``) is read, named as Claude Code names it
  (``claude_code.projects.folders_for``: the real path, and the symlinked one we were reached
  through); ``--all`` reads every project; PATHs are read as given. The report names what
  was read (``folders``), and every run keeps its source project's folder name.
- Transcripts are read only through the pure reader (``edgar.transcripts.claude_code``):
  opened read-only, never written, moved or locked.
- Only a ``Typed`` message reaches ``extract()``; each fact it yields is added with
  provenance ``imported`` (pending until ``edgar memory review``) and source
  ``claude-code FILE:LINE``. Client-written text is never looked at by the learner.
- One ``Experience`` row per exchange (source ``claude-code``, turn: the question's uuid), so
  ``edgar stats --source claude-code`` shows turns, tools, tokens and cost; an exchange
  seen again (still open when an earlier import ended) replaces its row. The exchange
  itself lands in ``.edgar/imports.db`` with its file and line (``import_store``).
- Nothing twice: a file's scan mark is saved after its rows, and every row is keyed (memory
  by text, runs by (source, session, turn), exchanges by (file, line)), so a re-run, or a
  run after a crash or Ctrl-C, adds nothing already stored.
- ``--dry-run`` opens no store for writing and creates no file; it prints the same counts.
- A user mistake prints one ``edgar: …`` line and exits 2; a file that cannot be read is
  reported with its path on stderr and skipped (exit 0); a reader failure on one file
  (a bug) is reported likewise and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import operator
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from edgar.core.project import Project, ProjectOpener
from edgar.learning.import_store import DrySink, StoreSink
from edgar.transcripts.claude_code import Exchange, ScanResult, Typed, scan, summarize
from edgar.transcripts.claude_code.projects import folders_for, projects_dir


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one `edgar: …` line, not argparse's usage dump
        raise _Usage(f"{self.prog.removeprefix('edgar ')}: {message}")


def _parse(argv: list[str]) -> argparse.Namespace:
    p = _Parser(prog="edgar import", description="Import another tool's history.")
    sub = p.add_subparsers(dest="source", metavar="SOURCE", parser_class=_Parser)
    cc = sub.add_parser("claude-code", help="Claude Code transcripts (~/.claude/projects/)",
                        description="Propose what you typed in Claude Code as edgar memory "
                                    "(pending review) and count its sessions in edgar stats. "
                                    "Without PATH, only this project's folder is read.")
    cc.add_argument("paths", nargs="*", metavar="PATH",
                    help="a projects directory or a transcript file (default: this project's "
                         "folder in ~/.claude/projects/)")
    cc.add_argument("--all", action="store_true",
                    help="read every project in ~/.claude/projects/ (each keeps its name)")
    cc.add_argument("--dry-run", action="store_true", help="store nothing; print the counts")
    cc.add_argument("--json", action="store_true", help="print the summary as JSON")
    cc.add_argument("--typed", action="store_true", help="print each typed message as a JSON line")
    args = p.parse_args(argv)
    if args.source is None:
        raise _Usage("import what? try `edgar import claude-code [PATH…]`")
    if args.all and args.paths:
        raise _Usage("claude-code: --all reads every project; give it no PATH")
    return args


def roots(paths: list[str], every: bool = False, root: Path | None = None,
          environ: dict | None = None) -> list[Path]:
    """The folders or files to read; a missing one is a _Usage.

    PATHs as given; ``--all``: the whole projects folder; neither: the folder Claude Code
    keeps for the project at ``root`` (under its real path, and under the path reached
    through a symlink when that is where we are: ``claude_code.projects.folders_for``).
    """
    if paths:
        given = [Path(p).expanduser() for p in paths]
        for path in given:
            if not path.exists():
                raise _Usage(f"no such file or directory: {path}")
        return given
    env = os.environ if environ is None else environ
    base = projects_dir(env)
    if every:
        if not base.is_dir():
            raise _Usage(f"no Claude Code transcripts at {base} (pass a PATH)")
        return [base]
    here = root or Path.cwd()
    names = folders_for(here, Path.cwd(), env.get("PWD"))
    found = [base / n for n in names if (base / n).is_dir()]
    if not found:
        raise _Usage(f"no Claude Code transcripts for this project at {base / names[0]} "
                     "(--all reads every project; or pass a PATH)")
    return found


Entry = tuple  # (real path, size, mtime_ns): one transcript as the directory listing saw it


_NAME = operator.attrgetter("name")


def _dir(top: str, quiet: bool, real_top: str | None = None) -> Iterator[tuple[str, list[Entry]]]:
    """(real directory, its ``*.jsonl`` files), then each subdirectory's, in sorted order.

    Like ``os.walk``: a symlink to a file is read, a symlinked directory is not entered. So
    only the top is resolved: below it, a directory's real path is its parent's plus its
    name, and only files that are themselves symlinks are resolved again.
    """
    try:
        with os.scandir(top) as it:
            listing = sorted(it, key=_NAME)
    except OSError as exc:
        if not quiet:
            _walk_error(exc)
        return
    if real_top is None:
        real_top = os.path.realpath(top)
    # ``os.path.join(real_top, name)``, as one concatenation (once per file of the tree)
    prefix = real_top if real_top.endswith(os.sep) else real_top + os.sep
    files: list[Entry] = []
    subdirs: list[tuple[str, str]] = []
    for entry in listing:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if not entry.is_symlink():
                subdirs.append((entry.path, prefix + entry.name))
            continue
        if not entry.name.endswith(".jsonl"):
            continue
        real = os.path.realpath(entry.path) if entry.is_symlink() \
            else prefix + entry.name
        try:
            st = entry.stat()
            files.append((real, st.st_size, st.st_mtime_ns))
        except OSError:
            files.append((real, -1, -1))    # the scan will say why it cannot be read
    yield real_top, files
    for sub, real_sub in subdirs:
        yield from _dir(sub, quiet, real_sub)


def _listings(given: list[Path], quiet: bool = False) -> Iterator[tuple[str, list[Entry]]]:
    """Every directory's transcripts under ``given`` (a file is a directory of one), each
    file once. Lazy, and only a hash of each path is remembered: memory does not grow with
    the tree."""
    seen: set[int] = set()
    for path in given:
        if path.is_dir():
            listings = _dir(str(path), quiet)
        else:
            real = os.path.realpath(path)
            try:
                st = os.stat(real)
                entry = (real, st.st_size, st.st_mtime_ns)
            except OSError:
                entry = (real, -1, -1)
            listings = iter([("", [entry])])    # no directory mark for a single file
        for top, files in listings:
            kept = []
            for entry in files:
                if hash(entry[0]) not in seen:
                    seen.add(hash(entry[0]))
                    kept.append(entry)
            yield top, kept


def transcripts(given: list[Path], quiet: bool = False) -> Iterator[str]:
    """Real paths of the transcripts under ``given``, each once, in a stable order."""
    for _, files in _listings(given, quiet):
        for real, _, _ in files:
            yield real


def _digest(files: list[Entry]) -> str:
    """What a directory's transcripts looked like: changes when any is added, removed,
    replaced, appended to or touched."""
    h = hashlib.blake2b(digest_size=16)
    for real, size, mtime in files:
        h.update(f"{real}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _walk_error(exc: OSError) -> None:
    print(f"edgar: skipped {exc.filename}: {exc.strerror or exc}", file=sys.stderr)


def main(argv: list[str], open_project: ProjectOpener) -> int:
    from edgar.core.project import find_root, state_dir

    try:
        args = _parse(argv)
        root = find_root()
        given = roots(args.paths, args.all, root)
    except _Usage as exc:
        print(f"edgar: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:    # --help
        return exc.code if isinstance(exc.code, int) else 2

    opened: list[Project] = []

    def project() -> Project:
        # Opened when the first row is about to be written (for the secrets the settings
        # name): importing the settings model costs more than a re-run that finds nothing new.
        from edgar.config import ConfigError, load

        if not opened:
            try:
                opened.append(open_project(root, load(root)))
            except ConfigError as exc:
                raise _Usage(str(exc)) from None
        return opened[0]

    failed: list[str] = []
    unchanged = [0]
    try:
        sink = DrySink(state_dir(root)) if args.dry_run else StoreSink(root, project)
        try:
            summary = summarize(_scan_all(given, sink, args.typed, failed, unchanged))
            summary["files"] += unchanged[0]
        finally:
            sink.close()
    except _Usage as exc:           # a config mistake: files done so far are kept
        print(f"edgar: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:    # disk full, a locked or damaged store: what is saved stays
        print(f"edgar: import stopped: {exc} (files done so far are kept; run it again)",
              file=sys.stderr)
        return 1
    _report(summary | {"proposals": sink.proposals, "folders": [str(g) for g in given]}, args)
    return 1 if failed else 0


@contextmanager
def _progress(given: list[Path]) -> Iterator[Callable[[str], None]]:
    """A bar on stderr when it is a terminal (rich, imported only then); else nothing."""
    if not sys.stderr.isatty():
        yield lambda file: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    def size(file: str) -> int:
        try:
            return os.path.getsize(file)
        except OSError:
            return 0

    total = sum(size(f) for f in transcripts(given, quiet=True))   # a first, quiet walk
    columns = (TextColumn("importing"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("import", total=total)
        yield lambda file: bar.advance(task, size(file))


def _scan_all(given: list[Path], sink, typed_out: bool, failed: list[str],
              unchanged: list[int]) -> Iterator[ScanResult]:
    """Each file's ScanResult, one at a time (so a million files cost no memory here).

    A directory whose listing matches its mark (``sink.dirs``) was read to the end of every
    file and nothing in it changed since: its files are counted in ``unchanged[0]``, none
    is opened (ADR 0054).
    """
    with _progress(given) as advance:
        write = sys.stdout.write   # (after the bar starts: rich may have redirected stdout)
        for top, files in _listings(given):
            marked = bool(top and files)     # (a directory without transcripts has no mark)
            digest = _digest(files) if marked else ""
            if marked and sink.dirs.get(top) == digest:
                for real, _, _ in files:
                    advance(real)
                unchanged[0] += len(files)
                continue
            whole = True
            for file, _, _ in files:
                result = _scan_one(file, sink, typed_out, write, failed)
                sink.done(file, result)
                advance(file)
                if result is None:
                    whole = False
                else:
                    yield result
            if marked and whole:
                sink.dir_done(top, digest)


def _scan_one(file: str, sink, typed_out: bool, write, failed: list[str]) -> ScanResult | None:
    items = scan(file, sink.marks.get(file))
    result: ScanResult | None = None
    while True:
        try:            # only the reader is guarded: a store failure is not a bad file
            item = next(items)
        except StopIteration:
            break
        except OSError as exc:
            print(f"edgar: skipped {file}: {exc.strerror or exc}", file=sys.stderr)
            break
        except Exception as exc:  # noqa: BLE001 - a reader bug must not cost the rest
            failed.append(file)
            print(f"edgar: could not read {file}: {type(exc).__name__}: {exc} "
                  "(a bug in edgar; please report it)", file=sys.stderr)
            break
        match item:
            case Typed():
                sink.typed(item)
                if typed_out:
                    write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
            case Exchange():
                sink.exchange(item)
            case ScanResult():
                result = item
    return result


def _report(summary: dict, args: argparse.Namespace) -> None:
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return
    out = sys.stderr if args.typed else sys.stdout   # --typed keeps stdout pure JSON lines
    s = summary
    print(f"from {', '.join(s['folders'])}:", file=out)
    print(f"read {s['files']} file(s), {s['lines']} new line(s) ({s['malformed']} malformed, "
          f"skipped): {s['sessions']} session(s), {s['exchanges']} exchange(s), "
          f"{s['typed_messages']} typed message(s)", file=out)
    client = ", ".join(f"{k} {v}" for k, v in sorted(s["client_messages"].items(),
                                                      key=lambda kv: (-kv[1], kv[0])))
    if client:
        print(f"client-written (never learned): {client}", file=out)
    if args.dry_run:
        print(f"dry run: nothing stored; {s['proposals']} proposal(s) would be made", file=out)
    else:
        print(f"{s['proposals']} new proposal(s) stored as pending; review them with "
              "`edgar memory review`", file=out)
