"""PEM and PuTTY private-key blocks, edgar's own finder (gitleaks' `private-key` rule needs the
END line; a log line cut short has none).

Guarantee: `find_key_blocks` spans a block from its BEGIN line to the next END line; with no
END within 100 000 characters, the BEGIN line and the header and base64 lines that follow it
(also with `\\n` escapes, inside a JSON string or an env dump). `find_key_bodies` spans the
base64 body of a private key pasted without its BEGIN line: from a first line that starts the
DER of a private key (PKCS #1, PKCS #8, encrypted PKCS #8, SEC 1, OpenSSH's `openssh-key-v1`)
through the base64 lines that follow. A body line from the middle of a key, alone, is not told
from a certificate's and stays.
"""

from __future__ import annotations

from bisect import bisect_left

from edgar.redact.text import PRIO_TOKEN, Span, lazy

_KEY_BLOCKS = (
    (
        lazy(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
        lazy(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
    ),
    (lazy(r"PuTTY-User-Key-File-[0-9]+:"), lazy(r"Private-MAC:[ \t]*[0-9a-fA-F]+")),
)
_BLOCK_LIMIT = 100_000
_BLOCK_BODY = lazy(
    # possessive runs: a line of spaces costs one pass, never one per way to split it
    r"(?:[ \t]*+(?:\r?\n|\\r\\n|\\n)?[ \t]*+(?:[A-Za-z0-9+/=]{8,4096}|[A-Za-z-]{3,40}:[^\n\\]{0,400}))*"
)


def find_key_blocks(text: str, spans: list[Span]) -> None:
    for begin_rx, end_rx in _KEY_BLOCKS:
        ends = [(m.start(), m.end()) for m in end_rx.finditer(text)]
        covered = 0
        for b in begin_rx.finditer(text):
            if b.start() < covered:
                continue
            k = bisect_left(ends, (b.end(), 0))
            if k < len(ends) and ends[k][0] - b.end() <= _BLOCK_LIMIT:
                covered = ends[k][1]
            else:
                covered = _BLOCK_BODY.match(text, b.end()).end()
            spans.append((b.start(), covered, "private-key", PRIO_TOKEN))


# What the base64 of a private key's DER starts with. The length bytes vary (`MII??`, `MIG?`).
_B64 = "[A-Za-z0-9+/]"
_KEY_START = lazy(
    r"(?<![A-Za-z0-9+/])(?:"
    rf"MII{_B64}{{2}}[AQgw]IBAAK[BC]"  # PKCS #1 RSA, DSA: SEQUENCE { INTEGER 0, INTEGER n …
    rf"|MII{_B64}{{2}}[AQgw]IBADA"  # PKCS #8: SEQUENCE { INTEGER 0, SEQUENCE { algorithm …
    rf"|MI[GH]{_B64}AgEAMB[AM]GByqGSM49"  # PKCS #8, elliptic curves
    r"|MC4CAQAwBQYDK2Vw"  # PKCS #8, Ed25519 / X25519
    rf"|MI[GH]{_B64}MF8GCSqGSIb3DQEFDTBS|MII{_B64}{{3}}BfBgkqhkiG9w0BBQ0w"  # encrypted PKCS #8
    r"|MHcCAQEE|MIGkAgEBBD|MIHcAgEBBEI"  # SEC 1 elliptic-curve keys
    r"|b3BlbnNzaC1rZXktdjE"  # openssh-key-v1
    rf"){_B64}*={{0,2}}"
)
# Literals one of which every start above holds: text without any is not searched.
KEY_START_WORDS = (b"IBAAK", b"IBADA", b"AgEAMB", b"MC4CAQAw", b"GCSqGSIb3DQEF", b"BgkqhkiG9w0BBQ0w",
                   b"MHcCAQEE", b"AgEBBD", b"b3BlbnNzaC1rZXktdjE")


def find_key_bodies(text: str, spans: list[Span]) -> None:
    for m in _KEY_START.finditer(text):
        if m.end() - m.start() < 24:
            continue
        spans.append((m.start(), _BLOCK_BODY.match(text, m.end()).end(), "private-key", PRIO_TOKEN))
