"""The shape of a failed shell command, as the harness may state it (issue 10, ADR-0021).

Guarantees:
- ``is_answer(command, code)`` is true when a non-zero exit code is the command's answer,
  not a failure (``grep`` found nothing, ``diff`` found a difference): ``ANSWERS`` is the
  data, one commented entry per program. Such a result is reported as kind ``exit_answer``,
  which never becomes a fact.
- ``vouched_program(command, root, env)`` is the basename of the command's first word only
  when the harness can vouch for it: it resolves to an executable on ``PATH`` outside the
  project, or to a file tracked in the project's git index. Otherwise it is None, and a fact
  says "a project command": no name the model made up ever reaches a fact.
- Pure but for ``vouched_program``, which reads the file system and asks ``git ls-files``
  through ``edgar.sandbox.git`` (sandboxed, neutralised).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgar.sandbox.core import Sandbox


@dataclass(frozen=True)
class Answer:
    """``program`` exiting with ``code`` answers a question; ``needs`` narrows it to a use."""

    program: str
    code: int
    needs: tuple[str, ...] = ()      # all of these words must appear after the program
    any_of: tuple[str, ...] = ()     # and at least one of these, when given


ANSWERS: tuple[Answer, ...] = (
    Answer("grep", 1),               # no line matched (2 is a real error)
    Answer("egrep", 1),              # grep -E: no line matched
    Answer("fgrep", 1),              # grep -F: no line matched
    Answer("rg", 1),                 # ripgrep: no match (2 is a real error)
    Answer("ag", 1),                 # the silver searcher: no match
    Answer("diff", 1),               # the inputs differ (2 is trouble)
    Answer("cmp", 1),                # the files differ (2 is trouble)
    Answer("test", 1),               # the condition is false
    Answer("[", 1),                  # the same, spelled [ … ]
    Answer("git", 1, ("diff",), ("--exit-code", "--quiet")),   # the trees differ
    Answer("git", 1, ("grep",)),     # git grep: no match
)

_OPERATORS = {"|", "||", "&&", ";", "&", "|&", ";;", "(", ")"}


def _words(command: str) -> list[str]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return command.split()


def _stages(command: str) -> list[list[str]]:
    stages: list[list[str]] = [[]]
    for word in _words(command):
        if word in _OPERATORS:
            stages.append([])
        else:
            stages[-1].append(word)
    return [s for s in stages if s]


def _strip_assignments(words: list[str]) -> list[str]:
    for i, word in enumerate(words):
        if not ("=" in word.split("/")[0] and not word.startswith("=")):
            return words[i:]
    return []


def is_answer(command: str, code: int | None) -> bool:
    """True when ``code`` from ``command`` is an answer (the last stage decides the status)."""
    if not code:
        return False
    stages = _stages(command)
    if not stages:
        return False
    words = _strip_assignments(stages[-1])
    if not words:
        return False
    program, rest = os.path.basename(words[0]), words[1:]
    for answer in ANSWERS:
        if answer.program != program or answer.code != code:
            continue
        if answer.needs and not all(w in rest for w in answer.needs):
            continue
        if answer.any_of and not any(w in rest for w in answer.any_of):
            continue
        return True
    return False


def _first_word(command: str) -> str:
    stages = _stages(command)
    words = _strip_assignments(stages[0]) if stages else []
    return words[0] if words else ""


def _tracked(path: Path, root: Path, sandbox: Sandbox | None) -> bool:
    # edgar's own read-only question, asked through edgar's one git door: sandboxed and
    # neutralised, so the repository's config cannot make ls-files run a program
    from edgar.sandbox.git import git_sync

    if sandbox is None:
        from edgar.sandbox import Policy, Sandbox

        sandbox = Sandbox(Policy.for_project(root))
    try:
        rel = str(path.relative_to(root))
    except ValueError:
        return False
    done = git_sync(["ls-files", "--error-unmatch", "--", rel], root=root, sandbox=sandbox,
                    timeout=5)
    return done.ok


def vouched_program(command: str, root: Path, env: Mapping[str, str] | None = None,
                    sandbox: Sandbox | None = None) -> str | None:
    """The basename of the command's first word if the harness can vouch for it, else None
    (``sandbox``: where edgar's git runs; the project's default policy when not given)."""
    word = _first_word(command)
    if not word:
        return None
    real_root = root.resolve()
    if "/" in word:
        try:
            path = (real_root / os.path.expanduser(word)).resolve()
        except OSError:
            return None
        if path.is_relative_to(real_root) and path.is_file() and _tracked(path, real_root, sandbox):
            return os.path.basename(word)
        return None
    search = os.pathsep.join(d for d in (env or os.environ).get("PATH", "").split(os.pathsep)
                             if os.path.isabs(d))      # "." or "bin" would be the project's
    found = shutil.which(word, path=search)
    if found is None:
        return None
    path = Path(found).resolve()
    if path.is_relative_to(real_root) and not _tracked(path, real_root, sandbox):
        return None                                     # written into the project, not known
    return word
