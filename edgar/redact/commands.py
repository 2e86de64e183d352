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

from edgar.redact.upstream import starts_with_keyword
from edgar.redact.text import DIGITS, LOWER_CHARS, PRIO_NAME, PRIO_URL, UPPER, Span, entropy, lazy, table

_USER_FLAG = lazy(
    r"""[ \t](?:-u|--user)(?:=|[ \t]+)(?P<q>["']?)(?P<u>[^\s:"'@]{1,64}):(?P<pw>[^\s"']{1,256})(?P=q)(?=\s|\Z)"""
)
_MYSQL_P = lazy(r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?[ \t]-p(?P<pw>[^\s'\"-][^\s'\"]{0,255})")
_SSHPASS = lazy(r"\bsshpass[ \t]+-p[ \t]*(?P<q>[\"']?)(?P<pw>[^\s\"']{1,256})(?P=q)")
_USERINFO = lazy(r"://(?P<t>[A-Za-z0-9_.~%+-]{16,256})@(?=[A-Za-z0-9\[])")
# Stand-ins, as in gitleaks' curl allowlist: placeholders, references, templates, masks.
_STAND_IN = lazy(
    r"(?i:change(?:it|me)|pass(?:word)?|pwd|test|token|secret|x+|y+|\*+|\.\.\.|%s)"
    r"|\$\{?\w+\}?|\$\(.*\)|<[^>]*>?|\[[^\]]*\]?|\{\{.*|\$\{\{.*"
)


def find_command_credentials(text: str, raw: bytes, low: bytes, spans: list[Span]) -> None:
    for flag in (b"-u", b"--user"):
        i = raw.find(flag)
        while i >= 0:
            m = _USER_FLAG.match(text, i - 1) if i else None
            if m:
                _add(m, "basic-auth", spans)
            i = raw.find(flag, i + 2)
    if b" -p" in raw:
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


def find_url_tokens(text: str, raw: bytes, spans: list[Span]) -> None:
    i = raw.find(b"://")
    while i >= 0:
        m = _USERINFO.match(text, i)
        if m:
            t = m.group("t")
            chars = set(t)
            if not chars.isdisjoint(DIGITS) and not (chars.isdisjoint(UPPER) and chars.isdisjoint(LOWER_CHARS)):
                spans.append((m.start("t"), m.end("t"), "url-token", PRIO_URL))
        i = raw.find(b"://", i + 3)


# Bare tokens: runs of these characters, found with a literal search in a class view.
_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_B64_EDGE = frozenset("+/=")
_CLS = table([(_TOKEN_CHARS, ord("a"))], ord(" "))
_MARKS = table([(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", ord("x"))], ord(" "))
_MIN, _MAX = 32, 128
_RUN = b"a" * _MIN


def find_bare_tokens(text: str, raw: bytes, low: bytes, spans: list[Span]) -> None:
    """Bare tokens, except those that start with an upstream token keyword: upstream's rule,
    entropy and allowlists have judged those (`AIzaSy…` keys Google publishes stay)."""
    cls = raw.translate(_CLS)
    marks = raw.translate(_MARKS)
    n = len(cls)
    i = cls.find(_RUN)
    while i >= 0:
        lo = cls.rfind(b" ", 0, i) + 1
        hi = cls.find(b" ", i + _MIN)
        hi = n if hi < 0 else hi
        if lo >= 1 and text[lo - 1] == "\\" and text[lo] in "nrt":  # "\\n<token>" in JSON
            lo += 1
        if (hi - lo <= _MAX and marks.count(b"x", lo, hi) >= 6 and _bare_token(text, lo, hi)
                and not starts_with_keyword(low, lo, hi)):
            spans.append((lo, hi, "high-entropy-token", PRIO_NAME))
        if hi >= n:
            break
        i = cls.find(_RUN, hi)


def _bare_token(text: str, lo: int, hi: int) -> bool:
    if (lo and text[lo - 1] in "+/") or text[hi : hi + 1] in _B64_EDGE:
        return False  # a piece of base64 ('=' before it is an assignment, after it padding)
    s = text[lo:hi]
    if s.startswith("AAAA"):  # an SSH public key, a serialized binary blob: base64 of zeros
        return False
    if len(set(s)) < 23:  # entropy >= 4.5 needs at least 23 distinct characters
        return False
    counts = Counter(s)
    digits = sum(v for c, v in counts.items() if c in DIGITS)
    up = sum(v for c, v in counts.items() if c in UPPER)
    lo_ = sum(v for c, v in counts.items() if c in LOWER_CHARS)
    return digits >= 3 and up >= 3 and lo_ >= 3 and entropy(s, counts) >= 4.5
