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
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FORMAT = 1


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
