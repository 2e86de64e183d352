"""The words of a shell command line, as edgar reads them to name what it runs.

What this module guarantees: a leaf (it imports nothing of edgar), total (never raises), and one
reading for everyone who asks — trust's scan of what config runs and the shape of a failed
command must agree on where a command's words are.
"""

from __future__ import annotations

import shlex


def shell_words(command: str) -> list[str]:
    """The words of a shell command (quotes removed, operators apart); a command that does
    not parse (an open quote) falls back to its whitespace-separated pieces."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return command.split()
