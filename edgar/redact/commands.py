"""Credentials scanners' rules miss: on a command line, in a URL's userinfo, and bare.

What this module guarantees:

* **Command lines.** The password of `-u user:pw` / `--user user:pw` / `--user=user:pw` (curl,
  wget, httpie; the user stays), of mysql's glued `-pPW` (after `mysql`, `mysqldump`,
  `mysqladmin`, `mariadb` on the same line), and of `sshpass -p PW`. A stand-in (`$PW`, `<pw>`,
  `****`) or a bare `-p` stays.
* **URL userinfo.** `https://TOKEN@host/…` loses TOKEN when it looks like a token (16
  characters or more, letters and digits); `https://user@host` keeps a user name.
* **Bare tokens.** A run of 32 to 128 of `[A-Za-z0-9_-]` standing alone, with upper- and
  lower-case letters and digits (at least 3 of each) and entropy of at least 4.5 bits per
  character, is taken for a secret: hex digests, UUIDs, identifiers and words never qualify;
  base64 in code (`+`, `/` or `=` around the run) is left alone.
"""

from __future__ import annotations

from collections import Counter

from edgar.redact.text import (
    DIGITS,
    LOWER_CHARS,
    PRIO_NAME,
    PRIO_URL,
    UPPER,
    Span,
    entropy,
    lazy,
    occurrences,
)
from edgar.redact.upstream import starts_with_keyword

_USER_FLAG = lazy(
    r"""[ \t](?:-u|--user)(?:=|[ \t]+)(?P<q>["']?)(?P<u>[^\s:"'@]{1,64}):"""
    r"""(?P<pw>[^\s"']{1,256})(?P=q)(?=\s|\Z)"""
)
_MYSQL_P = lazy(r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?"
                r"[ \t]-p(?P<pw>[^\s'\"-][^\s'\"]{0,255})")
_SSHPASS = lazy(r"\bsshpass[ \t]+-p[ \t]*(?P<q>[\"']?)(?P<pw>[^\s\"']{1,256})(?P=q)")
_USERINFO = lazy(r"://(?P<t>[A-Za-z0-9_.~%+-]{16,256})@(?=[A-Za-z0-9\[])")
# Stand-ins, as in gitleaks' curl allowlist: placeholders, references, templates, masks.
_STAND_IN = lazy(
    r"(?i:change(?:it|me)|pass(?:word)?|pwd|test|token|secret|x+|y+|\*+|\.\.\.|%s)"
    r"|\$\{?\w+\}?|\$\(.*\)|<[^>]*>?|\[[^\]]*\]?|\{\{.*|\$\{\{.*"
)


def find_command_credentials(text: str, raw: bytes, low: bytes, spans: list[Span],
                             literals: dict[bytes, list[int]] | None = None) -> None:
    """`literals`: where `-u`, `--user` and ` -p` are in the lower-cased text (`edgar.redact.scan`
    found them), else searched here."""
    if literals is None:
        literals = {w: occurrences(low, w) for w in (b"-u", b"--user", b" -p")}
    for flag in (b"-u", b"--user"):
        for i in literals.get(flag, ()):
            m = _USER_FLAG.match(text, i - 1) if i else None
            if m:
                _add(m, "basic-auth", spans)
    if literals.get(b" -p"):
        if b"mysql" in low or b"mariadb" in low:
            for m in _MYSQL_P.finditer(text):
                _add(m, "password", spans)
        if b"sshpass" in low:
            for m in _SSHPASS.finditer(text):
                _add(m, "password", spans)


def _add(m, family: str, spans: list[Span]) -> None:
    pw = m.group("pw")
    user = m.groupdict().get("u")
    if not _STAND_IN.fullmatch(pw) and pw != user and not (user or "").startswith(("<", "[", "$")):
        spans.append((m.start("pw"), m.end("pw"), family, PRIO_NAME))


def find_url_tokens(text: str, raw: bytes, spans: list[Span], at: list[int] | None = None) -> None:
    """`at`: where `://` is in the text (`edgar.redact.scan` found them), else searched here."""
    for i in occurrences(raw, b"://") if at is None else at:
        m = _USERINFO.match(text, i)
        if m:
            t = m.group("t")
            chars = set(t)
            if not chars.isdisjoint(DIGITS) and not (chars.isdisjoint(UPPER)
                                                     and chars.isdisjoint(LOWER_CHARS)):
                spans.append((m.start("t"), m.end("t"), "url-token", PRIO_URL))


# Bare tokens: a run standing alone in a token region (`upstream.find`'s: 16 token characters
# in a row, a digit or a capital, not only lower-case hex); '+' or '/' before it, or '+', '/'
# or '=' after it, make it a piece of base64.
_BARE = lazy(r"(?<![A-Za-z0-9_+/-])[A-Za-z0-9_-]{32,128}(?![A-Za-z0-9_+/=-])")


def find_bare_tokens(text: str, low: bytes, regions: list[tuple[int, int]],
                     spans: list[Span]) -> None:
    """Bare tokens, except those that start with an upstream token keyword: upstream's rule,
    entropy and allowlists have judged those (`AIzaSy…` keys Google publishes stay)."""
    for lo, hi in regions:
        if hi - lo < 32:
            continue
        for m in _BARE.finditer(text, lo, hi + 1):  # one more: the lookahead sees what ends it
            s, e = m.span()
            if s >= 1 and text[s - 1] == "\\" and text[s] in "nrt":  # "\\n<token>" in a JSON string
                s += 1
            if e - s >= 32 and _bare_token(text, s, e) and not starts_with_keyword(low, s, e):
                spans.append((s, e, "high-entropy-token", PRIO_NAME))


def _bare_token(text: str, lo: int, hi: int) -> bool:
    s = text[lo:hi]
    if s.startswith("AAAA"):  # an SSH public key, a serialized binary blob: base64 of zeros
        return False
    if len(set(s)) < 19:  # entropy >= 4.2 needs at least 19 distinct characters
        return False
    counts = Counter(s)
    digits = sum(v for c, v in counts.items() if c in DIGITS)
    up = sum(v for c, v in counts.items() if c in UPPER)
    lo_ = sum(v for c, v in counts.items() if c in LOWER_CHARS)
    if digits >= 3 and up >= 3 and lo_ >= 3:
        return entropy(s, counts) >= 4.5
    # lower case and digits (Neon, Mailgun, many hex-like keys): letters past 'f' rule out a
    # digest, few separators an identifier
    past_f = sum(v for c, v in counts.items() if "g" <= c <= "z")
    seps = counts["_"] + counts["-"]
    return up == 0 and digits >= 6 and past_f >= 6 and seps <= 2 and entropy(s, counts) >= 4.2
