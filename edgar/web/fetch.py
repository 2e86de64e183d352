"""Fetching one URL for ``web_fetch``: edgar's own request, bounded, to checked addresses only.

Guarantees:
- Only ``http`` and ``https`` URLs; the host is resolved once per hop, every address it
  resolves to is checked (``address.refusal``), and the connection goes to the address that
  was checked (the URL is rewritten to it; ``Host`` and TLS SNI keep the name, so the
  certificate is verified against the name): a name that resolves to a private address, or
  re-resolves to one later, never reaches it. Proxy variables are ignored (a proxy would
  resolve the name again).
- Redirects are followed (at most ``MAX_REDIRECTS``) only to the same host and never from
  https to http; a redirect elsewhere ends the fetch with ``Page.redirect`` set, for the model
  to fetch (and the person to allow) on purpose.
- At most ``max_bytes`` of body are read (after content decoding, so a compressed bomb is cut
  too; ``Page.cut`` says so) and the whole fetch, redirects included, takes at most
  ``timeout`` seconds. Every failure is a ``FetchError`` with one sentence, never a traceback.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from edgar.web.address import refusal

MAX_REDIRECTS = 5
USER_AGENT = "edgar-web-fetch/1 (+a coding agent fetching a page its user asked about)"


class FetchError(Exception):
    """A fetch that did not happen or did not finish; the message is one sentence."""


@dataclass(frozen=True)
class Page:
    url: str                       # the URL the body came from (after same-host redirects)
    status: int
    content_type: str
    body: bytes
    charset: str | None = None
    cut: bool = False              # the body was longer than max_bytes
    redirect: str | None = None    # a redirect to another host, not followed


def host_of(url: str) -> str:
    """The lower-case host of ``url`` ('' when it has none)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


async def resolve(host: str, port: int, allow: Iterable[str]) -> str:
    """The one address to connect to for ``host``; FetchError when any address is refused."""
    try:
        literal = ipaddress.ip_address(host)
        found = [literal]
    except ValueError:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise FetchError(f"{host}: the name does not resolve ({exc.strerror})") from None
        found = []
        for info in infos:
            address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
            if address not in found:
                found.append(address)
    if not found:
        raise FetchError(f"{host}: the name resolves to no address")
    allow = list(allow)
    for address in found:   # one refused address refuses the name: no choosing among them
        why = refusal(host, address, allow)
        if why:
            raise FetchError(why)
    return str(found[0])


async def fetch(url: str, *, allow: Iterable[str] = (), max_bytes: int = 5 * 2**20,
                timeout: float = 30.0) -> Page:
    import httpx2

    allow = list(allow)
    try:
        async with asyncio.timeout(timeout):
            async with httpx2.AsyncClient(trust_env=False, follow_redirects=False,
                                          timeout=httpx2.Timeout(timeout)) as client:
                return await _hops(client, url, allow, max_bytes)
    except TimeoutError:
        raise FetchError(f"{url}: no complete answer within {timeout:g} s") from None
    except httpx2.HTTPError as exc:
        raise FetchError(f"{url}: {type(exc).__name__} ({_short(exc)})") from None


async def _hops(client, url: str, allow: list[str], max_bytes: int) -> Page:
    first = host_of(url)
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchError(f"{url}: only http and https URLs with a host are fetched")
        host = parts.hostname.lower()
        port = parts.port or (443 if parts.scheme == "https" else 80)
        address = await resolve(host, port, allow)
        literal = f"[{address}]" if ":" in address else address
        target = parts._replace(netloc=f"{literal}:{port}", fragment="").geturl()
        name = host if parts.port is None else f"{host}:{parts.port}"
        headers = {"host": name, "user-agent": USER_AGENT,
                   "accept": "text/html, text/markdown, text/plain, application/json;q=0.9, "
                             "image/*;q=0.8, */*;q=0.5"}
        extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
        async with client.stream("GET", target, headers=headers, extensions=extensions) as resp:
            if resp.status_code in (301, 302, 303, 307, 308) and resp.headers.get("location"):
                following = urljoin(url, resp.headers["location"])
                upgrade_only = urlsplit(following).scheme == "https" or parts.scheme == "http"
                if host_of(following) != first or not upgrade_only:
                    return Page(url, resp.status_code, "", b"", redirect=following)
                url = following
                continue
            body, cut = bytearray(), False
            async for chunk in resp.aiter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    del body[max_bytes:]
                    cut = True
                    break
            ctype = resp.headers.get("content-type", "")
            return Page(url, resp.status_code, ctype.split(";")[0].strip().lower(), bytes(body),
                        resp.charset_encoding, cut)
    raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:160] or "no detail"
