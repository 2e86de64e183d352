"""Shared HTTP machinery of the wire protocols: one client, retries, SSE, error messages.

Guarantees:
- httpx2 is imported on the first request, never at ``import edgar`` (``edgar --version``
  stays fast); each provider instance owns one ``httpx2.AsyncClient`` (keep-alive across the
  requests of a session).
- A request is retried with exponential backoff and jitter, honouring ``x-should-retry``,
  ``retry-after-ms`` and ``retry-after``, on 408, 409, 429, 5xx (529 included) and on
  connection errors — and only while no ``StreamEvent`` has reached the caller. 400, 401,
  403, 404, 413 and a spend-limit 429 are never retried. After partial output nothing is
  retried: the failure is raised and the caller keeps what it already has.
- Text is yielded as soon as a network read brings it; the deltas of one read are joined into
  one ``TextChunk`` (nothing is held back), so a fast stream does not cost one bus event per
  token.
- Every failure is a ``ProviderError`` whose message names the provider, the HTTP status
  (where there is one) and what the person can do. The API key never appears in it: server
  text is scrubbed of the key and of anything shaped like one.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Protocol, Sequence

from edgar.providers.base import ProviderError, StreamEvent, TextChunk, ThinkingChunk

if TYPE_CHECKING:
    from edgar.config import ProviderSettings

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
NEVER_RETRY = frozenset({400, 401, 403, 404, 413})
MAX_BACKOFF = 8.0          # seconds; a person is waiting at the terminal
MAX_RETRY_AFTER = 60.0     # a longer server hint falls back to our own backoff
DETAIL_CHARS = 240         # server text kept in a message
DRAIN_SECONDS = 1.0        # how long the end of a finished stream is waited for

_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{4})[A-Za-z0-9_\-*.]{6,}")
_SPEND = re.compile(r"quota|spend(ing)? limit|credit balance|billing", re.I)
_SPEND_KINDS = ("insufficient_quota", "billing_hard_limit_reached")


class Decoder(Protocol):
    """One protocol's stream state for one attempt. ``done`` = the protocol's end marker seen."""

    done: bool

    def feed(self, event: str, data: str) -> Sequence[StreamEvent]:
        """Events for one SSE message; raises ProviderError for an in-stream error."""

    def finish(self) -> Sequence[StreamEvent]:
        """The closing events (``Finished`` last); raises ProviderError if the stream was cut."""


@dataclass(frozen=True)
class Hints:
    """What the person can change, used to write error messages."""

    provider: str
    model: str
    key_env: str
    base_env: str
    base_url: str


def backoff(attempt: int, base: float) -> float:
    """Delay before retry ``attempt`` (0-based): doubling, capped, with up to 25 % jitter down."""
    return min(base * (2 ** attempt), MAX_BACKOFF) * (1 - 0.25 * random.random())


def retry_after(headers: Any) -> float | None:
    """Seconds the server asked us to wait, from ``retry-after-ms`` or ``retry-after``."""
    value: float | None = None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            value = float(raw_ms) / 1000
        except ValueError:
            value = None
    raw = headers.get("retry-after")
    if value is None and raw:
        try:
            value = float(raw)
        except ValueError:
            try:  # an HTTP date
                value = parsedate_to_datetime(raw).timestamp() - time.time()
            except (TypeError, ValueError):
                value = None
    if value is None or not 0 <= value <= MAX_RETRY_AFTER:
        return None
    return value


def should_retry(status: int, headers: Any, spend_limit: bool) -> bool:
    if status in NEVER_RETRY or spend_limit:
        return False
    hint = (headers.get("x-should-retry") or "").strip().lower()
    if hint in ("true", "false"):
        return hint == "true"
    return status in RETRY_STATUSES or status >= 500


def scrub(text: str, secret: str | None) -> str:
    """Server text made safe to show: the key and key-shaped tokens removed, one line, short."""
    if secret:
        text = text.replace(secret, "***")
    text = _KEYLIKE.sub(r"\1***", text)
    text = " ".join(text.split())
    return text[:DETAIL_CHARS] + ("…" if len(text) > DETAIL_CHARS else "")


def error_detail(body: Any) -> tuple[str, str]:
    """(message, type-or-code) from the error shapes servers send: OpenAI, Anthropic, vLLM."""
    if not isinstance(body, dict):
        return "", ""
    err = body.get("error", body)
    if isinstance(err, str):
        return err, ""
    if not isinstance(err, dict):
        return "", ""
    kind = err.get("type") or err.get("code") or ""
    return str(err.get("message") or ""), str(kind)


def status_message(h: Hints, status: int, detail: str, spend_limit: bool) -> str:
    """The sentence a person reads for an HTTP failure: what happened, then what to do."""
    p = h.provider
    said = f" ({detail})" if detail else ""
    if status == 401:
        todo = (f"set {h.key_env} to a valid key (or name another variable in "
                f"providers.{p}.api_key_env)")
        return f"{p}: HTTP 401 unauthorized{said} — the API key was rejected; {todo}"
    if status == 403:
        return (f"{p}: HTTP 403 forbidden{said} — the key in {h.key_env} may not have access to "
                f"model {h.model!r}; check its permissions or choose another --model")
    if status == 404:
        return (f"{p}: HTTP 404 not found{said} — check the model name {h.model!r} (--model) "
                f"and the base URL {h.base_url} ({h.base_env} or providers.{p}.base_url)")
    if status == 413:
        return (f"{p}: HTTP 413 request too large{said} — the conversation is more than the "
                f"server accepts; start a new session or attach less")
    if status == 429 and spend_limit:
        return (f"{p}: HTTP 429 quota or spend limit reached{said} — check the account's "
                f"billing and limits; retrying will not help")
    if status == 429:
        return (f"{p}: HTTP 429 rate limited{said} — wait a minute and try again, or raise "
                f"providers.{p}.max_retries")
    if status == 400:
        return (f"{p}: HTTP 400 bad request{said} — the provider rejected the request; check "
                f"--model and the providers.{p} settings")
    if status >= 500:
        what = "overloaded" if status == 529 else "server error"
        return f"{p}: HTTP {status} {what}{said} — try again later or choose another --model"
    return f"{p}: HTTP {status}{said} — check --model and the providers.{p} settings"


def stream_error(h: Hints, detail: str, kind: str, secret: str | None = None) -> ProviderError:
    """An error the server reported inside a stream (Anthropic ``error``, OpenAI ``{"error"}``)."""
    status = _STATUS_OF_KIND.get(kind) or (int(kind) if kind.isdigit() else None)
    spend = bool(_SPEND.search(detail)) or kind in _SPEND_KINDS
    text = scrub(detail or kind or "no detail", secret)
    if status is not None:
        message = status_message(h, status, text, spend)
        retryable = should_retry(status, {}, spend)
    else:
        message = f"{h.provider}: the stream reported an error ({text}) — try again"
        retryable = False
    return ProviderError(h.provider, message, status=status, retryable=retryable)


_STATUS_OF_KIND = {
    "invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
    "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
    "api_error": 500, "overloaded_error": 529, "insufficient_quota": 429,
    # OpenAI's codes, as OpenRouter and others pass them along inside streams
    "invalid_api_key": 401, "model_not_found": 404, "context_length_exceeded": 400,
    "rate_limit_exceeded": 429, "server_error": 500,
}


def _httpx2() -> Any:
    import httpx2  # deferred: ~0.1 s that `edgar --version` should not pay

    return httpx2


class Connection:
    """One provider's client: POST a JSON body, decode the SSE answer, retry what may be retried."""

    def __init__(self, settings: "ProviderSettings", hints: Hints, url: str,
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
                     new_decoder: Callable[[], Decoder]) -> AsyncIterator[StreamEvent]:
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
                    if response.status_code >= 300 or not _is_event_stream(response):
                        failure, delay = await self._http_error(response)
                        raise failure
                    deadline = time.monotonic() + s.timeout
                    batches = _batches(source)
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
                            cut = self._malformed(exc)
                        for event in _merged(events):
                            emitted = True
                            yield event
                        if cut is not None:
                            raise cut
                        if decoder.done:
                            await _drain(batches, httpx2)
                            break
                        if events and time.monotonic() > deadline:
                            raise ProviderError(self.hints.provider, self._timeout_text())
                    for event in decoder.finish():
                        emitted = True
                        yield event
                return
            except ProviderError as exc:
                failure = exc
            except httpx2.TransportError as exc:
                failure = self._transport_error(exc, emitted)
            if emitted or not failure.retryable or attempt >= s.max_retries:
                if attempt and failure.retryable:
                    failure = ProviderError(failure.provider, f"{failure.message} (gave up after "
                                            f"{attempt + 1} attempts)", status=failure.status,
                                            retryable=False, usage_error=failure.usage_error)
                raise failure
            await asyncio.sleep(delay if delay is not None else backoff(attempt, s.retry_backoff))
            attempt += 1

    async def _http_error(self, response: Any) -> tuple[ProviderError, float | None]:
        raw = await response.aread()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        detail, kind = error_detail(body)
        status = response.status_code
        if status < 300:  # 200 but not a stream: an error object (vLLM) or a server without SSE
            code = body.get("code") if isinstance(body, dict) else None
            if detail and isinstance(code, int) and code >= 400:
                status = code
            elif detail or kind:
                status = 500 if not isinstance(code, int) else code
            else:
                ctype = response.headers.get("content-type", "?")
                message = (f"{self.hints.provider}: HTTP {status} but the answer is {ctype}, "
                           f"not an event stream — check that {self.hints.base_url} speaks this API")
                return ProviderError(self.hints.provider, message, status=status), None
        if not detail and raw:
            detail = raw.decode("utf-8", "replace")
        spend = status == 429 and (bool(_SPEND.search(detail)) or kind in _SPEND_KINDS)
        text = scrub(detail, self._secret)
        retryable = should_retry(status, response.headers, spend)
        error = ProviderError(self.hints.provider, status_message(self.hints, status, text, spend),
                              status=status, retryable=retryable)
        return error, retry_after(response.headers)

    def _transport_error(self, exc: Exception, emitted: bool) -> ProviderError:
        httpx2 = _httpx2()
        h, s = self.hints, self.settings
        if isinstance(exc, (httpx2.ConnectError, httpx2.ConnectTimeout)):
            message = (f"{h.provider}: cannot connect to {h.base_url} ({type(exc).__name__}) — "
                       f"check {h.base_env} or providers.{h.provider}.base_url, and the network")
            return ProviderError(h.provider, message, retryable=True)
        kept = " — the partial answer is kept; " if emitted else " — "
        if isinstance(exc, httpx2.ReadTimeout):
            message = (f"{h.provider}: no data for {s.read_timeout:g} s (read timeout){kept}try "
                       f"again, or raise providers.{h.provider}.read_timeout")
        else:
            message = (f"{h.provider}: the connection dropped mid-answer ({type(exc).__name__})"
                       f"{kept}try again")
        return ProviderError(h.provider, message, retryable=not emitted)

    def _malformed(self, exc: Exception) -> ProviderError:
        h = self.hints
        return ProviderError(h.provider, f"{h.provider}: the server sent an event edgar cannot "
                             f"read ({type(exc).__name__}) — check that {h.base_url} speaks "
                             "this API")

    def _timeout_text(self) -> str:
        h = self.hints
        return (f"{h.provider}: the answer took longer than {self.settings.timeout:g} s — the "
                f"partial answer is kept; raise providers.{h.provider}.timeout")


async def _batches(source: Any) -> AsyncIterator[list[Any]]:
    """The SSE messages of each network read, together.

    Deltas that arrived in one read are merged into one chunk downstream (``_merged``): a fast
    stream costs the bus, the renderer and the session log one event per read instead of one
    per token, and nothing is held back waiting. httpx2's own parser does the SSE framing; if
    its private name ever moves, this falls back to one message per batch.
    """
    try:
        from httpx2._sse import _SSEParser
    except ImportError:  # pragma: no cover - depends on the httpx2 version
        async for sse in source:
            yield [sse]
        return
    parser = _SSEParser(getattr(source, "_max_event_size", None))
    async for text in source.response.aiter_text():
        batch = list(parser.decode(text))
        if batch:
            yield batch
    tail = list(parser.flush())
    if tail:
        yield tail


def _merged(events: list[StreamEvent]) -> list[StreamEvent]:
    """Runs of TextChunks (and of unsigned ThinkingChunks) joined into one, order kept."""
    if len(events) < 2:
        return events
    out: list[StreamEvent] = []
    run: list[str] = []
    kind: type | None = None
    for event in events:
        joinable = type(event) is TextChunk or (type(event) is ThinkingChunk and not event.signature)
        if joinable and type(event) is kind:
            run.append(event.text)
            continue
        if run:
            out.append(kind(text="".join(run)))  # type: ignore[misc]
        run, kind = ([event.text], type(event)) if joinable else ([], None)
        if not joinable:
            out.append(event)
    if run:
        out.append(kind(text="".join(run)))  # type: ignore[misc]
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
    ctype = response.headers.get("content-type", "")
    return ctype.partition(";")[0].strip().lower() == "text/event-stream"


def parse_json(data: str) -> Any:
    """JSON of one SSE data field, or None when it is not JSON (a tolerated keep-alive)."""
    try:
        return json.loads(data)
    except ValueError:
        return None
