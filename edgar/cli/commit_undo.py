"""Undo when turns were committed (ADR-0108): ``/undo`` and ``edgar undo`` take edgar's own
commits of those turns back before the checkpoints put the files back.

Guarantees:
- When any of the turns to undo has a commit of edgar's, the commits are checked first
  (``Committer.undo_check``); a refusal changes nothing — no file, no ref, no index entry —
  and is returned to be said.
- Otherwise the branch moves back (``git reset --soft``) before the files are restored, so a
  file a command changed is restored from the commit before edgar's, and the index entries
  of the committed paths are reset after: the work tree, the index and the branch are as they
  were before those turns; what the person staged for other paths stays staged.
- Turns without a commit are undone exactly as before.
- The checkpoints' own check (ADR-0078: a file changed since its turn) runs after the
  commits' check and before any git ref moves; when it stops, nothing is changed and its
  ``Undone.changed`` is returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgar.core.autocommit import Committer, Record
    from edgar.core.checkpoints import Checkpoints, Undone


async def undo(store: Checkpoints, commits: Committer | None, n: int,
               session: str | None = None, force: bool = False) -> tuple[Undone, str | None]:
    """(what each undone turn restored, newest first; why nothing was undone, or None)."""
    chosen = list(reversed(store.turns(session)[-n:])) if n > 0 else []
    found: list[Record] = []
    if commits is not None and chosen:
        found, refusal = await commits.undo_check(
            [(str(m.get("session", "")), str(m.get("turn", ""))) for _, m in chosen])
        if refusal is not None:
            return _nothing(), refusal
    if not force:   # the checkpoints' check too, before any ref moves
        check = await store.undo(n, session=session, dry=True)
        if check.changed:
            return check, None
    if commits is not None and found:
        problem = await commits.undo_reset(found)
        if problem is not None:
            return _nothing(), f"git reset failed ({problem}): nothing was changed"
    done = await store.undo(n, session=session, force=force)
    if commits is not None and found:
        await commits.undo_index(found)
    return done, None


def _nothing() -> Undone:
    from edgar.core.checkpoints import Undone

    return Undone()
