"""The message of a commit edgar makes: written from the change, marked as edgar's (pure).

Guarantees:
- ``subject`` is one line of at most ``SUBJECT_MAX`` characters, no control characters, never
  empty: the first line of what the person typed (whitespace collapsed), else
  ``edgar: change N files``.
- ``compose`` puts a subject (the model's or the summary's), the changed files and edgar's
  trailers together; ``trailers`` reads those trailers back from any message, so
  ``compose``'s output always parses back to the session and turn it was given.
- Everything here is text from the person or the model: the caller passes it through the
  redactor before it reaches the repository (a commit message is durable text, invariant 6).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

SUBJECT_MAX = 72
FILES_MAX = 20
SESSION_KEY = "Edgar-Session"
TURN_KEY = "Edgar-Turn"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_ID = re.compile(r"[^A-Za-z0-9_.-]")

# what each change letter of git status means in the file list
VERBS = {"A": "add", "M": "change", "D": "delete"}


def one_line(text: str) -> str:
    """``text``'s first non-blank line, control characters out, whitespace collapsed."""
    for line in text.splitlines():
        clean = " ".join(_CONTROL.sub(" ", line).split())
        if clean:
            return clean
    return ""


def clip(line: str, limit: int = SUBJECT_MAX) -> str:
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"


def subject(prompt: str, changes: Mapping[str, str]) -> str:
    """The summary subject: the prompt's first line, or what happened to how many files."""
    line = one_line(prompt)
    # a slash command or a shortcut says nothing about the change
    if line and not line.startswith(("/", "!", "# ")) and line != "#":
        return clip(line)
    verbs = sorted({VERBS.get(code, "change") for code in changes.values()}) or ["change"]
    count = len(changes)
    return clip(f"edgar: {' and '.join(verbs)} {count} file{'s' * (count != 1)}")


def compose(title: str, changes: Mapping[str, str], *, session: str, turn: str,
            model: str | None = None, body: str = "") -> str:
    """The whole message: subject, body, the files (``A``/``M``/``D`` path), trailers."""
    head = clip(one_line(title)) or subject("", changes)
    parts = [head]
    text = "\n".join(_CONTROL.sub(" ", line).rstrip() for line in body.strip().splitlines())
    if text.strip():
        parts.append(text.strip())
    names = sorted(changes)
    listed = [f"{changes[n]} {_CONTROL.sub('?', n)}" for n in names[:FILES_MAX]]
    if len(names) > FILES_MAX:
        listed.append(f"… and {len(names) - FILES_MAX} more")
    if listed:
        parts.append("\n".join(listed))
    tail = [f"{SESSION_KEY}: {clean_id(session)}", f"{TURN_KEY}: {clean_id(turn)}"]
    if model:
        tail.append(f"Edgar-Model: {clean_id(model.replace(':', '.'))}")
    parts.append("\n".join(tail))
    return "\n\n".join(parts) + "\n"


def clean_id(text: str) -> str:
    """An id as a trailer carries it: letters, digits, ``_.-`` only, ``-`` when none is left."""
    return _ID.sub("", text) or "-"


def trailers(message: str) -> dict[str, str]:
    """edgar's trailers in ``message`` (the last paragraph only, as git reads trailers)."""
    last = message.rstrip("\n").rsplit("\n\n", 1)[-1]
    found: dict[str, str] = {}
    for line in last.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key.startswith("Edgar-"):
            found[key] = value.strip()
    return found


def file_list(paths: Iterable[str]) -> str:
    """``a.py, b.py`` (at most five, then how many more): for one line said to the person."""
    names = sorted(paths)
    shown = ", ".join(names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")
