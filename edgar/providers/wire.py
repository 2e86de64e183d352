"""Reading the JSON a provider streams, field by field, with the type each field must have.

Guarantees:
- ``take(obj, key, kind, where)`` returns the value, or ``default`` when the key is absent or
  null; a value of another type raises ``WireTypeError`` whose message names the field by its
  dotted path (``content_block_delta.delta.text``), the type it had and the type expected.
  ``bool`` never passes for a number (JSON ``true`` is not a token count).
- ``data(text)`` is one SSE data field as JSON; text that is not JSON raises ``WireTypeError``
  (a half chunk is an error, never skipped: skipping one fragment of tool arguments could
  leave other fragments that parse into arguments the model never wrote).
- Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import Any

_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "an array",
          float: "a number", bool: "true or false"}


class WireTypeError(ValueError):
    """A stream field of the wrong JSON type, or a data line that is not JSON."""


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def take(obj: dict[str, Any], key: str, kind: type, where: str, default: Any = None) -> Any:
    value = obj.get(key)
    if value is None:
        return default
    ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise WireTypeError(f"field {where}.{key} is {_json_type(value)}, expected "
                            f"{_NAMES.get(kind, kind.__name__)}")
    return value


def data(text: str, where: str) -> Any:
    """The JSON of one SSE ``data:`` field; an empty field is None (a keep-alive)."""
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise WireTypeError(f"a {where} event is not valid JSON (a cut or garbled chunk)") from None
