"""``edgar undo [N]`` and ``edgar diff``: the checkpoints of the project's last turns.

Guarantees: both read the project's state dir (in the user dir, ADR-0075) and never create it; both
first delete the checkpoints of
sessions whose last change is more than 7 days old (``Checkpoints.expire``); the git they run
goes through ``edgar.sandbox.git`` in the project's sandbox (``[sandbox]`` as a session has
it); ``undo`` restores the newest N turns' files (any session), newest first, and prints each
turn's session and turn, then one line per file saying what it did — unless a file changed
after edgar's turn left it: then it names those files, changes nothing and exits 1
(``--force`` puts edgar's copies back anyway); ``diff`` prints the newest session's changes
(or ``--session ID``, a prefix will do) as
a unified diff with 3 lines of context, and exits 0 with a note when there is nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from edgar.core.checkpoints import Checkpoints, describe, describe_refusal
from edgar.core.project import find_root, state_dir

if TYPE_CHECKING:
    from edgar.sandbox.core import Sandbox


class _ProjectSandbox:
    """The project's sandbox as a session would build it, at the first git call."""

    def __init__(self, root: Path):
        self.root = root
        self.box: Sandbox | None = None

    def get(self) -> Sandbox:
        if self.box is None:
            from edgar.cli.sandboxes import session_policy
            from edgar.config import ConfigError, load
            from edgar.sandbox import Policy, Sandbox

            try:
                policy = session_policy(self.root, load(self.root))
            except ConfigError:   # a broken config is said by the commands that need it
                policy = Policy.for_project(self.root)
            self.box = Sandbox(policy)
        return self.box


def _store() -> Checkpoints:
    root = find_root()
    store = Checkpoints(root, state_dir(root), "", sandbox=_ProjectSandbox(root))
    store.expire()
    return store


def run_undo(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="edgar undo", description="put back the files the last turn(s) changed",
        epilog="Checkpoints are exact, unredacted copies of the files a turn changed (0600, in "
               "the project's state dir in edgar's user dir, never in the repository): the one "
               "exception to redaction, so undo "
               "can restore them byte for byte. A session's checkpoints are deleted 7 days after "
               "its last change.")
    parser.add_argument("turns", nargs="?", type=int, default=1, metavar="N",
                        help="how many turns to undo (default 1)")
    parser.add_argument("--force", action="store_true",
                        help="put edgar's copies back even over changes made since the turn")
    args = parser.parse_args(argv)
    if args.turns < 1:
        parser.error("N must be at least 1")
    store = _store()
    stored = len(store.turns())
    if not stored:
        print("nothing to undo: no turn has changed files in this project yet")
        return 0
    from edgar.cli.commit_undo import undo
    from edgar.cli.setup import own_committer

    commits = own_committer(store.root, store.dir.parent, _ProjectSandbox(store.root))
    done, refusal = asyncio.run(undo(store, commits, args.turns, force=args.force))
    if refusal is not None:   # edgar's commit cannot be taken back: nothing changed
        print(f"edgar undo: {refusal}; nothing was changed", file=sys.stderr)
        return 1
    if done.changed:
        for line in describe_refusal(done.changed):
            print(f"edgar: {line}" if not line.startswith(" ") else line, file=sys.stderr)
        return 1
    steps = done.steps
    print(f"undid {len(steps)} turn{'s' * (len(steps) != 1)}" +
          (f" (only {stored} stored)" if args.turns > stored else ""))
    for line in describe(steps):
        print(f"  {line}")
    return 0


def run_diff(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="edgar diff",
                                     description="what edgar changed in the newest session")
    parser.add_argument("--session", metavar="ID", help="another session (an id prefix will do)")
    args = parser.parse_args(argv)
    store = _store()
    turns = store.turns()
    if not turns:
        print("no changes recorded in this project yet")
        return 0
    sessions = [m.get("session", "") for _, m in turns]
    if args.session:
        matches = sorted({s for s in sessions if s.startswith(args.session)})
        if len(matches) != 1:
            print(f"edgar: {'no' if not matches else 'more than one'} session with changes "
                  f"matches {args.session!r}", file=sys.stderr)
            return 2
        session = matches[0]
    else:
        session = sessions[-1]
    text = asyncio.run(store.diff(session))
    sys.stdout.write(text or f"session {session}: no differences left (undone or reverted)\n")
    return 0
