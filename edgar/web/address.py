"""Which addresses ``web_fetch`` may connect to: the public internet, and what the person allowed.

Guarantees (pure functions, no I/O):
- ``refusal(host, address, allow)`` is None for a global (public) address, and for any
  address the person's ``[web] allow_hosts`` names by host name, by address or by network
  (``"127.0.0.1"``, ``"intranet.example"``, ``"10.0.0.0/8"``); otherwise one sentence saying
  why (loopback, private, link-local, …) and the setting that would allow it.
- An IPv4 address written inside IPv6 (``::ffff:127.0.0.1``, ``64:ff9b::7f00:1``) is judged as
  the IPv4 address it carries: spelling cannot turn loopback into public.
- The check is made on resolved addresses, never on the name: the caller connects to exactly
  the address that passed (no second lookup, so no rebinding between check and connect).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def carried(address: Address) -> Address:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), else itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def _kind(address: Address) -> str:
    for test, name in ((address.is_loopback, "a loopback address"),
                       (address.is_link_local, "a link-local address"),
                       (address.is_multicast, "a multicast address"),
                       (address.is_unspecified, "the unspecified address"),
                       (address.is_private, "a private address"),
                       (address.is_reserved, "a reserved address")):
        if test:
            return name
    return "not a public address"


def allowed(host: str, address: Address, allow: Iterable[str]) -> bool:
    """Whether ``allow_hosts`` names this host, this address or a network holding it."""
    host = host.lower().rstrip(".")
    for entry in allow:
        entry = entry.strip().lower().rstrip(".")
        if not entry:
            continue
        if entry == host:
            return True
        try:
            if "/" in entry:
                if carried(address) in ipaddress.ip_network(entry, strict=False) or \
                        address in ipaddress.ip_network(entry, strict=False):
                    return True
            elif ipaddress.ip_address(entry) in (address, carried(address)):
                return True
        except ValueError:
            continue   # a host name that is not this one
    return False


def refusal(host: str, address: Address, allow: Iterable[str]) -> str | None:
    """None when ``web_fetch`` may connect to ``address`` (which ``host`` resolved to)."""
    allow = list(allow)
    if allowed(host, address, allow):
        return None
    real = carried(address)
    if real.is_global:
        return None
    said = f"{host} ({address})" if host != str(address) else str(address)
    return (f"{said} is {_kind(real)}; web_fetch reaches only public addresses unless "
            f'[web] allow_hosts names it (allow_hosts = ["{host}"])')
