"""edgar.schema: strict validation of dataclass schemas and the JSON Schema the model sees."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from edgar.schema import MISSING, UNKNOWN_KEY, SchemaError, json_schema, validate
from edgar.tools.files import ReadArgs
from edgar.tools.shell import ShellArgs


@dataclass
class Inner:
    n: int = 0
    tags: list[str] = field(default_factory=list)


@dataclass
class Outer:
    name: str
    mode: Literal["a", "b"] = "a"
    ratio: float = field(default=1.0, metadata={"gt": 0, "le": 10, "description": "a share"})
    count: int | None = field(default=None, metadata={"ge": 1})
    flag: bool = False
    inner: Inner = field(default_factory=Inner)
    extra: dict[str, Inner] = field(default_factory=dict)
    raw: dict[str, Any] | str = field(default_factory=dict)
    maybe: Inner | None = None
    level: Literal[1, 2] = 1


def errors(tp, value) -> list[tuple[tuple, str]]:
    with pytest.raises(SchemaError) as err:
        validate(tp, value)
    return [(loc, msg) for loc, msg, _ in err.value.errors]


def test_valid_value_builds_nested_instances_with_defaults():
    got = validate(Outer, {"name": "x", "inner": {"n": 2, "tags": ["t"]},
                           "extra": {"k": {}}, "raw": "{bad json"})
    assert got == Outer(name="x", inner=Inner(2, ["t"]), extra={"k": Inner()}, raw="{bad json")
    assert got.extra["k"].tags == [] and got.extra["k"].tags is not Inner().tags


def test_unknown_key_is_an_error_at_its_path():
    assert errors(Outer, {"name": "x", "nmae": 1}) == [(("nmae",), UNKNOWN_KEY)]
    assert errors(Outer, {"name": "x", "inner": {"m": 1}}) == [(("inner", "m"), UNKNOWN_KEY)]
    assert errors(Outer, {"name": "x", "extra": {"k": {"z": 0}}}) == [
        (("extra", "k", "z"), UNKNOWN_KEY)]


def test_missing_required_field():
    assert errors(Outer, {}) == [(("name",), MISSING)]


@pytest.mark.parametrize("key, value", [
    ("name", 5), ("name", None), ("name", ["x"]),
    ("count", "3"), ("count", True), ("count", 2.0),
    ("ratio", "1.5"), ("ratio", False), ("ratio", None),
    ("flag", 1), ("flag", "true"),
    ("mode", "c"), ("mode", None),
    ("inner", []), ("raw", 3),
])
def test_wrong_types_are_rejected_never_coerced(key, value):
    found = errors(Outer, {"name": "x", key: value} if key != "name" else {key: value})
    assert found and found[0][0] == (key,)


def test_messages_say_what_was_expected():
    assert errors(Outer, {"name": 5}) == [(("name",), "expected a string")]
    assert errors(Outer, {"name": "x", "count": "3"}) == [(("count",), "expected an integer or null")]
    assert errors(Outer, {"name": "x", "mode": "c"}) == [(("mode",), "expected one of 'a', 'b'")]
    assert errors(Outer, {"name": "x", "inner": {"tags": ["a", 1]}}) == [
        (("inner", "tags", 1), "expected a string")]


def test_inside_an_optional_object_the_error_is_deep():
    assert errors(Outer, {"name": "x", "maybe": {"n": "1"}}) == [(("maybe", "n"), "expected an integer")]
    assert errors(Outer, {"name": "x", "maybe": 3}) == [(("maybe",), "expected an object or null")]


def test_literal_compares_type_too():
    assert validate(Outer, {"name": "x", "level": 2}).level == 2
    assert errors(Outer, {"name": "x", "level": True}) == [(("level",), "expected one of 1, 2")]
    assert errors(Outer, {"name": "x", "level": 1.0})[0][0] == ("level",)


def test_int_is_a_float_and_becomes_one():
    got = validate(Outer, {"name": "x", "ratio": 2})
    assert got.ratio == 2.0 and type(got.ratio) is float


def test_bounds_from_field_metadata():
    assert errors(Outer, {"name": "x", "ratio": 0}) == [(("ratio",), "must be > 0")]
    assert errors(Outer, {"name": "x", "ratio": 11}) == [(("ratio",), "must be <= 10")]
    assert errors(Outer, {"name": "x", "ratio": math.nan}) == [(("ratio",), "must be > 0")]
    assert errors(Outer, {"name": "x", "count": 0}) == [(("count",), "must be >= 1")]
    assert validate(Outer, {"name": "x", "count": None}).count is None


def test_every_error_is_reported_in_input_order():
    found = errors(Outer, {"flag": "no", "zzz": 1, "inner": {"n": "1"}})
    assert found == [(("flag",), "expected true or false"), (("zzz",), UNKNOWN_KEY),
                     (("inner", "n"), "expected an integer"), (("name",), MISSING)]


def test_top_level_shape_and_error_text():
    assert errors(Outer, ["x"]) == [((), "expected an object")]
    with pytest.raises(SchemaError) as err:
        validate(Outer, {"name": 1, "inner": {"n": "z"}})
    assert str(err.value) == "name: expected a string; inner.n: expected an integer"
    assert isinstance(err.value, ValueError)


def test_an_instance_passes_through():
    inner = Inner(3)
    assert validate(Outer, {"name": "x", "inner": inner}).inner is inner


def test_unsupported_type_is_a_type_error():
    @dataclass
    class Odd:
        when: complex = 0j

    with pytest.raises(TypeError):
        validate(Odd, {})


def test_json_schema_shape():
    schema = json_schema(Outer)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == ["name"]
    props = schema["properties"]
    assert props["mode"] == {"enum": ["a", "b"], "type": "string", "default": "a"}
    assert props["ratio"] == {"type": "number", "exclusiveMinimum": 0, "maximum": 10,
                              "default": 1.0, "description": "a share"}
    assert props["count"] == {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                              "default": None}
    assert props["inner"]["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["extra"]["additionalProperties"]["additionalProperties"] is False
    assert props["raw"] == {"anyOf": [{"type": "object"}, {"type": "string"}]}
    assert json_schema(Outer) is schema  # cached per class


def test_tool_schemas_match_what_the_model_was_told_before():
    # The exact schemas pydantic generated for these tools (titles removed), so the move to
    # edgar.schema changed nothing on the wire.
    assert json_schema(ReadArgs) == {
        "additionalProperties": False, "type": "object", "required": ["path"],
        "properties": {
            "path": {"description": "File path, relative to the project root", "type": "string"},
            "offset": {"anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                       "default": None, "description": "First line to read (1-based)"},
            "limit": {"anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                      "default": None, "description": "How many lines to read"}}}
    assert json_schema(ShellArgs)["properties"]["timeout"] == {
        "anyOf": [{"exclusiveMinimum": 0, "type": "number"}, {"type": "null"}],
        "default": None, "description": "Seconds before it is killed"}


def test_tool_args_are_strict():
    assert validate(ReadArgs, {"path": "a", "offset": 2}) == ReadArgs("a", 2)
    assert errors(ReadArgs, {"path": 1}) == [(("path",), "expected a string")]
    assert errors(ReadArgs, {"path": "a", "offset": "2"})[0][0] == ("offset",)
    assert validate(ShellArgs, {"command": "ls", "timeout": 3}).timeout == 3.0
    assert errors(ShellArgs, {"command": "ls", "timeout": 0}) == [(("timeout",), "must be > 0")]
