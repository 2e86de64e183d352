"""edgar.schema over generated data: valid values round-trip, and any one wrong-typed value or
unknown key anywhere is rejected with exactly that location. The JSON Schema agrees."""

from __future__ import annotations

import copy
import dataclasses
import os
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from hypothesis import given, settings, strategies as st

from edgar.providers.scripted import ScriptLine
from edgar.schema import UNKNOWN_KEY, SchemaError, json_schema, validate
from edgar.tools.files import EditArgs, ReadArgs
from edgar.tools.shell import ShellArgs

EXAMPLES = int(os.environ.get("EDGAR_PROPERTY_EXAMPLES", 200))


@dataclass
class Leaf:
    word: str
    weight: float = field(default=1.0, metadata={"ge": 0})
    hits: int | None = field(default=None, metadata={"gt": -5, "lt": 100})
    on: bool = False


@dataclass(frozen=True, slots=True)
class Tree:
    name: str
    mode: Literal["x", "y", "z"] = "x"
    leaves: list[Leaf] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    best: Leaf | None = None
    payload: dict[str, Any] | str = field(default_factory=dict)
    notes: list[str | None] = field(default_factory=list)


# Tree has every kind of type, unions with objects inside included: drawn most often.
SCHEMAS = [Tree, Tree, Tree, ScriptLine, ReadArgs, EditArgs, ShellArgs]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)
any_kind = st.one_of(st.text(max_size=5), st.integers(), st.floats(allow_nan=False), st.booleans(),
                     st.none(), st.lists(st.integers(), max_size=2),
                     st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))

_OPS = {"ge": lambda a, b: a >= b, "gt": lambda a, b: a > b,
        "le": lambda a, b: a <= b, "lt": lambda a, b: a < b}


def _in_bounds(meta, value) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True
    return all(_OPS[k](value, meta[k]) for k in _OPS if k in meta)


def valid(tp) -> st.SearchStrategy:
    """JSON-like values that ``tp`` accepts, built from the type alone."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return json_values
    simple = {str: st.text(max_size=8), int: st.integers(), bool: st.booleans(),
              float: st.floats(allow_nan=False) | st.integers(), type(None): st.none()}
    if tp in simple:
        return simple[tp]
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (Union, type(int | None)):
        return st.one_of([valid(a) for a in args])
    if origin is list:
        return st.lists(valid(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(st.text(max_size=5), valid(args[1]), max_size=3)
    hints = typing.get_type_hints(tp)
    required, optional = {}, {}
    for f in dataclasses.fields(tp):
        one = valid(hints[f.name]).filter(lambda v, m=f.metadata: _in_bounds(m, v))
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        (required if no_default else optional)[f.name] = one
    return st.fixed_dictionaries(required, optional=optional)


def takes_kind(tp, x) -> bool:
    """Oracle: could a value of x's JSON kind be a ``tp``? (Contents aside.)"""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return True
    if origin is Literal:
        return any(x == a and type(x) is type(a) for a in args)
    if origin in (Union, type(int | None)):
        return any(takes_kind(a, x) for a in args)
    if tp is str:
        return isinstance(x, str)
    if tp is int:
        return type(x) is int
    if tp is float:
        return type(x) in (int, float)
    if tp is bool:
        return type(x) is bool
    if tp is type(None):
        return x is None
    if origin is list:
        return isinstance(x, list)
    return isinstance(x, dict)  # dict[str, T] and dataclasses


def sites(tp, value, loc=()):
    """(loc, type) of every position in a valid value, the root included."""
    yield loc, tp
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, type(int | None)):
        alt = next(a for a in args if takes_kind(a, value))
        yield from list(sites(alt, value, loc))[1:]
    elif origin is list:
        for i, item in enumerate(value):
            yield from sites(args[0], item, (*loc, i))
    elif origin is dict:
        for key, item in value.items():
            yield from sites(args[1], item, (*loc, key))
    elif dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        for key, item in value.items():
            yield from sites(hints[key], item, (*loc, key))


def replaced(value, loc, new):
    if not loc:
        return new
    out = copy.deepcopy(value)
    holder = out
    for part in loc[:-1]:
        holder = holder[part]
    holder[loc[-1]] = new
    return out


def to_json(value):
    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value


def covers(out, given_) -> bool:
    """Everything given is in out, unchanged (out may add defaults the input left out)."""
    if isinstance(given_, dict):
        return isinstance(out, dict) and all(k in out and covers(out[k], v) for k, v in given_.items())
    if isinstance(given_, list):
        return isinstance(out, list) and len(out) == len(given_) and all(map(covers, out, given_))
    return out == given_ and isinstance(out, bool) == isinstance(given_, bool)


def schema_accepts(schema, x) -> bool:
    """A small JSON Schema checker for the keywords json_schema emits."""
    if "anyOf" in schema:
        return any(schema_accepts(s, x) for s in schema["anyOf"])
    if "enum" in schema and not any(x == e and type(x) is type(e) for e in schema["enum"]):
        return False
    kind = schema.get("type")
    checks = {"string": lambda: isinstance(x, str), "boolean": lambda: isinstance(x, bool),
              "integer": lambda: type(x) is int, "number": lambda: type(x) in (int, float),
              "null": lambda: x is None, "array": lambda: isinstance(x, list),
              "object": lambda: isinstance(x, dict)}
    if kind and not checks[kind]():
        return False
    if kind in ("integer", "number"):
        bounds = {"minimum": "ge", "exclusiveMinimum": "gt", "maximum": "le", "exclusiveMaximum": "lt"}
        if not _in_bounds({bounds[k]: v for k, v in schema.items() if k in bounds}, x):
            return False
    if kind == "array" and "items" in schema:
        return all(schema_accepts(schema["items"], i) for i in x)
    if kind == "object":
        props = schema.get("properties", {})
        if any(k not in x for k in schema.get("required", [])):
            return False
        for k, v in x.items():
            sub = props.get(k, schema.get("additionalProperties", True))
            if sub is False or (isinstance(sub, dict) and not schema_accepts(sub, v)):
                return False
    return True


@st.composite
def schema_and_value(draw):
    cls = draw(st.sampled_from(SCHEMAS))
    return cls, draw(valid(cls))


@settings(max_examples=EXAMPLES)
@given(schema_and_value())
def test_valid_values_round_trip(case):
    cls, value = case
    built = validate(cls, value)
    assert isinstance(built, cls)
    assert covers(to_json(built), value)
    assert validate(cls, to_json(built)) == built
    assert schema_accepts(json_schema(cls), value)


@settings(max_examples=EXAMPLES)
@given(schema_and_value(), st.data())
def test_one_wrong_typed_value_is_rejected_at_its_location(case, data):
    cls, value = case
    candidates = [(loc, tp) for loc, tp in sites(cls, value) if tp is not Any]
    deepest = [c for c in candidates if len(c[0]) == max(len(loc) for loc, _ in candidates)]
    loc, tp = data.draw(st.sampled_from(candidates) | st.sampled_from(deepest))
    wrong = data.draw(any_kind.filter(lambda x: not takes_kind(tp, x)))
    bad = replaced(value, loc, wrong)
    try:
        validate(cls, bad)
    except SchemaError as exc:
        assert [where for where, _, _ in exc.errors] == [loc], exc.errors
        assert exc.errors[0][2] == wrong or exc.errors[0][2] is wrong
    else:
        raise AssertionError(f"accepted {wrong!r} at {loc} for {tp}")
    assert not schema_accepts(json_schema(cls), bad)


@settings(max_examples=EXAMPLES)
@given(schema_and_value(), st.data())
def test_an_unknown_key_anywhere_is_rejected_at_its_location(case, data):
    cls, value = case
    objects = [(loc, tp) for loc, tp in sites(cls, value) if dataclasses.is_dataclass(tp)]
    loc, tp = data.draw(st.sampled_from(objects))
    names = {f.name for f in dataclasses.fields(tp)}
    key = data.draw(st.text(max_size=8).filter(lambda k: k not in names))
    holder = value
    for part in loc:
        holder = holder[part]
    bad = replaced(value, loc, {**holder, key: data.draw(json_values)})
    try:
        validate(cls, bad)
    except SchemaError as exc:
        assert [(where, msg) for where, msg, _ in exc.errors] == [((*loc, key), UNKNOWN_KEY)]
    else:
        raise AssertionError(f"accepted unknown key {key!r} at {loc}")
    assert not schema_accepts(json_schema(cls), bad)
