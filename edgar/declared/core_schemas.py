"""A declared model's pydantic core schema as JSON, and pydantic-core's validator built from it:
validation by pydantic's own engine without importing pydantic (issue 26 item 1, ADR-0116).

Guarantees:
- ``portable(cls)`` is the core schema pydantic builds for ``cls`` (``model_of(cls)``, imports
  pydantic) with every model class named (``"module.QualName"``) and pydantic's JSON-Schema
  metadata left out; None when anything in it is not plain JSON — a function validator, an
  enum, a default factory, a tuple, a ``mode="after"`` validator on any model in it, a custom
  ``__init__`` or a computed field —: such a model is validated by pydantic as before.
- ``validator(schema)`` is ``pydantic_core.SchemaValidator`` of that schema (loading
  pydantic-core's compiled engine, ``engine()``, not pydantic), with each named class
  replaced by a stand-in of the same name
  (pydantic-core needs a class to fill): what it returns is made of declared models again
  (``trusted``, with pydantic's fields set and extras). It raises pydantic's own
  ``ValidationError`` (pydantic re-exports pydantic-core's), with the same errors — types,
  locations, messages — as ``cls.model_validate``, since the engine and the schema are the
  same. A schema naming a class edgar no longer has raises ``CacheFormatError``.
- ``engine()`` is the module ``pydantic_core._pydantic_core``, the one pydantic and
  pydantic-core use (``sys.modules``): when neither is imported yet it is loaded alone from
  pydantic-core's own directory, without running ``pydantic_core/__init__.py`` (its
  ``core_schema`` of TypedDicts and ``typing_extensions`` cost ~10 ms a start and only
  describe schemas); a later ``import pydantic`` finds and uses this very module, so
  ``ValidationError`` is one class. Anything unexpected: the ordinary import.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from edgar.declared import Model, declared_class
from edgar.declared.results import CacheFormatError

__all__ = ["portable", "validator"]

_PLAIN = (str, int, float, bool, type(None))


class _NotPortable(Exception):
    pass


def _unsupported(key: str, value: Any) -> bool:
    """A schema entry JSON cannot carry, or whose behaviour a stand-in class would lose."""
    if key == "type":
        return isinstance(value, str) and value.startswith("function")
    return key == "post_init" or (key in ("custom_init", "computed_fields") and bool(value))


def portable(cls: type[Model]) -> dict[str, Any] | None:
    """``cls``'s core schema as plain JSON, or None (see the module's guarantees)."""
    from edgar.declared.pydantic_models import declared_of, model_of

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out: dict[str, Any] = {}
            for key, value in node.items():
                if key in ("metadata", "serialization"):
                    continue   # JSON Schema and dumping: not validation
                if key == "cls":
                    made = declared_of(value)
                    if made is None or made.model_validators:
                        raise _NotPortable
                    out[key] = f"{made.__module__}.{made.__qualname__}"
                elif _unsupported(key, value):
                    raise _NotPortable
                else:
                    out[key] = walk(value)
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, _PLAIN):
            return node
        raise _NotPortable   # a tuple, a set, a callable, a class that is not a model

    try:
        made = walk(model_of(cls).__pydantic_core_schema__)
        if json.loads(json.dumps(made, allow_nan=True)) != made:
            return None
    except (_NotPortable, TypeError, ValueError):
        return None
    assert isinstance(made, dict)
    return made


_ENGINE = "pydantic_core._pydantic_core"


def engine() -> ModuleType:
    """pydantic-core's compiled module (see the module's guarantees)."""
    found = sys.modules.get(_ENGINE)
    if found is not None:
        return found
    if "pydantic_core" not in sys.modules:
        loaded = _load_alone()
        if loaded is not None:
            return loaded
    import pydantic_core._pydantic_core as ordinary

    return ordinary


def _load_alone() -> ModuleType | None:
    try:
        spec = importlib.util.find_spec("pydantic_core")
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "_pydantic_core" + suffix)
                if os.path.isfile(path):
                    loader = importlib.machinery.ExtensionFileLoader(_ENGINE, path)
                    made = importlib.util.module_from_spec(
                        importlib.util.spec_from_loader(_ENGINE, loader, origin=path)
                        or _no_spec())
                    sys.modules[_ENGINE] = made
                    try:
                        loader.exec_module(made)
                    except BaseException:
                        del sys.modules[_ENGINE]
                        raise
                    return made
    except (ImportError, OSError, ValueError):
        return None
    return None


def _no_spec() -> Any:
    raise ImportError("no spec for pydantic-core's engine")


def validator(schema: dict[str, Any]) -> Callable[[Any], Model]:
    """A function validating data against ``schema`` (from ``portable``) into declared models."""
    SchemaValidator = engine().SchemaValidator  # noqa: N806  (the class, by its name)

    stand_ins: dict[type, type[Model]] = {}

    def rebuild(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "cls":
                    cls = declared_class(value) if isinstance(value, str) else None
                    if cls is None:
                        raise CacheFormatError(f"unknown model {value!r}")
                    stand = type(cls.__name__, (), {"__module__": cls.__module__,
                                                    "__qualname__": cls.__qualname__})
                    stand_ins[stand] = cls
                    out[key] = stand
                else:
                    out[key] = rebuild(value)
            return out
        if isinstance(node, list):
            return [rebuild(v) for v in node]
        return node

    core = rebuild(schema)
    checker = SchemaValidator(core, core.get("config"))

    def declared(value: Any) -> Any:
        cls = stand_ins.get(type(value))
        if cls is not None:
            own = value.__dict__
            return cls.trusted({name: declared(own[name]) for name in cls.model_fields
                                if name in own},
                               {k: declared(v) for k, v in (own.get("__pydantic_extra__")
                                                            or {}).items()},
                               frozenset(own.get("__pydantic_fields_set__") or ()))
        if isinstance(value, dict):
            return {k: declared(v) for k, v in value.items()}
        if isinstance(value, list):
            return [declared(v) for v in value]
        return value

    def validate(data: Any) -> Model:
        made = declared(checker.validate_python(data))
        assert isinstance(made, Model)
        return made

    return validate
