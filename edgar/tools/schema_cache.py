"""The tool-schema cache: the JSON Schemas pydantic made of the tools' arguments, kept in
``<user dir>/tool-schemas.json`` so the first request of a warm start imports no pydantic
(ADR-0081).

Guarantees:
- A schema is read from the file only under the same fingerprint (edgar's version, the size
  and mtime of every ``edgar/tools/*.py``, of edgar.declared and of pydantic's entry
  points): a changed argument class is a changed file, so pydantic makes its schema again.
- Keyed by the class's ``module.QualName``; anything else in the file (not this format, not a
  JSON object per class) is ignored and rewritten. The file is written as the settings cache
  is (``edgar.declared.results``: whole, renamed, 0600, never creating the user dir).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from edgar.declared import Model, results

A = TypeVar("A", bound=Model)

FILE = "tool-schemas.json"
_SCHEMA_MODULES = ("edgar.declared", "edgar.declared.pydantic_models", "edgar.declared.results")

_loaded: dict[Path, tuple[str, dict[str, Any]]] = {}   # this process's view, per user dir


def fingerprint() -> str:
    return results.fingerprint([*sorted(str(p) for p in Path(__file__).parent.glob("*.py")),
                                *(results.module_file(name) for name in _SCHEMA_MODULES)])


def schema_of(args: type[A], make: Callable[[type[A]], dict[str, Any]]) -> dict[str, Any]:
    """``args``' schema from the file, else ``make(args)`` (pydantic), then kept in the file."""
    from edgar.paths import user_dir

    path = user_dir() / FILE
    if path not in _loaded:
        schema = fingerprint()
        body = results.read(path, schema)
        known = body.get("tools") if body is not None else None
        _loaded[path] = (schema, known if isinstance(known, dict) else {})
    schema, known = _loaded[path]
    key = f"{args.__module__}.{args.__qualname__}"
    found = known.get(key)
    if isinstance(found, dict):
        return copy.deepcopy(found)
    made = make(args)
    known[key] = copy.deepcopy(made)
    results.write(path, schema, {"tools": known})
    return made
