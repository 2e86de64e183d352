"""Tool arguments and script lines over generated JSON: whatever their JSON Schema (the one the
model is told) allows validates, and one value of the wrong JSON type in any field is rejected
at exactly that field. Drawn from the schema itself, so the two cannot drift apart."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from edgar.providers.scripted import ScriptLine
from edgar.tools.base import args_schema
from edgar.tools.registry import default_tools

EXAMPLES = int(os.environ.get("EDGAR_PROPERTY_EXAMPLES", 200))
MODELS = [t.Args for t in default_tools().values()] + [ScriptLine]
JSON_TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")
SAMPLES: dict[str, Any] = {"string": "x", "integer": 7, "number": 2.5, "boolean": True,
                           "null": None, "array": [1], "object": {"k": 1}}


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref:
        return _resolve(root["$defs"][ref.rsplit("/", 1)[-1]], root)
    return node


def from_schema(node: dict[str, Any], root: dict[str, Any]) -> st.SearchStrategy[Any]:
    """JSON values the schema node accepts (the subset of JSON Schema pydantic emits here)."""
    node = _resolve(node, root)
    if "anyOf" in node:
        return st.one_of([from_schema(n, root) for n in node["anyOf"]])
    if "enum" in node:   # a Literal
        return st.sampled_from(node["enum"])
    kind = node.get("type")
    if kind == "string":
        shortest = node.get("minLength", 0)
        return st.text(min_size=shortest, max_size=max(8, shortest))
    if kind in ("integer", "number"):
        low = node.get("minimum", node.get("exclusiveMinimum"))
        low = None if low is None else (low + 1 if "exclusiveMinimum" in node else low)
        ints = st.integers(min_value=None if low is None else int(low), max_value=10**6)
        if kind == "integer":
            return ints
        floats = st.floats(min_value=0.001 if low == 1 and "exclusiveMinimum" in node else low,
                           max_value=1e6, allow_nan=False)
        return ints | floats
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(from_schema(node.get("items", {}), root), max_size=2)
    if kind == "object":
        props = node.get("properties")
        if props is None:
            extra = node.get("additionalProperties", {})
            inner = from_schema(extra, root) if isinstance(extra, dict) and extra else \
                st.integers() | st.text(max_size=3)
            return st.dictionaries(st.text(max_size=4), inner, max_size=2)
        required = node.get("required", [])
        optional = [k for k in props if k not in required]
        return st.fixed_dictionaries(
            {k: from_schema(props[k], root) for k in required},
            optional={k: from_schema(props[k], root) for k in optional})
    return st.integers() | st.text(max_size=3)   # {} in a schema: anything


def _types(node: dict[str, Any], root: dict[str, Any]) -> set[str]:
    node = _resolve(node, root)
    if "anyOf" in node:
        return set().union(*(_types(n, root) for n in node["anyOf"]))
    kind = node.get("type")
    if kind == "number":
        return {"number", "integer"}   # an integer is a fine number
    return {kind} if kind else set(JSON_TYPES)


@st.composite
def valid_pair(draw: st.DrawFn) -> tuple[type, dict[str, Any]]:
    model = draw(st.sampled_from(MODELS))
    schema = model.model_json_schema()
    return model, draw(from_schema(schema, schema))


@settings(max_examples=EXAMPLES, deadline=None)
@given(valid_pair())
def test_what_the_schema_allows_validates(pair):
    model, value = pair
    model.model_validate(value)


@settings(max_examples=EXAMPLES, deadline=None)
@given(valid_pair(), st.data())
def test_one_wrong_typed_field_is_rejected_at_that_field(pair, data):
    model, value = pair
    schema = model.model_json_schema()
    props = schema["properties"]
    key = data.draw(st.sampled_from(sorted(props)))
    wrong = [t for t in JSON_TYPES if t not in _types(props[key], schema)]
    if not wrong:
        return
    bad = dict(value, **{key: SAMPLES[data.draw(st.sampled_from(wrong))]})
    try:
        model.model_validate(bad)
    except ValidationError as exc:
        assert {e["loc"][0] for e in exc.errors()} == {key}, exc.errors()
    else:
        raise AssertionError(f"{model.__name__} accepted {key}={bad[key]!r}")


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.sampled_from(MODELS), st.text(min_size=1, max_size=6), st.integers())
def test_an_unknown_key_is_rejected_by_name(model, key, value):
    if key in model.model_fields:
        return
    try:
        model.model_validate({**_minimal(model), key: value})
    except ValidationError as exc:
        assert [(e["type"], e["loc"]) for e in exc.errors()] == [("extra_forbidden", (key,))]
    else:
        raise AssertionError(f"{model.__name__} accepted unknown key {key!r}")


def _minimal(model: type) -> dict[str, Any]:
    schema = model.model_json_schema()
    return {k: _least(schema["properties"][k], schema) for k in schema.get("required", [])}


def _least(node: dict[str, Any], root: dict[str, Any]) -> Any:
    """The smallest value a schema node accepts (a required field's stand-in)."""
    node = _resolve(node, root)
    if "anyOf" in node:
        return _least(node["anyOf"][0], root)
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "array":
        return []
    if kind == "object":
        return {k: _least(node["properties"][k], root) for k in node.get("required", [])}
    return SAMPLES.get(kind or "string", "x")


def test_tool_schemas_are_what_args_schema_sends():
    for tool in default_tools().values():
        assert tool.spec().input_schema == args_schema(tool.Args)
