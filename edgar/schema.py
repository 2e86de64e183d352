"""A small strict validator for dataclass schemas, and the JSON Schema they describe.

Guarantees:
- ``validate(tp, value)`` turns JSON-like data into a value of ``tp`` (a dataclass instance, for
  a dataclass) or raises ``SchemaError`` listing every problem as ``(loc, msg, input)``, where
  ``loc`` is the path of keys and list indexes from the top, in the order the input has them.
- Nothing is coerced: a string is never a number, ``bool`` is not an ``int``. The one widening
  is an ``int`` for a ``float`` (JSON and TOML write 5 for 5.0); it becomes a float.
- A key that is not a field is an error (``UNKNOWN_KEY``); an absent field without a default is
  an error (``MISSING``). Defaults and default factories are the dataclass's own.
- Types: str, int, float, bool, None, Any, Literal[...], list[T], dict[str, T], unions
  (``X | None`` and others) and nested dataclasses. ``field(metadata=…)`` carries ``ge``,
  ``gt``, ``le``, ``lt`` (checked on numbers) and ``description`` (for the JSON Schema).
- ``json_schema(cls)`` is the schema a model sees: closed objects (``additionalProperties``
  false), ``required``, descriptions, scalar defaults, ``enum`` for Literal, ``anyOf`` for
  unions (bounds go on the numeric branch). It is cached and shared: do not mutate it.
- Type hints are resolved once per class; an unsupported type is a ``TypeError`` at first use.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
import typing
from typing import Any, Callable, Literal, Union

__all__ = ["SchemaError", "validate", "json_schema", "UNKNOWN_KEY", "MISSING"]

UNKNOWN_KEY = "unknown key"
MISSING = "field required"

Loc = tuple  # of str (object keys) and int (list indexes)
_Check = Callable[[Any, Loc, list], Any]
_BAD = object()  # what a check returns after appending errors; never escapes this module

# scalar type -> (what an error says it expected, its JSON Schema type)
_SCALARS: dict[Any, tuple[str, str]] = {
    str: ("a string", "string"), int: ("an integer", "integer"), float: ("a number", "number"),
    bool: ("true or false", "boolean"), type(None): ("null", "null")}
_BOUNDS = (("ge", operator.ge, ">=", "minimum"), ("gt", operator.gt, ">", "exclusiveMinimum"),
           ("le", operator.le, "<=", "maximum"), ("lt", operator.lt, "<", "exclusiveMaximum"))


class SchemaError(ValueError):
    """Every problem found in one value; ``errors`` is a list of ``(loc, msg, input)``."""

    def __init__(self, errors: list[tuple[Loc, str, Any]]):
        self.errors = errors
        super().__init__("; ".join(f"{'.'.join(map(str, loc)) or '(value)'}: {msg}"
                                   for loc, msg, _ in errors))


def validate(tp: Any, value: Any) -> Any:
    """``value`` checked against ``tp`` and built; ``SchemaError`` if anything is wrong."""
    errors: list = []
    result = _checker(tp)(value, (), errors)
    if errors:
        raise SchemaError(errors)
    return result


@functools.cache
def _checker(tp: Any) -> _Check:
    # One closure per type, built once: validation then costs a call per value, no lookups.
    if tp is Any or tp is object:
        return lambda value, loc, errors: value
    if tp in _SCALARS:
        return _scalar(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return _literal(args)
    if origin is Union or origin is types.UnionType:
        return _union(args)
    if tp is list or origin is list:
        return _list(_checker(args[0] if args else Any))
    if tp is dict or origin is dict:
        if args and args[0] is not str:
            raise TypeError(f"edgar.schema: object keys are strings, not {args[0]!r}")
        return _dict(_checker(args[1] if args else Any))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _object(tp)
    raise TypeError(f"edgar.schema cannot check {tp!r}")


def _scalar(tp: type) -> _Check:
    def check(value: Any, loc: Loc, errors: list) -> Any:
        if isinstance(value, bool):  # bool is an int subclass; only a bool field takes one
            if tp is bool:
                return value
        elif tp is float and isinstance(value, int):
            try:
                return float(value)
            except OverflowError:
                pass
        elif isinstance(value, tp):
            return value
        errors.append((loc, f"expected {_SCALARS[tp][0]}", value))
        return _BAD
    return check


def _literal(options: tuple) -> _Check:
    message = "expected one of " + ", ".join(map(repr, options))

    def check(value: Any, loc: Loc, errors: list) -> Any:
        for option in options:  # the type too: 1 == True, but True is not Literal[1]
            if value == option and type(value) is type(option):
                return option
        errors.append((loc, message, value))
        return _BAD
    return check


def _union(alternatives: tuple) -> _Check:
    checks = [_checker(a) for a in alternatives]
    message = "expected " + " or ".join(_expects(one) for one in checks)

    def check(value: Any, loc: Loc, errors: list) -> Any:
        deep = []
        for one in checks:
            trial: list = []
            result = one(value, loc, trial)
            if not trial:
                return result
            if all(len(where) > len(loc) for where, _, _ in trial):
                deep.append(trial)  # the shape fitted; something inside it did not
        if len(deep) == 1:  # say what is wrong inside, not that the whole is the wrong kind
            errors.extend(deep[0])
        else:
            errors.append((loc, message, value))
        return _BAD
    return check


def _expects(check: _Check) -> str:
    """What a check wants, in words: its complaint about a value nothing else would send."""
    errors: list = []
    check(object(), (), errors)
    return errors[0][1].removeprefix("expected ") if errors else "anything"


def _list(item: _Check) -> _Check:
    def check(value: Any, loc: Loc, errors: list) -> Any:
        if not isinstance(value, list):
            errors.append((loc, "expected a list", value))
            return _BAD
        before = len(errors)
        out = [item(v, (*loc, i), errors) for i, v in enumerate(value)]
        return out if len(errors) == before else _BAD
    return check


def _dict(item: _Check) -> _Check:
    def check(value: Any, loc: Loc, errors: list) -> Any:
        if not isinstance(value, dict):
            errors.append((loc, "expected an object", value))
            return _BAD
        before = len(errors)
        out = {}
        for key, v in value.items():
            if not isinstance(key, str):
                errors.append(((*loc, key), "expected a string key", key))
                continue
            out[key] = item(v, (*loc, key), errors)
        return out if len(errors) == before else _BAD
    return check


@functools.cache
def _fields(cls: type) -> dict[str, tuple[_Check, tuple, bool]]:
    """name -> (check, bounds, required) for every init field; hints resolved here, once."""
    hints = typing.get_type_hints(cls)
    table = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        bounds = tuple((op, f.metadata[key], sign) for key, op, sign, _ in _BOUNDS
                       if key in f.metadata)
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        table[f.name] = (_checker(hints[f.name]), bounds, required)
    return table


def _object(cls: type) -> _Check:
    def check(value: Any, loc: Loc, errors: list) -> Any:
        if isinstance(value, cls):  # already built, e.g. by code rather than from JSON
            return value
        if not isinstance(value, dict):
            errors.append((loc, "expected an object", value))
            return _BAD
        table = _fields(cls)  # looked up per call, so a class may refer to itself
        before = len(errors)
        kwargs = {}
        for key, item in value.items():
            entry = table.get(key)
            if entry is None:
                errors.append(((*loc, key), UNKNOWN_KEY, item))
                continue
            one, bounds, _ = entry
            result = one(item, (*loc, key), errors)
            if result is not _BAD and bounds and not isinstance(result, bool) \
                    and isinstance(result, (int, float)):
                for op, bound, sign in bounds:
                    if not op(result, bound):  # NaN fails every bound, as it should
                        errors.append(((*loc, key), f"must be {sign} {bound}", item))
                        break
            kwargs[key] = result
        for name, (_, _, required) in table.items():
            if required and name not in value:
                errors.append(((*loc, name), MISSING, None))
        return cls(**kwargs) if len(errors) == before else _BAD
    return check


@functools.cache
def json_schema(cls: type) -> dict[str, Any]:
    """The JSON Schema for a dataclass's JSON form: what a model is told to send."""
    hints = typing.get_type_hints(cls)
    properties: dict[str, Any] = {}
    required = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        prop = _schema_of(hints[f.name])
        bounds = {word: f.metadata[key] for key, _, _, word in _BOUNDS if key in f.metadata}
        if bounds:
            branches = prop.get("anyOf", [prop])
            numeric = [b for b in branches if b.get("type") in ("integer", "number")]
            (numeric or [prop])[0].update(bounds)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
        elif f.default is None or isinstance(f.default, (bool, int, float, str)):
            prop["default"] = f.default
        if "description" in f.metadata:
            prop["description"] = f.metadata["description"]
        properties[f.name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _schema_of(tp: Any) -> dict[str, Any]:
    if tp in _SCALARS:
        return {"type": _SCALARS[tp][1]}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        kinds = {type(a) for a in args}
        kind = kinds.pop() if len(kinds) == 1 else None
        return {"enum": list(args), **({"type": _SCALARS[kind][1]} if kind in _SCALARS else {})}
    if origin is Union or origin is types.UnionType:
        return {"anyOf": [_schema_of(a) for a in args]}
    if tp is list or origin is list:
        return {"type": "array", **({"items": _schema_of(args[0])} if args else {})}
    if tp is dict or origin is dict:
        inner = _schema_of(args[1]) if args else {}
        return {"type": "object", **({"additionalProperties": inner} if inner else {})}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return dict(json_schema(tp))  # inline: tool arguments are shallow, no $ref needed
    if tp is Any or tp is object:
        return {}
    raise TypeError(f"edgar.schema cannot describe {tp!r}")
