"""``.edgar/history.md``: one short, redacted, readable entry per run (seed 004, stop 4).

Guarantees:
- An entry is six lines and a blank one: when (the ``##`` heading), asked, said, did,
  files, ended. Every line is one line of text and has passed ``redact()``.
- ``condense()`` keeps the first ``WORDS`` words; no model is ever called.
- Appending is one ``os.write`` of the whole entry on an ``O_APPEND`` descriptor, under an
  exclusive ``flock`` on the state directory, so entries of concurrent edgar processes
  never interleave and a kill -9 leaves no partial entry.
- Past ``CAP`` bytes the file is renamed to ``history.1.md`` (replacing the older one) under
  the same lock, so rotation never splits or loses an entry.
- ``distill()`` only counts repeated ``did:``/``files:`` lines and writes sentences of its
  own; what it proposes is saved as ``distilled`` (pending until a person approves it).
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from edgar.learning.redaction import redact as default_redact

if sys.platform == "win32":  # pragma: no cover - no flock there: single process only
    fcntl = None
else:
    import fcntl

WORDS = 40
CAP = 256 * 1024
NAME, OLD = "history.md", "history.1.md"
FIELDS = ("asked", "said", "did", "files", "ended")
MAX_FILES = 8
DISTILL_MIN = 3          # a pattern seen fewer times is an anecdote, not a habit
_PATHISH = re.compile(r"[^A-Za-z0-9._/+, -]")


def condense(text: str, words: int = WORDS) -> str:
    """The first ``words`` words of ``text`` on one line, ``…`` when something was cut."""
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def entry(run, redact: Callable[[str], str] = default_redact) -> str:
    """The six lines (and the blank separator) for one finished run."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started))
    # a name of only whitespace would fold to nothing and leave "- files:" without its value
    named = [redact(name) for name in map(_one_line, run.files) if name]
    files = named[:MAX_FILES]
    if len(named) > MAX_FILES:
        files.append(f"and {len(named) - MAX_FILES} more")
    cost = "cost unknown" if run.cost is None else f"${run.cost:.4f}"
    ended = f"{run.outcome} in {run.duration:.1f} s, {cost}"
    if run.verify_runs:
        ended += ", verify " + ("passed" if run.verify_passed else "failed")
    lines = [
        f"## {when} · session {run.session_id or '-'}",
        # redact first, then condense: a cut must never leave half a secret for redact to miss
        f"- asked: {condense(redact(run.prompt)) or '(nothing typed)'}",
        f"- said: {condense(redact(run.said)) or '(no answer)'}",
        f"- did: {run.shape}",
        f"- files: {', '.join(files) or '(none)'}",
        f"- ended: {ended}",
    ]
    # redact the whole line, then fold again: nothing may add a line break to an entry
    return "".join(_one_line(redact(_one_line(line))) + "\n" for line in lines) + "\n"


def is_whole(block: str) -> bool:
    """True for a complete entry (what a reader of the file may rely on)."""
    lines = block.strip("\n").split("\n")
    return (len(lines) == 6 and lines[0].startswith("## ")
            and all(lines[i + 1].startswith(f"- {f}: ") for i, f in enumerate(FIELDS)))


def split_entries(text: str) -> list[str]:
    blocks = [b for b in re.split(r"\n\s*\n", text) if b.strip()]
    return [b.strip("\n") + "\n" for b in blocks if is_whole(b)]


class History:
    """Appends entries to ``state/history.md``; reads them back across the rotation."""

    def __init__(self, state: Path, redact: Callable[[str], str] = default_redact,
                 cap: int = CAP) -> None:
        self.state = Path(state)
        self.path = self.state / NAME
        self.old = self.state / OLD
        self.redact = redact
        self.cap = cap

    @contextmanager
    def _locked(self, mode: int) -> Iterator[None]:
        # Lock the directory itself: the file gets renamed away, and a separate lock file
        # would be one more thing for the project's git to see.
        if fcntl is None:
            yield
            return
        self.state.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.state, os.O_RDONLY)
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            os.close(fd)             # closing releases the lock

    def append(self, run) -> None:
        data = entry(run, self.redact).encode("utf-8")
        with self._locked(fcntl.LOCK_EX if fcntl else 0):
            try:
                size = os.stat(self.path).st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(data) > self.cap:
                os.replace(self.path, self.old)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.fchmod(fd, 0o600)
            try:
                os.write(fd, data)   # one write of the whole entry
            finally:
                os.close(fd)

    def entries(self) -> list[str]:
        """Every whole entry, oldest first (``history.1.md`` then ``history.md``)."""
        if not self.state.is_dir():
            return []
        with self._locked(fcntl.LOCK_SH if fcntl else 0):
            texts = [p.read_text(encoding="utf-8", errors="replace")
                     for p in (self.old, self.path) if p.is_file()]
        return [e for text in texts for e in split_entries(text)]


def _field(block: str, name: str) -> str:
    for line in block.splitlines():
        if line.startswith(f"- {name}: "):
            return line[len(name) + 4:].strip()
    return ""


def distill(entries: list[str]) -> list[str]:
    """Facts to propose from how often the same ``did:`` and ``files:`` lines repeat.

    The text is what is proposed and nothing else (no counts), so the same pattern seen
    again is the same fact: stored once, and a rejected one stays rejected.
    """
    return [text for text, _ in distill_counted(entries)]


def distill_counted(entries: list[str]) -> list[tuple[str, str]]:
    """``distill`` with the evidence for each proposal ("4 of 6 runs"), for showing."""
    total = len(entries)
    did = Counter(_PATHISH.sub("_", _field(e, "did"))[:80] for e in entries)
    files = Counter(_PATHISH.sub("_", f)[:200] for e in entries
                    if (f := _field(e, "files")) and f != "(none)")
    out: list[tuple[str, str]] = []
    for shape, n in did.most_common():
        if n < DISTILL_MIN or not shape:
            continue
        seen = f"{n} of {total} runs"
        if shape == "answer":
            out.append(("Many runs here need no tools at all.", seen))
        else:
            out.append((f"Runs here are often {shape} work.", seen))
    for line, n in files.most_common():
        if n < DISTILL_MIN:
            continue
        together = " together" if "," in line else ""
        out.append((f"Runs here often touch {line}{together}.", f"{n} of {total} runs"))
    return out
