"""Tool arguments and script lines as pydantic models: strict, closed, and described to the
model by the JSON Schema each request carries."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from edgar.core.harness import run_tool
from edgar.providers.base import ProviderError, ToolCall
from edgar.providers.scripted import ScriptLine, parse_script
from edgar.tools.base import ToolContext, args_schema, validation_text
from edgar.tools.files import EditArgs, ReadArgs
from edgar.tools.registry import default_tools
from edgar.tools.shell import ShellArgs


def test_tool_args_are_strict_and_closed():
    assert ReadArgs.model_validate({"path": "a", "offset": 2}) == ReadArgs(path="a", offset=2)
    for bad, where in [({"path": 1}, "path"), ({"path": "a", "offset": "2"}, "offset"),
                       ({"path": "a", "offset": True}, "offset"),
                       ({"path": "a", "offset": 0}, "offset"),
                       ({"path": "a", "offest": 3}, "offest"), ({}, "path")]:
        with pytest.raises(ValidationError) as err:
            ReadArgs.model_validate(bad)
        assert [e["loc"][0] for e in err.value.errors()] == [where], bad
    assert ShellArgs.model_validate({"command": "ls", "timeout": 3}).timeout == 3.0
    with pytest.raises(ValidationError) as err:
        ShellArgs.model_validate({"command": "ls", "timeout": 0})
    assert validation_text(err.value) == (
        "invalid arguments: timeout: Input should be greater than 0")


def test_the_schema_sent_to_the_model():
    assert args_schema(ReadArgs) == {
        "type": "object", "additionalProperties": False, "required": ["path"],
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the project root"},
            "offset": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                       "default": None, "description": "First line to read (1-based)"},
            "limit": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                      "default": None, "description": "How many lines to read"}}}
    assert args_schema(ShellArgs)["properties"]["timeout"]["anyOf"][0] == {
        "type": "number", "exclusiveMinimum": 0}
    assert args_schema(EditArgs)["required"] == ["path", "old_string", "new_string"]
    for tool in default_tools().values():  # every schema: closed, no titles, JSON as sent
        schema = tool.spec().input_schema
        assert schema["additionalProperties"] is False and "title" not in json.dumps(schema)
        assert tool.spec() is tool.spec()  # built once per tool class


def test_bad_arguments_reach_the_model_as_a_located_validation_error(tmp_path):
    import asyncio

    events: list = []
    block, finished = asyncio.run(run_tool(
        ToolCall("c1", "read", {"path": 3, "limit": "ten"}), default_tools(),
        ToolContext(root=tmp_path), events.append, {}))
    assert block.is_error and finished.error is not None and finished.error.kind == "validation"
    assert block.content.startswith("invalid arguments: path: Input should be a valid string")
    assert "limit: Input should be a valid integer" in block.content


def test_script_lines_are_strict(tmp_path):
    assert ScriptLine.model_validate({"text": "hi", "delay_s": 1}).delay_s == 1.0
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "ok"}\n// a comment\n{"text": 5}\n')
    with pytest.raises(ProviderError) as err:
        parse_script(script)
    assert err.value.message == f"{script}:3: field 'text': Input should be a valid string"
    script.write_text('{"tool_calls": [{"name": "read", "inptu": {}}]}\n')
    with pytest.raises(ProviderError) as err:
        parse_script(script)
    assert "field 'tool_calls.0.inptu': Extra inputs are not permitted" in err.value.message
    script.write_text('{"delay_s": -1}\n')
    with pytest.raises(ProviderError) as err:
        parse_script(script)
    assert "field 'delay_s'" in err.value.message and err.value.usage_error
