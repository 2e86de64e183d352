"""Error messages of the wire protocols: every failure as a ``ProviderError`` a person can act on.

Guarantees:
- Every message names the provider, the HTTP status (where there is one) and what the person
  can do (which variable, setting or flag to change, or that retrying will not help).
- The API key never appears in a message: server text is scrubbed of the key and of anything
  shaped like one, folded to one line and cut to ``DETAIL_CHARS``.
- The error shapes servers send (OpenAI, Anthropic, vLLM; as a response body or inside a
  stream) are read alike; an error kind or code found in a stream maps to the HTTP status it
  stands for, so it gets the same message and the same retry decision as that status.
- A spend-limit or quota 429 is told apart from a rate limit and is never retryable.
- Pure: no I/O. Reading the response body is the caller's (``Connection``'s) job.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from edgar.providers.base import ProviderError
from edgar.providers.http_retry import should_retry

DETAIL_CHARS = 240         # server text kept in a message

_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{4})[A-Za-z0-9_\-*.]{6,}")
_SPEND = re.compile(r"quota|spend(ing)? limit|credit balance|billing", re.I)
_SPEND_KINDS = ("insufficient_quota", "billing_hard_limit_reached")
# a request longer than the context window, as Anthropic, OpenAI, vLLM and LiteLLM say it
_CONTEXT = re.compile(r"prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|"
                      r"context window|contextwindowexceeded|input is too long for", re.I)


@dataclass(frozen=True)
class Hints:
    """What the person can change, used to write error messages."""

    provider: str
    model: str
    key_env: str
    base_env: str
    base_url: str


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


def error_status(body: Any) -> str:
    """The best status-like word of an error object: a numeric ``code`` ("500" or 500) wins
    over a ``type`` (LiteLLM sends both), then the type, then a word code."""
    if not isinstance(body, dict):
        return ""
    err = body.get("error", body)
    if not isinstance(err, dict):
        return ""
    code = err.get("code")
    if isinstance(code, int) and not isinstance(code, bool):
        return str(code)
    if isinstance(code, str) and code.strip().isdigit():
        return code.strip()
    kind = err.get("type") or code or ""
    return str(kind).lower() if isinstance(kind, str) else ""


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


def _context(h: Hints, status: int | None, detail: str, kind: str,
             secret: str | None) -> ProviderError | None:
    """The error for a request longer than the model's context window, else None."""
    if status not in (400, 413, None) or not (_CONTEXT.search(detail) or _CONTEXT.search(kind)):
        return None
    said = scrub(detail or kind, secret)
    error = ProviderError(h.provider, f"{h.provider}: HTTP {status or 400} the conversation is "
                          f"longer than the model's context window ({said}) — /compact it, "
                          "start a new session, or attach less", status=status or 400)
    error.context_exceeded = True
    return error


def stream_error(h: Hints, detail: str, kind: str, secret: str | None = None) -> ProviderError:
    """An error the server reported inside a stream (Anthropic ``error``, OpenAI ``{"error"}``)."""
    kind = kind.strip().lower()
    status = _STATUS_OF_KIND.get(kind) or (int(kind) if kind.isdigit() else None)
    too_long = _context(h, status, detail, kind, secret)
    if too_long is not None:
        return too_long
    if status in (400, 401, 403, 500):
        no_key = missing_key(h, status, scrub(detail, secret))
        if no_key is not None:
            return no_key
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
    # LiteLLM's and OpenRouter's kinds (LiteLLM maps exceptions to these names)
    "internal_server_error": 500, "service_unavailable": 503, "serviceunavailableerror": 503,
    "bad_request_error": 400, "badrequesterror": 400, "authenticationerror": 401,
    "permissiondeniederror": 403, "notfounderror": 404, "ratelimiterror": 429,
    "internalservererror": 500, "apiconnectionerror": 502, "timeout": 408, "timeouterror": 408,
    "contextwindowexceedederror": 400, "overloaded": 529, "provider_error": 502,
}


def response_error(h: Hints, status: int, headers: Any, raw: bytes,
                   secret: str | None) -> ProviderError:
    """The error for an answer that is not an event stream: an HTTP failure, or a 2xx body."""
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    detail, kind = error_detail(body)
    if status < 300:  # 200 but not a stream: an error object (vLLM) or a server without SSE
        code = body.get("code") if isinstance(body, dict) else None
        if detail and isinstance(code, int) and code >= 400:
            status = code
        elif detail or kind:
            status = 500 if not isinstance(code, int) else code
        else:
            ctype = headers.get("content-type", "?")
            message = (f"{h.provider}: HTTP {status} but the answer is {ctype}, "
                       f"not an event stream — check that {h.base_url} speaks this API")
            return ProviderError(h.provider, message, status=status)
    if not detail and raw:
        detail = raw.decode("utf-8", "replace")
    too_long = _context(h, status, detail, kind, secret)
    if too_long is not None:
        return too_long
    if status in (400, 401, 403, 500):
        no_key = missing_key(h, status, scrub(detail, secret))
        if no_key is not None:
            return no_key
    spend = status == 429 and (bool(_SPEND.search(detail)) or kind in _SPEND_KINDS)
    text = scrub(detail, secret)
    retryable = should_retry(status, headers, spend)
    return ProviderError(h.provider, status_message(h, status, text, spend),
                         status=status, retryable=retryable)


def transport_error(h: Hints, read_timeout: float, exc: Exception, emitted: bool,
                    httpx2: Any) -> ProviderError:
    """A connection that failed or dropped; retryable only when nothing reached the caller."""
    if isinstance(exc, (httpx2.ConnectError, httpx2.ConnectTimeout)):
        message = (f"{h.provider}: cannot connect to {h.base_url} ({type(exc).__name__}) — "
                   f"check {h.base_env} or providers.{h.provider}.base_url, and the network")
        return ProviderError(h.provider, message, retryable=True)
    kept = " — the partial answer is kept; " if emitted else " — "
    if isinstance(exc, httpx2.ReadTimeout):
        message = (f"{h.provider}: no data for {read_timeout:g} s (read timeout){kept}try "
                   f"again, or raise providers.{h.provider}.read_timeout")
    else:
        message = (f"{h.provider}: the connection dropped mid-answer ({type(exc).__name__})"
                   f"{kept}try again")
    return ProviderError(h.provider, message, retryable=not emitted)


def malformed_event(h: Hints, exc: Exception) -> ProviderError:
    """An event the protocol's decoder could not read (``exc`` is what reading it raised).

    A ``WireTypeError`` names the field; its text is edgar's own, never the server's."""
    from edgar.providers.wire import WireTypeError

    what = str(exc) if isinstance(exc, WireTypeError) else type(exc).__name__
    return ProviderError(h.provider, f"{h.provider}: the server sent an event edgar cannot "
                         f"read ({what}) — nothing from it was run; check that {h.base_url} "
                         "speaks this API")


def truncated(h: Hints, where: str) -> ProviderError:
    """A stream that ended without its protocol's end marker. Retryable: ``Connection`` retries
    it only while nothing was shown, and otherwise keeps the partial answer."""
    return ProviderError(h.provider, f"{h.provider}: the stream ended {where} (truncated) — "
                         "any partial answer is kept; try again", retryable=True)


# A body that says no key was sent, whatever the status (LiteLLM and other proxies answer
# 401, 403 or even 500): retrying cannot help; the person must set the variable.
_NO_KEY = re.compile(r"(no|missing|without( an?)?|didn'?t provide( an?)?|must (be )?(set|"
                     r"provide)( an?)?) (valid )?(api[ _-]?key|x-api-key|authorization|"
                     r"bearer token|credentials)|api[ _-]?key (is )?(required|missing|not "
                     r"(set|provided|found))|(api_key|api key) client option must be set", re.I)


def missing_key(h: Hints, status: int, detail: str) -> ProviderError | None:
    """The error for a body that says no API key reached the server, else None."""
    if not _NO_KEY.search(detail):
        return None
    message = (f"{h.provider}: HTTP {status} — the server says no API key was sent "
               f"({detail}); set {h.key_env} (export {h.key_env}=...) or name another variable "
               f"in providers.{h.provider}.api_key_env")
    return ProviderError(h.provider, message, status=status, retryable=False, usage_error=True)


def answer_timeout(h: Hints, timeout: float) -> ProviderError:
    """The whole answer took longer than ``timeout`` seconds (what came before it is kept)."""
    return ProviderError(h.provider, f"{h.provider}: the answer took longer than {timeout:g} s "
                         f"— the partial answer is kept; raise providers.{h.provider}.timeout")


def gave_up(failure: ProviderError, attempts: int) -> ProviderError:
    """``failure`` after ``attempts`` tries: said so, and no longer retryable."""
    return ProviderError(failure.provider, f"{failure.message} (gave up after "
                         f"{attempts} attempts)", status=failure.status,
                         retryable=False, usage_error=failure.usage_error)
