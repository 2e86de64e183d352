"""``edgar memory list|add|edit|forget|review``: the person's view of, and door into, memory.

Guarantees:
- ``review`` is the only way from pending to active: it shows each pending fact's id,
  provenance, source and exact text, and an approval is bound to the sha256 of the text
  shown (after an edit: of the edited text shown). A fact changed after it was shown is
  refused (exit 1 for ``--approve``).
- ``add`` stores a ``manual`` fact (active). ``edit ID TEXT`` replaces an active fact by a
  ``manual`` one with TEXT and keeps the old text as a forgotten fact. Nothing here imports
  ``edgar.learning``.
- Exit codes: 0 ok, 1 refused, 2 usage or config error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from edgar.memory.store import Fact, MemoryStore, ReviewError, digest
from edgar.memory.subjects import superseded

PROMPT = "[a]pprove [r]eject [e]dit [s]kip [q]uit > "


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="edgar memory", description="Facts edgar remembers here.")
    sub = p.add_subparsers(dest="action")   # no action: list
    ls = sub.add_parser("list", help="active facts (or --pending, --all)")
    which = ls.add_mutually_exclusive_group()
    which.add_argument("--pending", action="store_true", help="facts waiting for review")
    which.add_argument("--all", action="store_true", help="every fact, any status")
    ls.add_argument("--json", action="store_true")
    add = sub.add_parser("add", help="remember TEXT (provenance manual, active)")
    add.add_argument("text")
    change = sub.add_parser("edit", help="change active fact ID to TEXT (provenance manual; "
                            "the old text is kept, forgotten)")
    change.add_argument("id", type=int)
    change.add_argument("text")
    forget = sub.add_parser("forget", help="stop using fact ID")
    forget.add_argument("id", type=int)
    review = sub.add_parser("review", help="approve, reject or edit pending facts")
    review.add_argument("--approve", type=int, metavar="ID")
    review.add_argument("--hash", metavar="SHA256", help="sha256 of the text you approve")
    review.add_argument("--reject", type=int, metavar="ID")
    return p


def _store_exists() -> bool:
    import os

    from edgar.core.project import find_root, state_dir

    # a directory or other non-file there is opened, and said as broken, not as "no facts"
    return os.path.lexists(state_dir(find_root()) / "memory.db")


def _open_store() -> MemoryStore:
    from edgar.cli.setup import open_project
    from edgar.config import load
    from edgar.core.project import find_root

    root = find_root()
    return open_project(root, load(root)).memory()


def run(argv: list[str]) -> int:
    from edgar.config import ConfigError

    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    if args.action is None:               # `edgar memory`: what `edgar memory list` shows
        args = _parser().parse_args(["list"])
    if args.action in ("list", "review") and args.__dict__.get("approve") is None \
            and args.__dict__.get("reject") is None and not _store_exists():
        try:   # a config mistake is still reported
            from edgar.config import load
            from edgar.core.project import find_root

            load(find_root())
        except ConfigError as exc:
            print(f"edgar: {exc}", file=sys.stderr)
            return 2
        # reading never creates .edgar/ in a directory that has none
        print("nothing to review" if args.action == "review" else "[]"
              if getattr(args, "json", False) else
              "no facts yet in this project (edgar memory add TEXT remembers one)")
        return 0
    if args.action == "review" and args.approve is not None and not args.hash:
        print("edgar: --approve needs --hash (the sha256 of the text you saw; "
              "`edgar memory list --pending --json` shows it)", file=sys.stderr)
        return 2
    try:
        store = _open_store()
    except ConfigError as exc:
        print(f"edgar: {exc}", file=sys.stderr)
        return 2
    with store:
        return _dispatch(store, args)


def _dispatch(store: MemoryStore, args) -> int:
    try:
        if args.action == "list":
            return _list(store, args)
        if args.action == "add":
            fact = store.add(args.text, "manual", source="edgar memory add")
            print(f"remembered fact {fact.id}" if fact
                  else "already known (or empty); nothing added")
            return 0
        if args.action == "edit":
            fact = store.edit(args.id, args.text)
            moved = f" (now fact {fact.id}; the old text is kept as forgotten fact {args.id})" \
                if fact.id != args.id else ""
            print(f"fact {fact.id}: {fact.text}{moved}")
            return 0
        if args.action == "forget":
            fact = store.forget(args.id)
            print(f"forgot fact {fact.id}")
            return 0
        if args.approve is not None:
            pending = store.get(args.approve)
            old = superseded(store.list("active"), pending.text) if pending else []
            fact = store.approve(args.approve, args.hash, replacing=[f.id for f in old])
            print(f"approved fact {fact.id}: {fact.text}")
            return 0
        if args.reject is not None:
            store.reject(args.reject)
            print(f"rejected fact {args.reject}")
            return 0
        return review(store)
    except ReviewError as exc:
        print(f"edgar: {exc}", file=sys.stderr)
        return 1


def _list(store: MemoryStore, args) -> int:
    status = None if args.all else "pending" if args.pending else "active"
    facts = store.list(status)
    if args.json:
        print(json.dumps([f.to_json() for f in facts], indent=2, ensure_ascii=False))
        return 0
    if not facts:
        print(f"no {status or ''} facts".replace("  ", " "))
    for fact in facts:
        when = time.strftime("%Y-%m-%d", time.localtime(fact.created))
        print(f"{fact.id:>5}  {fact.status:<9} {fact.provenance:<14} {when}  {fact.text}")
    return 0


def _show(fact: Fact, text: str, out) -> None:
    out.write(f"\n#{fact.id} · {fact.provenance} · from {fact.source or 'unknown'}\n")
    out.write(f"  {text}\n")


def review(store: MemoryStore, ask: Callable[[str], str] = input, out=None) -> int:
    """Walk the pending facts; approval binds to the hash of exactly what was printed."""
    out = out or sys.stdout
    pending = sorted(store.list("pending"), key=lambda f: f.id)
    if not pending:
        out.write("nothing to review\n")
        return 0
    approved = rejected = 0
    for fact in pending:
        shown, edited = fact.text, False
        while True:
            _show(fact, shown, out)
            try:
                choice = ask(PROMPT).strip().lower()[:1]
            except EOFError:
                choice = "q"
            if choice == "q":
                out.write(f"approved {approved}, rejected {rejected}\n")
                return 0
            if choice == "s":
                break
            if choice == "r":
                store.reject(fact.id)
                rejected += 1
                break
            if choice == "e":
                try:
                    new = ask("new text > ")
                except EOFError:
                    continue
                if store.clean(new):
                    shown, edited = store.clean(new), True
                else:
                    out.write("empty text; keeping the text above\n")
                continue                      # show the edited text before it can be approved
            if choice == "a":
                try:
                    old = superseded(store.list("active"), shown)   # ADR-0080
                    store.approve(fact.id, digest(shown), shown if edited else None,
                                  replacing=[f.id for f in old])
                    approved += 1
                    for f in old:
                        out.write(f"fact {fact.id} replaces fact {f.id}: {f.text}\n")
                except ReviewError as exc:
                    out.write(f"refused: {exc}\n")
                break
            out.write("please answer a, r, e, s or q\n")
    out.write(f"approved {approved}, rejected {rejected}\n")
    return 0
