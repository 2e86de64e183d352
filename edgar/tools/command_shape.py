"""The shape of a failed shell command, as the harness may state it (issue 10, ADR-0021).

Guarantees:
- ``is_answer(command, code)`` is true when a non-zero exit code is the command's answer,
  not a failure (``grep`` found nothing, ``diff`` found a difference): ``ANSWERS`` is the
  data, one commented entry per program. Such a result is reported as kind ``exit_answer``,
  which never becomes a fact.
- ``vouched_program(command, root, env, sandbox, baseline)`` is the basename of the
  command's first word only when the harness can vouch that the person put that name there
  (issue 21 item 8): a program found on an absolute ``PATH`` entry outside the project whose
  directory entry is older than the session (its ``ctime``) and whose directory the model's
  commands may not write; or a project file — the path as typed, or a ``PATH`` entry inside
  the project — that is in the commit the session began on (``edgar.tools.committed``,
  every object's id checked). A file the model created, staged (``git add``) or committed
  during the session, a link it made to a committed file, a program it installed: None, and
  a fact says "a project command". No baseline: None for everything.
- Pure but for ``vouched_program``, which reads the file system and asks ``git cat-file``
  through ``edgar.sandbox.git`` (sandboxed, neutralised).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from edgar.shellwords import shell_words
from edgar.tools.committed import Baseline, made_since

if TYPE_CHECKING:
    from edgar.sandbox.core import Sandbox
    from edgar.sandbox.policy import Policy


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


def _stages(command: str) -> list[list[str]]:
    stages: list[list[str]] = [[]]
    for word in shell_words(command):
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


def _project_file(rel: str, root: Path, baseline: Baseline | None,
                  sandbox: Sandbox | None) -> bool:
    # edgar's own read-only question, asked through edgar's one git door: sandboxed and
    # neutralised, so the repository's config cannot make cat-file run a program
    from edgar.tools.committed import committed

    if baseline is None or baseline.commit is None:
        return False
    if sandbox is None:
        from edgar.sandbox import Policy, Sandbox

        sandbox = Sandbox(Policy.for_project(root))
    return committed(baseline, root, rel, sandbox)


def _inside(path: str, root: Path) -> str | None:
    """``path`` (absolute, normalised) relative to ``root``, or None outside it."""
    rel = os.path.relpath(path, root)
    return None if rel == ".." or rel.startswith("../") or os.path.isabs(rel) else rel


def vouched_program(command: str, root: Path, env: Mapping[str, str] | None = None,
                    sandbox: Sandbox | None = None, baseline: Baseline | None = None
                    ) -> str | None:
    """The basename of the command's first word if the harness can vouch for it, else None.

    ``baseline``: what the session began on (``edgar.tools.committed``); without one no
    project file and no program made during the session can be vouched for. ``sandbox``:
    where edgar's git runs, and what the model's commands may write (the project's default
    policy when not given)."""
    word = _first_word(command)
    if not word or baseline is None or "\n" in word or "\0" in word:
        return None
    real_root = Path(os.path.realpath(root))
    if "/" in word:
        # the name as typed, not where it leads: a link the model made to a committed file
        # still carries the model's name, so the typed path itself must be committed
        typed = os.path.expanduser(word)
        rel: str | None = "/".join(p for p in typed.split("/") if p not in ("", "."))
        if os.path.isabs(typed):
            rel = _inside(os.path.normpath(typed), real_root) or \
                _inside(os.path.normpath(typed), Path(os.path.abspath(root)))
        if rel and _project_file(rel, real_root, baseline, sandbox):
            return os.path.basename(rel)
        return None
    search = os.pathsep.join(d for d in (env or os.environ).get("PATH", "").split(os.pathsep)
                             if os.path.isabs(d))      # "." or "bin" would be the project's
    found = shutil.which(word, path=search)
    if found is None:
        return None
    folder = os.path.realpath(os.path.dirname(found))
    rel = _inside(os.path.join(folder, word), real_root)
    if rel is not None:                                 # a PATH entry inside the project
        return word if _project_file(rel, real_root, baseline, sandbox) else None
    if made_since(found, baseline):
        return None                                     # made (or linked) during the session
    policy = _policy(real_root, sandbox)
    if policy.confined and policy.is_writable(folder):
        return None                                     # where the model's commands may write
    return word


def _policy(root: Path, sandbox: Sandbox | None) -> Policy:
    if sandbox is not None:
        return sandbox.policy
    from edgar.sandbox import Policy

    return Policy.for_project(root)
