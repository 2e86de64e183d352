"""Request bodies checked against the official SDKs' request parameter types.

``anthropic`` and ``openai`` are test dependencies only (edgar never imports them). Their
``MessageCreateParamsStreaming`` / ``CompletionCreateParamsStreaming`` are TypedDicts; this walks
a JSON body against one: required keys present, no key the type does not know (except the named
gateway extensions), literals, unions (the closest member's errors are reported), lists, dicts
and scalars. Returns the problems as ``path: what`` lines; ``[]`` means valid.
"""

from __future__ import annotations

import collections.abc
import typing
from typing import Any, NotRequired, Required

from typing_extensions import is_typeddict

_WRAPPERS = (Required, NotRequired, typing.Annotated)


def _unwrap(tp: Any) -> Any:
    while typing.get_origin(tp) in _WRAPPERS or typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _required(td: Any) -> set[str]:
    hints = typing.get_type_hints(td, include_extras=True)
    out = set(getattr(td, "__required_keys__", ()))
    for key, tp in hints.items():
        if typing.get_origin(tp) is Required:
            out.add(key)
        elif typing.get_origin(tp) is NotRequired:
            out.discard(key)
    return out


def check(value: Any, tp: Any, path: str = "body",
          extra_ok: frozenset[str] = frozenset()) -> list[str]:
    tp = _unwrap(tp)
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return []
    if tp is type(None):
        return [] if value is None else [f"{path}: expected null, got {value!r:.60}"]
    if origin is typing.Union:
        best: list[str] | None = None
        for member in typing.get_args(tp):
            errors = check(value, member, path, extra_ok)
            if not errors:
                return []
            if best is None or len(errors) < len(best):
                best = errors
        return best or [f"{path}: matches no member of {tp}"]
    if origin is typing.Literal:
        return [] if value in typing.get_args(tp) else [
            f"{path}: {value!r:.60} is not one of {typing.get_args(tp)!r:.200}"]
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: expected an object ({tp.__name__}), got {type(value).__name__}"]
        hints = typing.get_type_hints(tp, include_extras=True)
        errors = [f"{path}: missing required {key!r} ({tp.__name__})"
                  for key in sorted(_required(tp) - set(value))]
        for key, item in value.items():
            if key not in hints:
                if key not in extra_ok:
                    errors.append(f"{path}: unknown key {key!r} for {tp.__name__}")
                continue
            errors += check(item, hints[key], f"{path}.{key}", extra_ok)
        return errors
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence, typing.Iterable):
        if not isinstance(value, list):
            return [f"{path}: expected an array, got {type(value).__name__}"]
        (item_tp,) = typing.get_args(tp) or (Any,)
        return [e for n, item in enumerate(value)
                for e in check(item, item_tp, f"{path}[{n}]", extra_ok)]
    if origin in (dict, collections.abc.Mapping):
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        args = typing.get_args(tp)
        val_tp = args[1] if len(args) == 2 else Any
        return [e for k, v in value.items() for e in check(v, val_tp, f"{path}.{k}", extra_ok)]
    if tp is bool:
        if isinstance(value, bool):
            return []
        return [f"{path}: expected true/false, got {value!r:.60}"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected an integer, got {value!r:.60}"]
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected a number, got {value!r:.60}"]
    if tp is str:
        return [] if isinstance(value, str) else [f"{path}: expected a string, got {value!r:.60}"]
    return []   # a class the JSON cannot be (files, bytes): nothing edgar sends


def anthropic_problems(body: Any, version: str = "") -> list[str]:
    from anthropic.types.message_create_params import MessageCreateParamsStreaming

    # sampling parameters left the types with anthropic-version 2026-10-21; older versions
    # still take them, and edgar sends them only there
    extra = frozenset({"temperature", "top_p", "top_k"}) if version and version < "2026-10-21" \
        else frozenset()
    return check(body, MessageCreateParamsStreaming, "body", extra)


def openai_problems(body: Any) -> list[str]:
    from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming

    # cache_control on content parts: the Anthropic breakpoint OpenRouter and LiteLLM pass on
    # for Claude models (docs/providers.md); not in OpenAI's own types
    return check(body, CompletionCreateParamsStreaming, "body", frozenset({"cache_control"}))


def problems_of(path: str, headers: dict[str, str], body: Any) -> list[str]:
    """Problems of one recorded request to the loopback server, by its protocol path."""
    if path.endswith("/messages"):
        return anthropic_problems(body, headers.get("anthropic-version", ""))
    if path.endswith("/chat/completions"):
        return openai_problems(body)
    return []
