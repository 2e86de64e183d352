"""Git auto-commit (``[git] auto_commit``, ADR-0108): each turn's changes become one commit of
edgar's; ``/commit`` commits what is pending; undo takes edgar's own last commits back.

Guarantees:
- Every git command goes through the ``GitRun`` it is given: the session's sandboxed,
  neutralised git (no hook runs, ``--no-verify`` besides); nothing here starts a process.
- A turn's commit holds exactly the paths that were clean before the turn and are changed
  after it: tracked files changed by any tool or command, and new files the model's
  ``write``/``edit`` created (a new file a command made, a build output say, is left alone).
  A path that was dirty or staged before the turn is never in it, even when the turn changed
  it (the person's uncommitted work is theirs: it is named, left uncommitted); what the
  person had staged for other paths stays staged (``git commit --only``).
- The message is written from the change (``commit_message``), redacted, with edgar's
  trailers. With a ``writer`` (``[git] commit_message = "model"``, ADR-0111) the model writes
  the subject and body from the commit's diff, redacted before it is sent: one call per
  commit; a provider failure, a timeout or an answer that is not a message falls back to the
  summary message, said once a session. A ``/commit MESSAGE`` keeps the person's words; the author
  and committer name end in ``(edgar)``. Each commit edgar makes is
  recorded in ``commits.jsonl`` (0600, edgar's state): undo trusts that record, never a
  message a commit could forge.
- ``undo_check`` allows taking back only edgar's own commits, recorded for those turns, at
  the tip of the branch, on no remote branch, their files unchanged since; anything else is
  a reason, said, and nothing changes (``git revert`` is named as the way). Failures of git
  are said as one Notice, never raised.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from edgar.core import commit_message as msg
from edgar.core.commit_writer import Written
from edgar.providers.base import ProviderError

RECORDS = "commits.jsonl"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"   # what a first commit is diffed against
WRITE_TIMEOUT = 90.0   # seconds the model may take to write one message


class GitOutcome(Protocol):
    """How one git command ended (``edgar.sandbox.git.GitResult``)."""

    @property
    def exit_code(self) -> int | None: ...

    @property
    def stdout(self) -> bytes: ...

    @property
    def stderr(self) -> bytes: ...

    @property
    def problem(self) -> str | None: ...

    @property
    def ok(self) -> bool: ...


class MessageWriter(Protocol):
    """Writes a commit message from a diff (``edgar.core.commit_writer.Writer``)."""

    @property
    def model(self) -> str: ...

    async def write(self, prompt: str, diff: str, turn_id: str) -> Written | None: ...


class GitRun(Protocol):
    """One git command at the project root, sandboxed and neutralised (``edgar.sandbox.git``)."""

    def __call__(self, args: Sequence[str], *,
                 input: bytes | None = None) -> Awaitable[GitOutcome]: ...


def parse_status(out: bytes) -> dict[str, str]:
    """``git status --porcelain=v1 -z --no-renames`` → {path: XY} (pure)."""
    entries: dict[str, str] = {}
    for item in out.split(b"\0"):
        if len(item) > 3 and item[2:3] == b" ":
            entries[os.fsdecode(item[3:])] = item[:2].decode("ascii", "replace")
    return entries


def letter(code: str) -> str:
    """``A`` added, ``D`` deleted, ``M`` anything else (what the message's file list says)."""
    if code == "??" or "A" in code:
        return "A"
    return "D" if "D" in code else "M"


def plan(before: Mapping[str, str], after: Mapping[str, str],
         written: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """(paths to commit → their status, paths the turn touched that were dirty before) (pure).

    A path dirty or staged before the turn is never committed; an untracked path only when
    the model's tools wrote it."""
    wrote = set(written)
    commit: dict[str, str] = {}
    left: list[str] = []
    for path, code in after.items():
        if path in before:
            if path in wrote or before[path] != code:
                left.append(path)
        elif code != "??" or path in wrote:
            commit[path] = code
    left += sorted(p for p in wrote if p in before and p not in after and p not in left)
    return commit, sorted(left)


@dataclass(frozen=True)
class Record:
    """One commit edgar made, as ``commits.jsonl`` keeps it."""

    hash: str
    parent: str | None
    session: str
    turn: str
    paths: dict[str, str]
    time: float = 0.0


@dataclass
class Committer:
    root: Path
    state: Path
    run: GitRun
    redact: Callable[[str], str]
    say: Callable[[str, str], None]   # (level, message): a Notice
    session_id: str
    enabled: bool = False
    before: dict[str, str] | None = None
    written: set[str] = field(default_factory=set)   # this session's tools wrote these
    writer: MessageWriter | None = None   # [git] commit_message = "model" (ADR-0111)
    _said_not_repo: bool = False
    _said_fallback: bool = False

    # -- git ----------------------------------------------------------------------------
    async def _git(self, *args: str, input: bytes | None = None) -> GitOutcome:
        return await self.run(list(args), input=input)

    async def status(self) -> dict[str, str] | None:
        if not (self.root / ".git").exists():
            return None
        done = await self._git("status", "--porcelain=v1", "-z", "--untracked-files=all",
                               "--no-renames")
        return parse_status(done.stdout) if done.ok else None

    async def head(self) -> str | None:
        done = await self._git("rev-parse", "--verify", "-q", "HEAD")
        return done.stdout.decode().strip() if done.ok else None

    async def identity(self) -> tuple[str, str]:
        """The person's name and email (the repository's config, else their own git config
        files, read as files: nothing of them runs), the name marked ``(edgar)``."""
        found: dict[str, str] = {}
        home = Path(os.path.expanduser("~"))
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "config"
        sources: list[list[str]] = [[]] + [["--file", str(p)] for p in (home / ".gitconfig", xdg)
                                           if p.is_file()]
        for key in ("name", "email"):
            for source in sources:
                done = await self._git("config", *source, "--get", f"user.{key}")
                value = msg.one_line(done.stdout.decode("utf-8", "replace")) if done.ok else ""
                if value:
                    found[key] = value
                    break
        name = found.get("name", "")
        name = f"{name} (edgar)" if name and name != "edgar" else "edgar"
        return name, found.get("email", "edgar@localhost")

    # -- a turn -------------------------------------------------------------------------
    async def begin(self) -> None:
        """Before a turn: what is dirty now is the person's, never part of its commit."""
        self.before = await self.status() if self.enabled else None

    def wrote(self, paths: Iterable[str]) -> None:
        self.written.update(paths)

    async def after_turn(self, prompt: str, turn_id: str, files: Iterable[str]) -> str | None:
        """Commit what the turn changed; the new commit's hash, or None (said why)."""
        files = list(files)
        self.wrote(files)
        before, self.before = self.before, None
        if not self.enabled:
            return None
        if before is None:
            if not self._said_not_repo and files:
                self._said_not_repo = True
                self.say("warning", "auto-commit: not a git repository (or git failed): "
                         "nothing committed")
            return None
        after = await self.status()
        if after is None:
            self.say("warning", "auto-commit: git status failed: nothing committed")
            return None
        changes, left = plan(before, after, files)
        if left:
            self.say("info", f"auto-commit: left uncommitted (they had your own changes "
                     f"before the turn): {msg.file_list(left)}")
        if not changes:
            return None
        return await self._commit(changes, prompt, turn_id)

    async def commit_pending(self, message: str = "", prompt: str = "") -> str | None:
        """``/commit``: every tracked change (staged or not) and the new files edgar wrote
        this session, as aider's /commit does; other untracked files are named, not added."""
        status = await self.status()
        if status is None:
            self.say("warning", "commit: not a git repository (or git status failed)")
            return None
        changes = {p: c for p, c in status.items() if c != "??" or p in self.written}
        others = [p for p, c in status.items() if c == "??" and p not in self.written]
        if others:
            self.say("info", f"commit: not added (untracked; git add them to commit): "
                     f"{msg.file_list(others)}")
        if not changes:
            self.say("info", "commit: nothing to commit")
            return None
        return await self._commit(changes, message or prompt, "", title=bool(message))

    async def _commit(self, changes: dict[str, str], prompt: str, turn_id: str,
                      title: bool = False) -> str | None:
        paths = sorted(changes)
        new = [p for p in paths if changes[p] == "??"]
        if new:
            added = await self._git("add", "--", *new)
            if not added.ok:
                self._failed("git add", added)
                return None
        letters = {p: letter(changes[p]) for p in paths}
        parent = await self.head()
        written = None if title else await self._written(prompt, paths, parent, turn_id)
        if written is not None and self.writer is not None:
            text = self.redact(msg.compose(written.subject, letters, session=self.session_id,
                                           turn=turn_id, model=self.writer.model,
                                           body=written.body))
        else:
            subject = msg.one_line(prompt) if title else msg.subject(prompt, letters)
            text = self.redact(msg.compose(subject, letters, session=self.session_id,
                                           turn=turn_id))
        name, email = await self.identity()
        done = await self._git("-c", f"user.name={name}", "-c", f"user.email={email}",
                               "commit", "--only", "--no-verify", "--quiet",
                               "--cleanup=whitespace", "-F", "-", "--", *paths,
                               input=text.encode("utf-8"))
        if not done.ok:
            self._failed("git commit", done)
            return None
        commit = await self.head()
        if commit is None or commit == parent:
            self.say("warning", "auto-commit: git commit made no commit")
            return None
        self._record(Record(commit, parent, self.session_id, turn_id, letters, time.time()))
        self.say("info", f"committed {commit[:7]} {msg.one_line(text)!r} "
                 f"({msg.file_list(paths)}) — edgar undo takes it back")
        return commit

    async def _written(self, prompt: str, paths: Sequence[str], parent: str | None,
                       turn_id: str) -> Written | None:
        """The model's message for these paths' change, or None (the summary is used; the
        first time a session falls back, it says why)."""
        if self.writer is None:
            return None
        why = ""
        written: Written | None = None
        diff = await self._git("diff", "--no-color", "--no-ext-diff", "--no-textconv",
                               parent or EMPTY_TREE, "--", *paths)
        if not diff.ok:
            why = "git diff failed"
        else:
            text = self.redact(diff.stdout.decode("utf-8", "replace"))
            try:
                async with asyncio.timeout(WRITE_TIMEOUT):
                    written = await self.writer.write(self.redact(prompt), text, turn_id)
            except ProviderError as exc:
                why = f"the model call failed: {msg.clip(msg.one_line(exc.message), 160)}"
            except TimeoutError:
                why = f"the model took over {WRITE_TIMEOUT:.0f} s"
            else:
                if written is None:
                    why = "the model's answer was empty or not a commit message"
        if why and not self._said_fallback:
            self._said_fallback = True
            self.say("warning", f"commit message: {why}; the summary message is used instead "
                     "(said once a session)")
        return written

    def _failed(self, what: str, done: GitOutcome) -> None:
        why = done.problem or msg.clip(msg.one_line(done.stderr.decode("utf-8", "replace")),
                                       200) or f"exit {done.exit_code}"
        self.say("warning", f"auto-commit: {what} failed: {why}; nothing committed")

    # -- undo ---------------------------------------------------------------------------------
    async def undo_check(self, turns: Sequence[tuple[str, str]]) -> tuple[list[Record], str | None]:
        """edgar's commits of ``turns`` ((session, turn), newest first), and why they cannot be
        taken back (None: they can). Only edgar's own commits at the tip of the branch, not on
        a remote, with their files unchanged since, can be; this changes nothing."""
        mine = {(r.session, r.turn): r for r in self.records() if r.turn}
        found = [mine[t] for t in turns if t in mine]
        if not found:
            return [], None
        tip = await self.head()
        for record in found:
            short = record.hash[:7]
            if record.hash != tip:
                where = await self._describe(tip)
                return found, (f"edgar's commit {short} of that turn is not the last commit any "
                               f"more ({where}): edgar takes back only its own last commit, never "
                               f"yours — `git revert {short}` takes its change back as a new "
                               "commit")
            if record.parent is None:
                return found, (f"edgar's commit {short} is the repository's first commit: not "
                               "taken back")
            tip = record.parent
        remotes = await self._git("branch", "-r", "--contains", found[0].hash)
        names = remotes.stdout.decode("utf-8", "replace").split() if remotes.ok else []
        if names:
            short = found[0].hash[:7]
            return found, (f"edgar's commit {short} is already on {names[0]}: history others "
                           f"have is not rewritten — `git revert {short}` takes it back")
        paths = sorted({p for r in found for p in r.paths})
        done = await self._git("status", "--porcelain=v1", "-z", "--untracked-files=all",
                               "--no-renames", "--", *paths)
        if not done.ok:
            return found, "git status failed: nothing was changed"
        changed = sorted(parse_status(done.stdout))
        if changed:
            return found, (f"you changed {msg.file_list(changed)} since edgar committed "
                           f"{'them' if len(changed) > 1 else 'it'}: commit or stash that first "
                           f"(or `git revert {found[0].hash[:7]}`)")
        return found, None

    async def _describe(self, commit: str | None) -> str:
        if commit is None:
            return "the branch has no commit"
        done = await self._git("log", "-1", "--format=%h %s", commit)
        line = msg.clip(msg.one_line(done.stdout.decode("utf-8", "replace")), 60)
        return f"HEAD is {line}" if done.ok and line else f"HEAD is {commit[:7]}"

    async def undo_reset(self, found: Sequence[Record]) -> str | None:
        """Move the branch back to before ``found`` (newest first, checked by ``undo_check``);
        the working files are the checkpoints' to restore. A problem, or None."""
        parent = found[-1].parent
        if parent is None:
            return "no parent commit"
        done = await self._git("reset", "--soft", "-q", parent)
        if not done.ok:
            return done.problem or msg.one_line(done.stderr.decode("utf-8", "replace")) or "failed"
        self.say("info", f"took back edgar's commit{'s' * (len(found) > 1)} "
                 f"{', '.join(r.hash[:7] for r in found)}")
        return None

    async def undo_index(self, found: Sequence[Record]) -> None:
        """After the files are restored: their index entries as the commit before has them."""
        paths = sorted({p for r in found for p in r.paths})
        if paths:
            await self._git("reset", "-q", "HEAD", "--", *paths)

    # -- the record -----------------------------------------------------------------------
    def _record(self, record: Record) -> None:
        path = self.state / RECORDS
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        line = json.dumps(record.__dict__, sort_keys=True) + "\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(line)

    def records(self) -> list[Record]:
        return read_records(self.state)


def read_records(state: Path) -> list[Record]:
    """The commits edgar made in this project, oldest first; a damaged line is skipped."""
    try:
        # bytes that are not UTF-8 spoil their line only, which is skipped like any damaged one
        text = (state / RECORDS).read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    found: list[Record] = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
            found.append(Record(str(data["hash"]), data.get("parent"), str(data["session"]),
                                str(data["turn"]), dict(data["paths"]),
                                float(data.get("time", 0))))
        except (ValueError, KeyError, TypeError):
            continue
    return found
