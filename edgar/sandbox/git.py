"""edgar's own git: the one door for every git command edgar runs for a session (checkpoints,
diff, undo, status, auto-commit, the error facts' "was it committed" question).

Use it like this::

    from edgar.sandbox.git import git, git_sync

    done = await git(["status", "--porcelain", "-z"], root=root, sandbox=box)
    if done.ok:
        ... done.stdout (bytes) ...
    done = git_sync(["ls-files", "--error-unmatch", "--", "a.py"], root=root, sandbox=box)

Guarantees (tests in tests/integration/test_edgar_git.py, against real repositories):
- git runs inside ``sandbox`` exactly like the model's commands (same spawner, same layers:
  no write to ``.git/hooks``/``.git/config``/``.edgar``, no network, its own PID namespace),
  *and* neutralised, since either alone has gaps: the repository cannot name a program for
  it to run. ``-c core.fsmonitor=false -c core.hooksPath=/dev/null``, pager off, external
  diff and textconv off, every filter the repository's config files define blanked
  (clean, smudge, process; required off — read from the files, no process run), optional
  locks off, submodules ignored, ``core.sshCommand``/``credential.helper`` blanked, no
  transport at all (``protocol.allow=never``), no signing, no auto gc or maintenance.
- Its environment is clean: PATH, HOME, TMPDIR and the locale from the one allow-list
  (``edgar.sandbox.env``), ``GIT_CONFIG_NOSYSTEM=1``, ``GIT_CONFIG_GLOBAL=/dev/null``, no
  prompt, no editor; no ``GIT_*`` variable of edgar's own environment reaches it, and git
  never looks for a repository above the project root.
- It never raises for git's own failures: a missing git, a timeout, a sandbox that could
  not be set up are a ``GitResult`` with ``ok`` False and ``problem`` saying why.
- The repository is the project's own: ``safe.directory`` is granted for the root only,
  which is safe because nothing the repository's config names can run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from edgar.sandbox.env import command_env
from edgar.sandbox.gitdir import git_dirs
from edgar.sandbox.ns import MARK, SETUP_FAILED

if TYPE_CHECKING:
    from edgar.sandbox.core import Sandbox

TIMEOUT = 30.0

# settings that make git run a program, turned off; later -c wins over every config file
NEUTRAL = (
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat",
    "core.sshCommand=", "core.askPass=", "credential.helper=", "diff.external=",
    "protocol.allow=never", "submodule.recurse=false", "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false", "log.showSignature=false", "commit.gpgSign=false",
    "tag.gpgSign=false", "gc.auto=0", "maintenance.auto=false", "core.untrackedCache=false",
)
# where a subcommand can show a diff: no external diff, no textconv
_DIFFING = ("diff", "show", "log", "diff-tree", "diff-index", "diff-files")
_FILTER_KEYS = ("clean", "smudge", "process")


@dataclass(frozen=True, slots=True)
class GitResult:
    """How one git command ended. ``exit_code`` None: it did not run to its end."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes = b""
    problem: str | None = None   # not started, timed out, sandbox not set up: why

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def command(args: Sequence[str], root: Path | str) -> list[str]:
    """The full git command line for ``args`` (the subcommand first): pure."""
    argv = ["git", "--no-pager", "--no-optional-locks"]
    for setting in (*NEUTRAL, f"safe.directory={os.path.realpath(root)}"):
        argv += ["-c", setting]
    rest = list(args)
    if rest:
        sub, tail = rest[0], rest[1:]
        extra: list[str] = []
        if sub in _DIFFING:
            extra = ["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"]
        elif sub == "status":
            extra = ["--ignore-submodules=all"]
        rest = [sub, *extra, *tail]
    return argv + rest


def environment(root: Path | str, filters: Sequence[str] = (),
                environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """git's environment: clean, with every filter in ``filters`` blanked (through
    GIT_CONFIG_KEY_n/VALUE_n, so a name holding ``=`` or spaces stays one name)."""
    base = command_env(environ)
    env: dict[str, str] = {k: base[k] for k in ("PATH", "HOME", "TMPDIR", "LANG", "TZ")
                           if k in base}
    env.update({k: v for k, v in base.items() if k.startswith("LC_")})
    env["PATH"] = env.get("PATH") or os.defpath
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_ATTR_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "GIT_EDITOR": ":",
        "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_LAZY_FETCH": "1", "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_CEILING_DIRECTORIES": os.path.dirname(os.path.realpath(root)),
    })
    pairs = [(f"filter.{name}.{key}", "") for name in filters for key in _FILTER_KEYS]
    pairs += [(f"filter.{name}.required", "false") for name in filters]
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    if pairs:
        env["GIT_CONFIG_COUNT"] = str(len(pairs))
    return env


# --- filter names, read from the config files without running anything ---------------------

_HEADER = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\\n]|\\.)*)")?\s*\]')
_KEY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")
MAX_DEPTH = 10


def filter_names(root: Path | str) -> list[str]:
    """Every filter name defined in the config files git may read for ``root``'s repository
    (its config, a worktree's config, submodules' configs, and what they include). Errs on
    the side of more names: an include's condition is not evaluated, so it is always read."""
    found: dict[str, None] = {}
    for path in _config_files(Path(os.path.realpath(root))):
        _read(path, found, 0, set())
    return list(found)


def _config_files(root: Path) -> list[Path]:
    gitdir, common = git_dirs(root)
    if not gitdir.is_dir():
        return []
    files = [common / "config", gitdir / "config.worktree"]
    modules = common / "modules"
    if modules.is_dir():
        files += sorted(modules.rglob("config"))
    return files


def _read(path: Path, found: dict[str, None], depth: int, seen: set[Path]) -> None:
    if depth > MAX_DEPTH or path in seen:
        return
    seen.add(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return
    section, sub = "", None
    for line in text.split("\n"):   # git's lines end at \n only (splitlines would split at \x1e)
        line = line.removesuffix("\r")
        header = _HEADER.match(line)
        rest = line
        if header:
            section, sub = header.group(1).lower(), header.group(2)
            if "." in section and sub is None:   # [filter.name]: the old, lowered syntax
                section, sub = section.split(".", 1)
            if sub is not None:
                sub = re.sub(r"\\(.)", r"\1", sub)
            if section == "filter" and sub is not None:
                found.setdefault(sub)
            rest = line[header.end():]
        key = _KEY.match(rest)
        if key and key.group(1).lower() == "path" and (
                section == "include" or (section == "includeif" and sub is not None)):
            target = _value(key.group(2) or "")
            if target:
                full = Path(os.path.expanduser(target))
                if not full.is_absolute():
                    full = path.parent / full
                _read(full, found, depth + 1, seen)


def _value(raw: str) -> str:
    raw = raw.split(" #")[0].split(" ;")[0].strip() if '"' not in raw else raw.strip()
    if raw.startswith('"'):
        end = raw.find('"', 1)
        return raw[1:end] if end > 0 else raw[1:]
    return raw


# --- running it -----------------------------------------------------------------------------

def _start(args: Sequence[str], root: Path, sandbox: Sandbox,
           environ: Mapping[str, str] | None, stdin: int) -> subprocess.Popen[bytes]:
    folder = os.fspath(root)
    env = environment(folder, filter_names(folder), environ)
    return subprocess.Popen(
        sandbox.argv(command(args, folder), folder), cwd=folder, env=env, stdin=stdin,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=sandbox.preexec(), close_fds=True)


def _result(code: int | None, out: bytes, err: bytes) -> GitResult:
    if code == SETUP_FAILED and MARK in err:
        text = err.decode("utf-8", "replace")
        return GitResult(None, b"", err, "sandbox: " + text[text.find(MARK.decode()) +
                                                            len(MARK):].strip())
    return GitResult(code, out, err)


def git_sync(args: Sequence[str], *, root: Path, sandbox: Sandbox, input: bytes | None = None,
             timeout: float = TIMEOUT, environ: Mapping[str, str] | None = None) -> GitResult:
    """Run ``git args`` at ``root`` in ``sandbox``, neutralised; wait for it (blocking)."""
    try:
        proc = _start(args, root, sandbox, environ,
                      subprocess.DEVNULL if input is None else subprocess.PIPE)
    except OSError as exc:
        return GitResult(None, b"", b"", f"git could not be started: {exc.strerror or exc}")
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_now(proc)
        proc.communicate()
        return GitResult(None, b"", b"", f"git timed out after {timeout:g}s and was killed")
    return _result(proc.returncode, out, err)


def _kill_now(proc: subprocess.Popen[bytes]) -> None:
    # its process group; in a PID namespace the init dies with the reaper (PDEATHSIG)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.kill()


async def git(args: Sequence[str], *, root: Path, sandbox: Sandbox, input: bytes | None = None,
              timeout: float = TIMEOUT, environ: Mapping[str, str] | None = None) -> GitResult:
    """``git_sync`` without blocking the event loop; cancelling it kills git."""
    from edgar.sandbox.process import Sandboxed

    try:   # started on the loop's thread: a fork with preexec_fn must not race other threads
        proc = _start(args, root, sandbox, environ,
                      subprocess.DEVNULL if input is None else subprocess.PIPE)
    except OSError as exc:
        return GitResult(None, b"", b"", f"git could not be started: {exc.strerror or exc}")
    handle = Sandboxed(proc, sandbox)
    try:
        out, err = await asyncio.wait_for(asyncio.to_thread(proc.communicate, input), timeout)
    except TimeoutError:
        await handle.kill(grace=0)
        return GitResult(None, b"", b"", f"git timed out after {timeout:g}s and was killed")
    except asyncio.CancelledError:
        await asyncio.shield(handle.kill(grace=0))
        raise
    return _result(proc.returncode, out, err)
