"""Pure MCP helpers: variable expansion and provider-safe schemas and names."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from edgar.mcp.expand import expand
from edgar.mcp.schema import MAX_DESCRIPTION, description, input_schema, tool_name

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
VALUES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=10)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3), max_leaves=12)


@given(st.dictionaries(NAMES, VALUES), NAMES, VALUES)
def test_set_variables_expand_both_forms(env, name, default):
    missing: list[str] = []
    text = f"a${{{name}}}b${{{name}:-{default.replace('}', '')}}}c"
    out = expand(text, env, missing)
    if name in env:
        fallback = env[name] or default.replace("}", "")
        assert out == f"a{env[name]}b{fallback}c" and missing == []
    else:
        assert missing == [name] and out.endswith(f"b{default.replace('}', '')}c")


@given(st.text(max_size=40), st.dictionaries(NAMES, VALUES))
def test_text_without_the_two_forms_is_unchanged(text, env):
    plain = text.replace("${", "$ {")
    missing: list[str] = []
    assert expand(plain, env, missing) == plain and missing == []


@given(st.text(max_size=80), st.text(max_size=80))
def test_tool_names_match_the_providers_rule(server, tool):
    name = tool_name(server, tool)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name)


@given(st.text(max_size=30), st.text(max_size=30))
def test_distinct_long_names_stay_distinct(a, b):
    long = "t" * 80
    if a != b:
        assert tool_name("s", long + a) != tool_name("s", long + b) or \
            re.sub(r"[^A-Za-z0-9_-]", "_", a) == re.sub(r"[^A-Za-z0-9_-]", "_", b)


@given(json_values)
def test_any_schema_becomes_an_object_schema_providers_accept(raw):
    schema, changed = input_schema(raw)
    json.dumps(schema)
    assert schema["type"] == "object" and isinstance(schema["properties"], dict)
    assert not {"anyOf", "oneOf", "allOf", "not", "enum"} & set(schema)
    assert all(isinstance(r, str) for r in schema.get("required", []))
    assert changed == (schema != raw)


@given(st.one_of(st.none(), st.text(max_size=3000)))
def test_descriptions_are_bounded(text):
    assert len(description(text, "srv")) <= MAX_DESCRIPTION
