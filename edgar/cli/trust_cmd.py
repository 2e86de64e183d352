"""``edgar trust [--show | --revoke]``, and the trust question at the start of a session.

Guarantees:
- ``edgar trust`` prints every setting in this project's ``.edgar/config.toml``,
  ``.mcp.json`` and Claude Code's ``.claude/settings.json`` and ``.claude/settings.local.json``
  that runs code or widens permissions (key, value, what it does), and what
  its custom commands run (``!`cmd```) or allow (``allowed-tools``), then records the
  SHA-256 of those files and command folders in the user dir, and of every project file
  that config runs (a hook's script, an MCP server's source: ``edgar.config.runs``, listed
  before it records); a later change to any of them needs trust again.
- ``--show`` says whether the project is trusted, which file changed since, and what the
  files ask for; ``--revoke`` forgets the record. Neither changes anything else.
- ``at_start``: the REPL asks once (``Trust it? [y/N]``; anything but y/yes is no);
  ``-p`` and piped runs never ask and say in one stderr line which keys were ignored, and
  when trust lapsed, which files changed and to run ``edgar trust`` again.
- A damaged trust record (``trust.problem``) is said in one line with the way out; the REPL
  does not ask then, and ``edgar trust`` / ``--revoke`` exit 1 leaving it as it is.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from edgar.config import runs, trust


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="edgar trust", description=(
        "Show what this project's .edgar/config.toml, .mcp.json and .claude/settings*.json "
        "would run or allow, and trust it: a later change to any of them needs trust again."))
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--show", action="store_true", help="show what is trusted; change nothing")
    group.add_argument("--revoke", action="store_true", help="forget this project's trust")
    args = parser.parse_args(argv)
    from edgar.core.project import find_root

    root = find_root()
    damaged = trust.problem()
    if damaged:
        print(f"edgar: {damaged}", file=sys.stderr)
        if not args.show:
            return 1   # rewriting it would lose the other projects' records in it
    if args.revoke:
        print(f"{'revoked' if trust.revoke(root) else 'was not trusted'}: {root}")
        return 0
    wanted = trust.wanted(root)
    if args.show:
        return _show(root, wanted)
    print(f"edgar trust: {root}")
    _list(wanted, sys.stdout)
    _list_runs(runs.find(root), sys.stdout)
    files = trust.trust(root)
    shown = ", ".join(f"{name} {digest[:12] if len(digest) == 64 else f'({digest})'}"
                      for name, digest in files.items())
    print(f"trusted: {shown}\nrecorded in {trust.user_dir() / trust.RECORD}; a change to "
          "these files needs `edgar trust` again (`edgar trust --revoke` undoes this)")
    return 0


def _list(wanted: list[trust.Held], out: TextIO) -> None:
    if not wanted:
        print("  nothing in this project's config runs code or widens permissions", file=out)
    for item in wanted:
        print(f"  {item.line()}", file=out)


def _list_runs(found: dict[str, list[str]], out: TextIO) -> None:
    """The project files that config runs: trusting it trusts them (ADR-0073)."""
    for name, by in found.items():
        print(f"  {name}: run by {', '.join(by)} (trusted as it is now)", file=out)


def _show(root: Path, wanted: list[trust.Held]) -> int:
    entry = trust.record(root)
    if entry is None:
        print(f"not trusted: {root}")
    elif trust.trusted(root):
        print(f"trusted since {entry.get('at', '?')}: {root}")
    else:
        print(f"{trust.lapse_reason(root)} (trusted {entry.get('at', '?')})")
    print("the project's config asks for:")
    _list(wanted, sys.stdout)
    _list_runs(runs.find(root), sys.stdout)
    return 0


def at_start(root: Path, *, interactive: bool, ask: Callable[[str], str] = input,
             err: TextIO = sys.stderr) -> bool:
    """Before settings are final: True when the person trusted the project just now (the
    caller reloads them). Prints nothing when nothing is held back."""
    if not any((root / name).exists() for name in (*trust.TRUSTED_FILES, *trust.TRUSTED_DIRS)):
        return False
    damaged = trust.problem()
    if damaged:
        print(f"edgar: {damaged}", file=err)
    held = trust.pending(root)
    if not held:
        return False
    lapsed = trust.changed(root)
    if not interactive or damaged:   # a damaged record is not overwritten by a "yes" either
        keys = ", ".join(dict.fromkeys(
            f"{item.file} {item.key}" if item.file.startswith(".claude/settings") else item.key
            for item in held))
        reason = trust.lapse_reason(root)
        if reason:
            print(f"edgar: {reason}; until then its settings are ignored ({keys})", file=err)
        else:
            print(f"edgar: ignoring untrusted project settings ({keys}); run `edgar trust` "
                  f"in {root} to allow them", file=err)
        return False
    why = f" (changed since you trusted it: {', '.join(lapsed)})" if lapsed else ""
    print(f"This project's config wants to run{why}:", file=err)
    _list(held, err)
    try:
        answer = ask("Trust it? [y/N] ").strip().lower()
    except EOFError:
        answer = ""
    if answer in ("y", "yes"):
        trust.trust(root)
        return True
    print("edgar: not trusted; those settings are ignored this session", file=err)
    return False
