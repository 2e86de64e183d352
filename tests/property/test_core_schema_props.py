"""Tool arguments validated by pydantic-core from the cached core schema (ADR-0116) agree with
pydantic's model on everything: what validates comes out equal (fields, fields set), what does
not fails with the very same errors (type, location, message, input) — over the values the
schema allows, the same values with one field of a wrong JSON type or an unknown key, and
arbitrary JSON. Drawn from each tool's own JSON Schema, so no tool can be left out."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from test_tool_args_props import JSON_TYPES, SAMPLES, from_schema

from edgar.declared.core_schemas import portable, validator
from edgar.tools.registry import default_tools

EXAMPLES = int(os.environ.get("EDGAR_PROPERTY_EXAMPLES", 200))
MODELS = [t.Args for t in default_tools().values()]
VALIDATORS = {model: validator(json.loads(json.dumps(portable(model)))) for model in MODELS}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3), max_leaves=8)


def outcome(check: Any, data: Any) -> tuple[str, Any]:
    try:
        made = check(data)
    except ValidationError as exc:
        return "error", (exc.error_count(), exc.errors(include_url=False), str(exc))
    return "made", (type(made), made.model_dump(), made.model_fields_set, made)


def same(model: type, data: Any) -> None:
    theirs, ours = outcome(model.model_validate, data), outcome(VALIDATORS[model], data)
    assert ours == theirs, (model.__name__, data)


def test_every_default_tools_arguments_have_a_portable_core_schema():
    assert all(portable(model) is not None for model in MODELS)


@st.composite
def drawn(draw: st.DrawFn) -> tuple[type, Any]:
    model = draw(st.sampled_from(MODELS))
    schema = model.model_json_schema()
    value = draw(from_schema(schema, schema))
    how = draw(st.sampled_from(["as is", "wrong type", "unknown key", "not an object"]))
    if how == "wrong type" and value:
        key = draw(st.sampled_from(sorted(value)))
        value = {**value, key: SAMPLES[draw(st.sampled_from(JSON_TYPES))]}
    elif how == "unknown key":
        value = {**value, draw(st.text(min_size=1, max_size=5)): draw(json_values)}
    elif how == "not an object":
        value = draw(json_values)
    return model, value


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn())
def test_the_core_validator_agrees_with_pydantics_model(pair):
    same(*pair)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.sampled_from(MODELS), st.dictionaries(st.text(max_size=8), json_values, max_size=4))
def test_on_any_json_object_too(model, data):
    same(model, data)


def test_examples_a_person_would_see():
    from edgar.tools.shell import ShellArgs

    for data in [{}, {"command": 1}, {"command": "ls", "timeout": -1}, "ls", None,
                 {"command": "ls", "timout": 3}, {"command": "ls", "timeout": "3"}]:
        same(ShellArgs, data)


ENGINE_ALONE = """import sys
from edgar.declared.core_schemas import engine
core = engine()
assert "pydantic_core" not in sys.modules and "pydantic" not in sys.modules, sorted(sys.modules)
import pydantic, pydantic_core
assert pydantic.ValidationError is core.ValidationError is pydantic_core.ValidationError
assert sys.modules["pydantic_core._pydantic_core"] is core
class M(pydantic.BaseModel):
    a: int
try:
    M(a="x")
except core.ValidationError as exc:
    print(exc.errors(include_url=False)[0]["type"])
"""


def test_the_engine_loaded_alone_is_the_one_pydantic_then_uses():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", ENGINE_ALONE], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "int_parsing"
