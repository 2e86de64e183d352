"""A file of what pydantic worked out before, valid while the schema it was worked out from is
unchanged: the settings cache and the tool-schema cache are two (ADR-0081).

Guarantees:
- ``fingerprint(paths)`` changes when edgar's version changes or any of ``paths`` (the
  sources of the schema) or pydantic's or pydantic_core's ``__init__.py`` changes size or
  mtime or goes missing (a pip upgrade rewrites them). It imports neither.
- ``read`` returns the body only of a file of this ``FORMAT`` with this fingerprint; any other
  file (missing, truncated, not JSON, another edgar) is None, never an error.
- ``write`` writes the file whole (temporary file, rename), 0600; it never creates the
  directory, and a write that fails is skipped.
- ``digest`` is SHA-256 of JSON in the data's own order, None for what JSON cannot say
  exactly; ``encode``/``decode`` carry declared models through JSON (set fields, extras).
- ``Memo.validated(cls, data)`` is ``cls.model_validate(data)``, read from the file when the
  very same data was validated under the very same fingerprint; a failure is never kept.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from edgar.declared import Model, declared_class

FORMAT = 1
M = TypeVar("M", bound=Model)


def module_file(name: str) -> str:
    """The source file of module ``name`` (imported or not), or a placeholder naming it."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None) or f"<no file for {name}>"
    spec = importlib.util.find_spec(name)
    return (spec.origin if spec is not None else None) or f"<no {name}>"


def fingerprint(paths: Iterable[str]) -> str:
    from edgar import __version__

    parts = [__version__]
    for path in [*paths, module_file("pydantic"), module_file("pydantic_core")]:
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append(f"{path}:missing")
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def read(path: Path, schema: str) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and data.get("format") == FORMAT and data.get("schema") == schema:
        return data
    return None


def write(path: Path, schema: str, body: dict[str, Any]) -> bool:
    """True when written."""
    if not path.parent.is_dir():   # the user dir is made by what needs it, not here
        return False
    text = json.dumps({"format": FORMAT, "schema": schema, **body}, ensure_ascii=False,
                      allow_nan=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True


def digest(data: Any) -> str | None:
    """SHA-256 of ``data`` as JSON in its own order; None when JSON cannot hold it exactly."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError):
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def encode(value: Any) -> Any:
    """A validated value as JSON: a model is ``["model", "module.Class", {set fields},
    {extra}]``, a list ``["list", [...]]``; every JSON object is a dict of the value."""
    if isinstance(value, Model):
        cls = type(value)
        return ["model", f"{cls.__module__}.{cls.__qualname__}",
                {name: encode(value.__dict__[name]) for name in cls.model_fields
                 if name in value.model_fields_set},
                {k: encode(v) for k, v in (value.model_extra or {}).items()}]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return ["list", [encode(v) for v in value]]
    return value


class CacheFormatError(ValueError):
    """The file is not this format: ignored, rebuilt."""


def decode(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: decode(v) for k, v in node.items()}
    if isinstance(node, list):
        if len(node) == 2 and node[0] == "list" and isinstance(node[1], list):
            return [decode(v) for v in node[1]]
        if (len(node) == 4 and node[0] == "model" and isinstance(node[1], str)
                and isinstance(node[2], dict) and isinstance(node[3], dict)):
            cls = declared_class(node[1])
            if cls is None or not set(node[2]) <= set(cls.model_fields):
                raise CacheFormatError(f"unknown model {node[1]}")
            return cls.trusted({k: decode(v) for k, v in node[2].items()},
                               {k: decode(v) for k, v in node[3].items()})
        raise CacheFormatError("a list that is neither a model nor a list")
    return node


class Memo:
    """``model_validate`` results kept in one file (the newest ``keep``)."""

    def __init__(self, path: Path, schema: str, entries: dict[str, Any], keep: int = 256):
        self.path, self.schema, self.entries, self.keep = path, schema, entries, keep
        self.changed = False

    @classmethod
    def open(cls, path: Path, sources: Iterable[str], keep: int = 256) -> Memo:
        schema = fingerprint(sources)
        body = read(path, schema)
        entries = body.get("entries") if body is not None else None
        return cls(path, schema, entries if isinstance(entries, dict) else {}, keep)

    def validated(self, cls: type[M], data: Any) -> M:
        key = digest([f"{cls.__module__}.{cls.__qualname__}", data])
        if key is not None and key in self.entries:
            try:
                made = decode(self.entries[key])
            except (CacheFormatError, TypeError, ValueError):
                made = None
            if isinstance(made, cls):
                return made
        made = cls.model_validate(data)      # pydantic's ValidationError propagates
        if key is not None:
            self.entries.pop(key, None)
            self.entries[key] = encode(made)
            self.entries = dict(list(self.entries.items())[-self.keep:])
            self.changed = True
        return made

    def save(self) -> None:
        if self.changed and write(self.path, self.schema, {"entries": self.entries}):
            self.changed = False
