"""Did-you-mean for edgar's commands and options, and ``edgar help [COMMAND]``.

Guarantees: a suggestion is only made for a close match (``difflib``, cutoff ``CUTOFF``);
a word that matches nothing is left alone (it may be a prompt: ``edgar "explain"``).
``SuggestingParser`` is an ``argparse.ArgumentParser`` whose "unrecognized arguments" and
"invalid choice" errors name the closest option or choice.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable
from typing import NoReturn

CUTOFF = 0.75
_WORD = re.compile(r"^[a-z][a-z-]{1,20}$")


def closest(word: str, choices: Iterable[str]) -> str | None:
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=CUTOFF)
    return found[0] if found else None


def mistyped_command(argv: list[str], commands: Iterable[str]) -> str | None:
    """The message for ``edgar memroy list``, or None when argv[0] is not a near-miss."""
    if not argv or not _WORD.match(argv[0]):
        return None
    guess = closest(argv[0], commands)
    if guess is None:
        return None
    return f"unknown command {argv[0]!r} — did you mean `edgar {guess}`? (edgar help lists them)"


class SuggestingParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        options = [s for a in self._actions for s in a.option_strings]
        extra = ""
        unknown = re.search(r"unrecognized arguments: (\S+)", message)
        if unknown:
            guess = closest(unknown.group(1).split("=")[0], options)
            extra = f" — did you mean {guess}?" if guess else ""
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            guess = closest(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
            extra = f" — did you mean {guess!r}?" if guess else ""
        self.exit(2, f"{self.prog}: error: {message}{extra}\n")


def described(doc: str | None) -> str:
    """A module docstring's first line as help text: ``edgar demo``: … → edgar demo: …"""
    first = (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""
    return first.replace("``", "")
