"""A checkpoint turn's ``manifest.json``, checked before undo or diff believes it (issue 21
item 10).

Guarantees:
- ``problem(data)`` is None exactly when ``data`` (parsed JSON) has the shape
  ``core/checkpoints.py`` writes: an object with ``session`` and ``turn`` (text), ``created``
  (a number), ``files`` (objects with a text ``path``, a boolean ``existed``, a ``blob`` that
  is a run of digits whenever the file existed and was copied, ``mode`` an integer or null,
  ``before``/``after`` text or null, ``too_big`` an integer when present) and ``shell``
  (objects with a text ``path``, ``untracked`` a boolean and ``after`` text or null when
  present). Otherwise it is one short phrase saying what is wrong and where
  (``files[2].existed is not true or false``). Pure.
- ``read(path)`` is (manifest, None), (None, None) when the file is absent, or (None, why)
  when it cannot be believed: not a file, unreadable, not UTF-8, not JSON, or ``problem``.
  Whether a path in it may be written is not decided here (that is the undo's ``_checked``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

NAME = "manifest.json"


def _text_or_null(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _file_entry(entry: Any, where: str) -> str | None:
    if not isinstance(entry, dict):
        return f"{where} is not an object"
    if not isinstance(entry.get("path"), str):
        return f"{where}.path is not text"
    if not isinstance(entry.get("existed"), bool):
        return f"{where}.existed is not true or false"
    too_big = entry.get("too_big")
    if too_big is not None and (not isinstance(too_big, int) or isinstance(too_big, bool)):
        return f"{where}.too_big is not a number"
    blob = entry.get("blob")
    if entry["existed"] and too_big is None:
        if not (isinstance(blob, str) and blob.isascii() and blob.isdigit()):
            return f"{where}.blob does not name a copy"
    elif blob is not None and not (isinstance(blob, str) and blob.isascii() and blob.isdigit()):
        return f"{where}.blob does not name a copy"
    mode = entry.get("mode")
    if mode is not None and (not isinstance(mode, int) or isinstance(mode, bool)):
        return f"{where}.mode is not a number"
    for key in ("before", "after"):
        if not _text_or_null(entry.get(key)):
            return f"{where}.{key} is not text"
    return None


def _shell_entry(entry: Any, where: str) -> str | None:
    if not isinstance(entry, dict):
        return f"{where} is not an object"
    if not isinstance(entry.get("path"), str):
        return f"{where}.path is not text"
    if "untracked" in entry and not isinstance(entry["untracked"], bool):
        return f"{where}.untracked is not true or false"
    if not _text_or_null(entry.get("after")):
        return f"{where}.after is not text"
    return None


def problem(data: Any) -> str | None:
    """What makes ``data`` not a manifest edgar wrote, or None."""
    if not isinstance(data, dict):
        return "is not an object"
    for key in ("session", "turn"):
        if not isinstance(data.get(key), str):
            return f"has no text {key}"
    if not _number(data.get("created")):
        return "has no created time"
    for key, check in (("files", _file_entry), ("shell", _shell_entry)):
        entries = data.get(key)
        if not isinstance(entries, list):
            return f"has no {key} list"
        for i, entry in enumerate(entries):
            why = check(entry, f"{key}[{i}]")
            if why is not None:
                return why
    return None


def read(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(manifest, None); (None, None) when absent; (None, why) when it cannot be believed."""
    if not os.path.lexists(path):
        return None, None
    if path.is_symlink() or not path.is_file():
        return None, "is not a file"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "is not UTF-8 text"
    except ValueError as exc:
        return None, f"is not JSON ({exc})"
    why = problem(data)
    return (None, why) if why is not None else (data, None)
