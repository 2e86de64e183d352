"""Claude Code's ``type: "http"`` hooks: the event's JSON POSTed to the hook's URL
(https://code.claude.com/docs/en/hooks, "HTTP hooks"; ADR-0118).

Guarantees:
- One POST of the same JSON a command hook reads on stdin, ``Content-Type:
  application/json``, to exactly the configured ``url``: redirects are not followed (a 3xx
  is a non-2xx answer), so the network is reached only where the person's settings point.
  edgar makes the request itself; nothing the model wrote chooses the address.
- Header values fill ``$VAR`` and ``${VAR}`` only from the variables the hook lists in
  ``allowedEnvVars``; any other reference becomes the empty string, as in Claude Code.
- The answer, as Claude Code reads it: a 2xx with an empty body is exit 0 with no output; a
  2xx body is read like a command hook's stdout (a JSON object by the JSON contract, plain
  text as plain stdout); a non-2xx status, a connection failure or a timeout is a
  non-blocking error (``HookRun.error``) — an HTTP hook cannot block by its status code.
- At most ``OUTPUT_LIMIT`` bytes of the body are kept; a longer body is cut there.
- httpx2 is imported on the first HTTP hook, never at start-up.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from typing import Any

from edgar.hooks.process import OUTPUT_LIMIT, HookRun

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def fill(value: str, allowed: tuple[str, ...], environ: Mapping[str, str]) -> str:
    """``value`` with each ``$VAR``/``${VAR}`` replaced by its value when ``allowed`` lists it,
    else by the empty string (pure)."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return environ.get(name, "") if name in allowed else ""
    return _REF.sub(one, value)


def references(value: str) -> list[str]:
    """The variable names ``value`` refers to (pure)."""
    return [m.group(1) or m.group(2) for m in _REF.finditer(value)]


async def post_hook(url: str, payload: dict[str, Any], headers: tuple[tuple[str, str], ...],
                    allowed: tuple[str, ...], environ: Mapping[str, str],
                    timeout: float) -> HookRun:
    """POST ``payload`` to ``url``; what came back, as a ``HookRun``."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    import httpx2  # deferred: an HTTP hook is rare, start-up should not pay for it

    sent = {"Content-Type": "application/json",
            **{name: fill(value, allowed, environ) for name, value in headers}}
    data = json.dumps(payload, ensure_ascii=False, default=str).encode()

    async def talk() -> tuple[int, bytes]:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=timeout) as client, \
                client.stream("POST", url, content=data, headers=sent) as response:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk[:OUTPUT_LIMIT - len(body)]
                if len(body) >= OUTPUT_LIMIT:
                    break
            return response.status_code, bytes(body)

    try:
        status, body = await asyncio.wait_for(talk(), timeout)
    except TimeoutError:
        return HookRun(None, "", "", loop.time() - start, timed_out=True)
    except (httpx2.HTTPError, httpx2.InvalidURL, OSError, ValueError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return HookRun(0, "", "", loop.time() - start,
                       error=f"could not reach {url}: {why}")
    took = loop.time() - start
    if not 200 <= status < 300:
        return HookRun(0, "", "", took, error=f"answered HTTP {status} (not 2xx): a "
                       "non-blocking error; an HTTP hook blocks only with a 2xx JSON decision")
    return HookRun(0, body.decode("utf-8", "replace"), "", took)
