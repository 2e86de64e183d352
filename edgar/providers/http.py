"""Shared HTTP machinery of the wire protocols: one client, retries, SSE.

Guarantees:
- httpx2 is imported on the first request, never at ``import edgar`` (``edgar --version``
  stays fast); each provider instance owns one ``httpx2.AsyncClient`` (keep-alive across the
  requests of a session).
- A request is retried with exponential backoff and jitter, honouring ``x-should-retry``,
  ``retry-after-ms`` and ``retry-after``, on 408, 409, 429, 5xx (529 included) and on
  connection errors — and only while no ``StreamEvent`` has reached the caller. 400, 401,
  403, 404, 413 and a spend-limit 429 are never retried. After partial output nothing is
  retried: the failure is raised and the caller keeps what it already has. (Which failures
  are retryable and for how long to wait: ``edgar.providers.http_retry``.)
- A 2xx answer that is one whole JSON message instead of a stream (LiteLLM's
  ``mock_response``, a server without SSE) is read as that message (``Decoder.whole``): the
  same events a stream of it would give, never an error, never retried.
- Text is yielded as soon as a network read brings it; the deltas of one read are joined into
  one ``TextChunk`` (nothing is held back), so a fast stream does not cost one bus event per
  token.
- Every failure is a ``ProviderError`` whose message names the provider, the HTTP status
  (where there is one) and what the person can do. The API key never appears in it: server
  text is scrubbed of the key and of anything shaped like one. (The messages:
  ``edgar.providers.http_errors``.)
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from edgar.providers.base import ProviderError, StreamEvent, TextChunk, ThinkingChunk
from edgar.providers.http_errors import (
    Hints,
    answer_timeout,
    gave_up,
    malformed_event,
    response_error,
    transport_error,
)
from edgar.providers.http_retry import backoff, retry_after
from edgar.providers.sse_adapter import sse_batches

if TYPE_CHECKING:
    from edgar.config import ProviderSettings
    from edgar.conversation import Usage
    from edgar.providers.base import ModelRequest

DRAIN_SECONDS = 1.0        # how long the end of a finished stream is waited for


class Decoder(Protocol):
    """One protocol's stream state for one attempt. ``done`` = the protocol's end marker seen."""

    done: bool

    def feed(self, event: str, data: str) -> Sequence[StreamEvent]:
        """Events for one SSE message; raises ProviderError for an in-stream error."""

    def finish(self) -> Sequence[StreamEvent]:
        """The closing events (``Finished`` last); raises ProviderError if the stream was cut."""

    def usage(self) -> Usage | None:
        """The usage reported so far (kept on a failure mid-stream), None if none was."""

    def whole(self, body: Any) -> Sequence[StreamEvent] | None:
        """The events of a complete (non-streamed) message body, ``Finished`` last; None
        when ``body`` is not this protocol's message (an error object, something else)."""


def _httpx2() -> Any:
    import httpx2  # deferred: ~0.1 s that `edgar --version` should not pay

    return httpx2


class Connection:
    """One provider's client: POST a JSON body, decode the SSE answer, retry what may be retried."""

    def __init__(self, settings: ProviderSettings, hints: Hints, url: str,
                 headers: dict[str, str], secret: str | None):
        self.settings = settings
        self.hints = hints
        self.url = url
        self._headers = headers
        self._secret = secret
        self._client: Any = None

    def _client_now(self) -> Any:
        if self._client is None:
            httpx2 = _httpx2()
            s = self.settings
            timeout = httpx2.Timeout(connect=s.connect_timeout, read=s.read_timeout,
                                     write=s.read_timeout, pool=s.connect_timeout)
            # A plain-http endpoint (a local server) never negotiates TLS: skip loading the CA
            # bundle (~50-80 ms before the first request byte). Not when a proxy may be used.
            plain = self.url.startswith("http://") and not any(
                k.lower().endswith("_proxy") for k in os.environ)
            self._client = httpx2.AsyncClient(timeout=timeout, headers=self._headers,
                                              **({"verify": False} if plain else {}))
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def stream(self, body: dict[str, Any],
                     new_decoder: Callable[[], Decoder]) -> AsyncGenerator[StreamEvent, None]:
        httpx2 = _httpx2()
        client = self._client_now()
        s = self.settings
        attempt = 0
        while True:
            decoder = new_decoder()  # fresh state: a retried attempt starts from nothing
            emitted = False
            delay: float | None = None
            try:
                async with client.sse(self.url, method="POST", json=body) as source:
                    response = source.response
                    if response.status_code < 300 and not _is_event_stream(response):
                        whole = await self._whole(response, decoder)
                        if whole is not None:
                            for event in whole:
                                emitted = True
                                yield event
                            return
                    if response.status_code >= 300 or not _is_event_stream(response):
                        failure, delay = await self._http_error(response)
                        raise failure
                    deadline = time.monotonic() + s.timeout
                    # one batch per network read; its deltas are merged (_merged) so a fast
                    # stream costs one bus event per read, not one per token
                    batches = sse_batches(source)
                    async for batch in batches:
                        events: list[StreamEvent] = []
                        cut: ProviderError | None = None
                        try:
                            for sse in batch:
                                events += decoder.feed(sse.event, sse.data)
                                if decoder.done:
                                    break
                        except ProviderError as exc:  # what came before it is still shown
                            cut = exc
                        except (AttributeError, TypeError, KeyError, ValueError) as exc:
                            cut = malformed_event(self.hints, exc)
                        for event in _merged(events):
                            emitted = True
                            yield event
                        if cut is not None:
                            raise cut
                        if decoder.done:
                            await _drain(batches, httpx2)
                            break
                        if events and time.monotonic() > deadline:
                            raise answer_timeout(self.hints, s.timeout)
                    for event in decoder.finish():
                        emitted = True
                        yield event
                return
            except ProviderError as exc:
                failure = exc
            except httpx2.TransportError as exc:
                failure = transport_error(self.hints, s.read_timeout, exc, emitted, httpx2)
            if emitted or not failure.retryable or attempt >= s.max_retries:
                if attempt and failure.retryable and not emitted:
                    failure = gave_up(failure, attempt + 1)
                failure.usage, failure.model = decoder.usage(), getattr(decoder, "model", "")
                raise failure
            await asyncio.sleep(delay if delay is not None else backoff(attempt, s.retry_backoff))
            attempt += 1

    async def _whole(self, response: Any, decoder: Decoder) -> Sequence[StreamEvent] | None:
        """The events of a 2xx JSON body that is a whole message, or None (not one)."""
        import json

        raw = await response.aread()
        try:
            body = json.loads(raw)
        except ValueError:
            return None
        try:
            return decoder.whole(body)
        except (AttributeError, TypeError, KeyError, ValueError) as exc:
            raise malformed_event(self.hints, exc) from None

    async def _http_error(self, response: Any) -> tuple[ProviderError, float | None]:
        raw = await response.aread()
        error = response_error(self.hints, response.status_code, response.headers, raw,
                               self._secret)
        return error, (retry_after(response.headers) if error.retryable else None)


class WireProvider:
    """What both protocol classes share: stream one request through their ``Connection``
    with a fresh decoder of their wire format, and close the connection."""

    name: str
    model: str
    _conn: Connection
    _decoder: Callable[[Any, str], Decoder]

    def body(self, request: ModelRequest) -> dict[str, Any]:
        raise NotImplementedError

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        # The connection's generator itself, not a wrapper: one async layer less per delta.
        hints, model, decoder = self._conn.hints, self.model, self._decoder
        return self._conn.stream(self.body(request), lambda: decoder(hints, model))

    async def aclose(self) -> None:
        await self._conn.aclose()


def _merged(events: list[StreamEvent]) -> list[StreamEvent]:
    """Runs of TextChunks (and of unsigned ThinkingChunks) joined into one, order kept."""
    if len(events) < 2:
        return events
    out: list[StreamEvent] = []
    run: list[str] = []
    kind: type[TextChunk] | type[ThinkingChunk] | None = None   # of the run; None: no run
    for event in events:
        if type(event) is TextChunk or (isinstance(event, ThinkingChunk) and not event.signature):
            if type(event) is kind:
                run.append(event.text)
                continue
            if kind is not None:
                out.append(kind(text="".join(run)))
            run, kind = [event.text], type(event)
            continue
        if kind is not None:
            out.append(kind(text="".join(run)))
        run, kind = [], None
        out.append(event)
    if kind is not None:
        out.append(kind(text="".join(run)))
    return out


async def _drain(messages: Any, httpx2: Any) -> None:
    """Read what follows the end marker (the chunked terminator, a stray ``[DONE]``) so the
    connection goes back to the pool for the next call; a server that lingers is not waited for."""
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for _ in messages:
                pass
    except (TimeoutError, httpx2.TransportError):
        pass
    finally:
        await messages.aclose()


def _is_event_stream(response: Any) -> bool:
    ctype = str(response.headers.get("content-type", ""))
    return ctype.partition(";")[0].strip().lower() == "text/event-stream"

