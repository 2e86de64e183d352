"""Retry policy of the wire protocols: which failures are tried again, and after how long.

Guarantees:
- 408, 409, 429, 5xx (529 included) and connection errors are retryable; 400, 401, 403, 404,
  413 and a spend-limit 429 never are. A server's ``x-should-retry: true|false`` overrides the
  status (but not the never-retry list).
- The server's wait hint is honoured from ``retry-after-ms``, then ``retry-after`` (seconds or
  an HTTP date); a hint that is unreadable, negative or over ``MAX_RETRY_AFTER`` is ignored and
  our own backoff is used instead.
- Our own backoff doubles per attempt, is capped at ``MAX_BACKOFF`` and is jittered down by up
  to 25 %, never up.
- Pure: no I/O. That nothing is retried once output reached the caller is ``Connection``'s
  guarantee (``edgar.providers.http``), not this module's.
"""

from __future__ import annotations

import random
import time
from email.utils import parsedate_to_datetime
from typing import Any

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
NEVER_RETRY = frozenset({400, 401, 403, 404, 413})
MAX_BACKOFF = 8.0          # seconds; a person is waiting at the terminal
MAX_RETRY_AFTER = 60.0     # a longer server hint falls back to our own backoff


def backoff(attempt: int, base: float) -> float:
    """Delay before retry ``attempt`` (0-based): doubling, capped, with up to 25 % jitter down."""
    return float(min(base * (2 ** attempt), MAX_BACKOFF) * (1 - 0.25 * random.random()))


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
