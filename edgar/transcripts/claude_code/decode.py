"""Decoding one transcript line: only the fields the reader reads, when msgspec is there.

Guarantees:
- ``decoder(name)`` returns a function from a stripped line (bytes starting with ``{``) to
  a dict, or raises ``Unfit`` when it cannot decide the line; the caller then decodes it
  with the standard library, which has the last word on every line (its value, or its
  reason to skip the line). So both decoders give the reader the same records and the
  same Malformed reasons (tests/property/test_claude_code_decoders.py checks that).
- ``"msgspec"`` (ADR 0052) decodes into the ``TypedDict``s below: a key they do not name is
  skipped by msgspec's C parser without building it (tool-result bodies, tool inputs,
  snapshots, progress data: most of a transcript's bytes). The JSON is still checked
  whole. Anything the shapes refuse (``message`` not an object, a block that is not an
  object, a number out of range, NaN, a lone surrogate) is ``Unfit``.
- ``"stdlib"`` (no msgspec, or ``EDGAR_CC_DECODER=stdlib``) has no function (None): the
  pure-Python path, where the standard library decodes every line.
- Every key the reader (``reader``, ``classify``, ``exchanges``,
  ``messages``) looks at is named here. A key it reads that is missing here would read
  as absent under msgspec only: the decoder property test catches that for every key the
  record strategies write.
"""

# (no ``from __future__ import annotations``: msgspec reads these annotations at run time)

import os
from collections.abc import Callable
from typing import Any, TypedDict


class Unfit(Exception):
    """This decoder cannot decide the line; decode it with the standard library."""


class _Block(TypedDict, total=False):
    type: Any
    text: Any
    thinking: Any
    name: Any
    id: Any


class _Usage(TypedDict, total=False):
    input_tokens: Any
    output_tokens: Any
    cache_creation_input_tokens: Any
    cache_read_input_tokens: Any


class _Message(TypedDict, total=False):
    content: str | list[_Block]
    id: Any
    model: Any
    usage: _Usage


class _Attachment(TypedDict, total=False):
    type: Any
    prompt: Any
    origin: Any
    isMeta: Any
    commandMode: Any
    timestamp: Any


def _record_type() -> type:
    import msgspec

    class Record(TypedDict, total=False):
        type: Any
        uuid: Any
        sessionId: Any
        timestamp: Any
        isSidechain: Any
        agentId: Any
        toolUseResult: msgspec.Raw  # only its presence matters: kept unparsed
        isMeta: Any
        isCompactSummary: Any
        isVisibleInTranscriptOnly: Any
        turnCompanion: Any
        verifiedSlackHumanTurn: Any
        promptSource: Any
        origin: Any
        message: _Message
        requestId: Any
        apiBlockIndex: Any
        isApiErrorMessage: Any
        operation: Any
        content: Any
        attachment: _Attachment
        subtype: Any

    return Record


class Fast:
    """A decoder: call it (``Unfit`` when it cannot decide), or, in a hot loop, call
    ``decode`` and catch ``errors`` (one Python frame less per line)."""

    __slots__ = ("decode", "errors")

    def __init__(self, decode: Callable[[bytes], dict],
                 errors: tuple[type[Exception], ...]) -> None:
        self.decode = decode
        self.errors = errors

    def __call__(self, body: bytes) -> dict:
        try:
            return self.decode(body)
        except self.errors:
            raise Unfit from None


def _msgspec() -> Fast | None:
    try:
        import msgspec
    except ImportError:
        return None
    return Fast(msgspec.json.Decoder(_record_type()).decode,
                (msgspec.DecodeError, msgspec.ValidationError))


def available() -> tuple[str, ...]:
    """The decoders this interpreter can use, fastest first."""
    try:
        import msgspec  # noqa: F401
    except ImportError:
        return ("stdlib",)
    return ("msgspec", "stdlib")


_cache: dict[str, Fast | None] = {}


def decoder(name: str | None = None) -> tuple[str, Fast | None]:
    """(name, decode) for ``name``, else ``$EDGAR_CC_DECODER``, else the fastest available.

    ``decode`` is None for ``stdlib``; an unknown or unavailable name gives ``stdlib``.
    """
    wanted = name or os.environ.get("EDGAR_CC_DECODER") or available()[0]
    if wanted == "msgspec":
        if "msgspec" not in _cache:
            _cache["msgspec"] = _msgspec()   # one Decoder per process: building it costs
        if _cache["msgspec"] is not None:
            return "msgspec", _cache["msgspec"]
    return "stdlib", None
