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
- Beside each JSON Schema, under ``"core"``, the pydantic core schema of the same arguments as
  JSON (``edgar.declared.core_schemas.portable``, ADR-0116): ``validator_of(args)`` is
  pydantic-core's validator built from it, so a warm start's first tool call validates with
  pydantic's engine and errors without importing pydantic. Written whenever pydantic is
  imported for these arguments anyway (a schema made, a cold validation); a class whose core
  schema is not plain JSON has none, and is validated by pydantic's model.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from edgar.declared import Model, results

A = TypeVar("A", bound=Model)

FILE = "tool-schemas.json"
_SCHEMA_MODULES = ("edgar.declared", "edgar.declared.pydantic_models", "edgar.declared.results",
                   "edgar.declared.core_schemas")

# this process's view, per user dir: (fingerprint, JSON Schemas, core schemas)
_loaded: dict[Path, tuple[str, dict[str, Any], dict[str, Any]]] = {}
_validators: dict[type, Callable[[Any], Model] | None] = {}


def fingerprint() -> str:
    return results.fingerprint([*sorted(str(p) for p in Path(__file__).parent.glob("*.py")),
                                *(results.module_file(name) for name in _SCHEMA_MODULES)])


def _file() -> tuple[Path, str, dict[str, Any], dict[str, Any]]:
    from edgar.paths import user_dir

    path = user_dir() / FILE
    if path not in _loaded:
        schema = fingerprint()
        body = results.read(path, schema) or {}
        known, core = body.get("tools"), body.get("core")
        _loaded[path] = (schema, known if isinstance(known, dict) else {},
                         core if isinstance(core, dict) else {})
    return (path, *_loaded[path])


def _key(args: type) -> str:
    return f"{args.__module__}.{args.__qualname__}"


def _keep_core(args: type[A], core: dict[str, Any]) -> bool:
    """Add ``args``' portable core schema (pydantic is imported by now); True when added."""
    from edgar.declared.core_schemas import portable

    if _key(args) in core:
        return False
    made = portable(args)
    if made is None:
        return False
    core[_key(args)] = made
    return True


def schema_of(args: type[A], make: Callable[[type[A]], dict[str, Any]]) -> dict[str, Any]:
    """``args``' schema from the file, else ``make(args)`` (pydantic), then kept in the file
    with its core schema."""
    path, schema, known, core = _file()
    key = _key(args)
    found = known.get(key)
    if isinstance(found, dict):
        return copy.deepcopy(found)
    made = make(args)
    known[key] = copy.deepcopy(made)
    _keep_core(args, core)
    results.write(path, schema, {"tools": known, "core": core})
    return made


def validator_of(args: type[A]) -> Callable[[Any], Model] | None:
    """pydantic-core's validator of ``args`` from the file's core schema, or None (validate
    with ``args.model_validate``: the cold start then keeps its core schema for the next)."""
    if args in _validators:
        return _validators[args]
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ("__all__", "1", "true"):
        return None    # the person's pydantic plugins see every validation: pydantic's model
    path, schema, known, core = _file()
    found = core.get(_key(args))
    made: Callable[[Any], Model] | None = None
    if isinstance(found, dict):
        from edgar.declared.core_schemas import validator

        try:
            made = validator(found)
        except Exception:  # noqa: BLE001  (a damaged entry: pydantic's model instead)
            made = None
    if made is None and _keep_core(args, core):
        results.write(path, schema, {"tools": known, "core": core})
    _validators[args] = made
    return made
