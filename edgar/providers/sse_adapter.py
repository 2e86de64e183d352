"""The one place edgar touches httpx2's private SSE machinery (ADR 0060).

Guarantees:
- ``sse_batches(source)`` yields the server-sent events of each network read together, in
  order, framed exactly as httpx2's own ``EventSource`` frames them (it is httpx2's parser),
  with the same size limit. A stream costs the caller one batch per read, not one per event.
- If the private names below are gone (a newer httpx2), it falls back to the public
  ``async for sse in source``: one event per batch, slower, never wrong.
- ``broken_assumptions()`` names every assumption that no longer holds for the installed
  httpx2; ``tests/unit/test_adapters.py`` fails on any of them, naming this module and the
  version, so an upgrade that moves them is caught before a person's stream gets slower.

The assumptions (httpx2 2.16, ``httpx2/_sse.py``): ``httpx2._sse._SSEParser(max_event_size)``
with ``decode(text)`` (events completed by ``text``) and ``flush()`` (the rest at the end), and
``EventSource._max_event_size`` (the limit the public iterator passes to that parser).
httpx2 is imported on the first call, never when this module is imported.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from httpx2 import EventSource, ServerSentEvent
    from httpx2._sse import _SSEParser

ADAPTS = "httpx2"


def _parser_class() -> type[_SSEParser] | None:
    try:
        from httpx2._sse import _SSEParser
    except ImportError:
        return None
    return _SSEParser


async def sse_batches(source: EventSource) -> AsyncIterator[list[ServerSentEvent]]:
    """The ``ServerSentEvent``s of each network read of an httpx2 ``EventSource``, together."""
    parser_class = _parser_class()
    if parser_class is None:
        async for sse in source:
            yield [sse]
        return
    parser = parser_class(getattr(source, "_max_event_size", None))
    async for text in source.response.aiter_text():
        batch = list(parser.decode(text))
        if batch:
            yield batch
    tail = list(parser.flush())
    if tail:
        yield tail


def broken_assumptions() -> list[str]:
    """What this adapter assumes of the installed httpx2 and no longer holds (empty: all hold)."""
    import inspect  # only the version test asks; a session never does

    import httpx2

    problems: list[str] = []
    parser_class = _parser_class()
    if parser_class is None:
        problems.append("httpx2._sse._SSEParser cannot be imported")
    else:
        params = list(inspect.signature(parser_class).parameters)
        if params[:1] != ["max_event_size"]:
            problems.append(f"_SSEParser({', '.join(params)}) no longer takes max_event_size first")
        for method in ("decode", "flush"):
            if not callable(getattr(parser_class, method, None)):
                problems.append(f"_SSEParser.{method}() is gone")
    source_class = getattr(httpx2, "EventSource", None)
    if source_class is None:
        problems.append("httpx2.EventSource is gone")
    else:
        source = source_class(httpx2.Response(200), max_event_size=1234)
        if getattr(source, "_max_event_size", None) != 1234:
            problems.append("EventSource no longer keeps its limit in _max_event_size")
    return problems
