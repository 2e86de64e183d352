"""PEM and PuTTY private-key blocks, edgar's own finder (gitleaks' `private-key` rule needs the
END line; a log line cut short has none).

Guarantee: `find_key_blocks` spans a block from its BEGIN line to the next END line; with no
END within 100 000 characters, the BEGIN line and the header and base64 lines that follow it
(also with `\\n` escapes, inside a JSON string or an env dump). `find_key_bodies` spans the
base64 body of a private key pasted without its BEGIN line: from a first line that starts the
DER of a private key (PKCS #1, PKCS #8, encrypted PKCS #8, SEC 1, OpenSSH's `openssh-key-v1`)
through the base64 lines that follow, and an old-style encrypted key's body from its
`Proc-Type: 4,ENCRYPTED` header on. `find_key_lines` spans lines of a PEM body on their own —
from the middle of a key, no BEGIN line near — unless they are public: inside a block whose
BEGIN or END line names no private key (a certificate, a public key, a PGP public key or
signature), or holding a certificate's or public key's DER structure (X.500 names and
extensions, validity times, a public key's BIT STRING, an RSA public exponent that ends it).
"""

from __future__ import annotations

import binascii
import re
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
    # a header line (`DEK-Info: …`) may be followed by one blank line, as an encrypted key's is
    r"(?:[ \t]*+(?:\r?\n|\\r\\n|\\n)?[ \t]*+(?:[A-Za-z0-9+/=]{8,4096}"
    r"|[A-Za-z-]{3,40}:[^\n\\]{0,400}(?:(?:\r?\n|\\r\\n|\\n)(?=[ \t]*+(?:\r?\n|\\r\\n|\\n)))?))*"
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
KEY_START_WORDS = (b"IBAAK", b"IBADA", b"AgEAMB", b"MC4CAQAw", b"GCSqGSIb3DQEF",
                   b"BgkqhkiG9w0BBQ0w", b"MHcCAQEE", b"AgEBBD", b"b3BlbnNzaC1rZXktdjE",
                   b"4,ENCRYPTED")
# An old-style encrypted key's headers without the BEGIN line: the body after them goes.
_ENCRYPTED = lazy(r"Proc-Type:[ \t]*+4,ENCRYPTED")


def find_key_bodies(text: str, spans: list[Span]) -> None:
    for m in _KEY_START.finditer(text):
        if m.end() - m.start() < 24:
            continue
        spans.append((m.start(), _BLOCK_BODY.match(text, m.end()).end(), "private-key", PRIO_TOKEN))
    for m in _ENCRYPTED.finditer(text):
        spans.append((m.start(), _BLOCK_BODY.match(text, m.end()).end(), "private-key", PRIO_TOKEN))


# --- a PEM body's lines on their own ----------------------------------------------------------

# PEM's width (RFC 7468) and OpenSSH's; a last line is shorter and may end in padding.
_WIDTHS = (64, 70)
_B64_LINE = re.compile(r"[A-Za-z0-9+/]+")
_LAST_LINE = re.compile(r"[A-Za-z0-9+/]{4,69}={0,2}")
_HEADER_LINE = re.compile(r"[A-Za-z-]{3,40}:.{0,400}")
_ARMOUR = re.compile(r"-{4,5} ?(BEGIN|END) ([A-Z0-9 ]{1,60}?) ?-{4,5}")
_WALK = 400  # lines looked at above and below a line for its block's BEGIN or END
# DER only a certificate, a CSR or a public key holds: X.500 attribute and extension OIDs
# (2.5.4.x, 2.5.29.x), UTCTime and GeneralizedTime, a BIT STRING holding a SEQUENCE (a public
# key's), an RSA public exponent with nothing (a private exponent) after it.
_PUBLIC_DER = re.compile(
    rb"\x06\x03\x55[\x04\x1d]|\x17\x0d[0-9]{12}Z|\x18\x0f[0-9]{14}Z|\x03\x82..\x00\x30\x82|\x03\x81.\x00\x30\x81"
    rb"|\x02\x03\x01\x00\x01(?:\Z|[\x30\xa3])", re.DOTALL)
_SEQUENTIAL = ("ABCDEFGH", "abcdefgh", "01234567")


def body_line(line: str) -> str | None:
    """The base64 of a PEM body line (a whole line, width 64 or 70, behind indentation, `>`,
    a diff's `+`/`-`), else None."""
    core = _content(line)
    if len(core) in _WIDTHS and _B64_LINE.fullmatch(core):
        return core
    return None


def _content(line: str) -> str:
    """A line without its indentation, a quote's `>` and a diff's `+`/`-` (base64 may start
    with `+` itself: one is a diff's only when the line is wider than a body line)."""
    core = line.rstrip(" \t\r").lstrip(" \t>")
    if core[:1] in ("+", "-") and len(core) not in _WIDTHS:
        core = core[1:].lstrip(" \t")
    return core


def find_key_lines(text: str, regions: list[tuple[int, int]],
                   spans: list[Span]) -> list[tuple[int, int]]:
    """Spans of PEM body lines of a private key on their own (see the module docstring);
    `regions`: the token regions `edgar.redact.upstream` looked at — a body line is one.
    Returns where the blocks of body lines it judged lie, public or not: judged here, as a
    whole, their lines are no bare token (a public key's line without `+` or `/` was)."""
    judged: list[tuple[int, int]] = []
    for lo, hi in regions:
        if hi - lo not in (64, 65, 70, 71) or (judged and lo < judged[-1][1]):
            continue
        start = text.rfind("\n", 0, lo) + 1
        end = text.find("\n", hi)
        end = len(text) if end < 0 else end
        core = body_line(text[start:end])
        if core is None:
            continue
        first, last, public = _block(text, start, end)
        judged.append((first, last))
        if not public and _random(core):
            spans.append((first, last, "private-key", PRIO_TOKEN))
    return judged


def outside(regions: list[tuple[int, int]], blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The regions that lie in none of `blocks` (both in order)."""
    out, k = [], 0
    for lo, hi in regions:
        while k < len(blocks) and blocks[k][1] < lo:
            k += 1
        if not (k < len(blocks) and blocks[k][0] <= lo and hi <= blocks[k][1]):
            out.append((lo, hi))
    return out


def _random(core: str) -> bool:
    chars = set(core)
    return (len(chars) >= 24 and not chars.isdisjoint("0123456789")
            and not chars.isdisjoint("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            and not chars.isdisjoint("abcdefghijklmnopqrstuvwxyz")
            and not any(s in core for s in _SEQUENTIAL))


def _block(text: str, start: int, end: int) -> tuple[int, int, bool]:
    """The run of body lines around the line at start…end — where its first body line starts,
    where its last ends — and whether it is public material."""
    lines: list[tuple[int, int, str]] = []  # start, end, base64 of each body line
    public = False
    # upward: body lines, headers and one blank line, to a BEGIN line
    s, e = start, end
    first = start
    for _ in range(_WALK):
        line = _content(text[s:e])
        core = body_line(text[s:e])
        if core is not None:
            lines.insert(0, (s, e, core))
            first = s
        elif (m := _ARMOUR.search(text, s, e)) is not None:
            public = "PRIVATE" not in m.group(2) and m.group(1) == "BEGIN"
            break
        elif not (_HEADER_LINE.fullmatch(line) or (line == "" and s != start)):
            break
        if s == 0:
            break
        e = s - 1
        s = text.rfind("\n", 0, e) + 1
    # downward: body lines and a last, shorter one, to an END line
    s, e = end + 1, end
    last = end
    for _ in range(_WALK):
        if s > len(text):
            break
        e = text.find("\n", s)
        e = len(text) if e < 0 else e
        line = _content(text[s:e])
        core = body_line(text[s:e])
        if core is not None:
            lines.append((s, e, core))
            last = e
        elif (tail := _tail(text[s:e], line)) is not None:
            lines.append((s, e, tail))
            last = e
        elif (m := _ARMOUR.search(text, s, e)) is not None:
            public = public or ("PRIVATE" not in m.group(2) and m.group(1) == "END")
            break
        else:
            break
        s = e + 1
    return first, last, public or _public_der([c for _, _, c in lines])


def _tail(raw: str, line: str) -> str | None:
    """A body's last line, read with and without a leading `+` (a diff's, or base64's own)."""
    for cand in (raw.strip(" \t\r").lstrip(">").lstrip(" \t"), line):
        if _LAST_LINE.fullmatch(cand) and _last(cand):
            return cand
    return None


def _last(line: str) -> bool:
    """A PEM body's last line, not the word after it: whole groups of four, padding or a
    character no lower-case word has."""
    return len(line) % 4 == 0 and (line.endswith("=") or not line.isalpha()
                                   or not line[1:].islower())


def _public_der(cores: list[str]) -> bool:
    if not cores or len(cores[0]) != 64:  # OpenSSH's 70: its own format, never X.509
        return False
    data = "".join(cores)
    data = data[: len(data) - len(data) % 4] if not data.endswith("=") else data
    try:
        der = binascii.a2b_base64(data)
    except binascii.Error:
        return False
    return _PUBLIC_DER.search(der) is not None
