"""Secret redaction for every byte edgar writes to disk (design §3 invariant 6).

What `redact()` guarantees:

* **Exact values.** Every occurrence of a value passed in `secrets` (the values of environment
  variables and config keys whose names look secret, see `secret_values`) becomes
  `[REDACTED:env-secret]`, longest value first. Values shorter than 4 characters are ignored.
* **Upstream token rules.** Tokens gitleaks' default rules find (`edgar.redact.upstream`,
  pinned in `gitleaks_rules.json`, ADR 0030) become `[REDACTED:<rule id>]`, e.g.
  `[REDACTED:github-pat]` — also glued to a word on their left (`creds_AKIA…`, `%20ghp_…`).
* **What scanners miss.** Values assigned to secret-looking names, also unquoted
  (`DB_PASSWORD=MySecret2024`), env-dump lines, command-line credentials (`curl -u user:pw`,
  `mysql -pPW`), URL passwords and userinfo tokens, PEM and PuTTY key blocks (whole, also cut
  short), bare high-entropy tokens.
* **Look-alikes stay.** Git SHAs, sha256 digests, UUIDs, base64 in code, `password` as a word
  (`get_password_hash`, `docs/password-reset.md`), placeholders come back byte for byte.
* **Idempotent.** `redact(redact(x)) == redact(x)` for every `x`: no rule matches a marker, and
  a line that gained a marker is checked again until it stops changing.
* **Pure.** No I/O, no state; every pattern is compiled once, on first use
  (`bench/redact.py` reports the throughput, `bench/redact_quality.py` recall and false
  positives).

`Redactor` binds a set of exact values once: `Redactor.from_environ()` at start-up, then
`redactor(line)` for each durable line. This module merges the spans every finder reports into
markers; the finders live in `upstream`, `assign`, `commands` and `blocks`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache

from edgar.redact import noseyparker, own, upstream
from edgar.redact.assign import (
    MARK_HEAD,
    OPERATOR_BYTES,
    find_assignments,
    find_url_passwords,
)
from edgar.redact.blocks import (
    KEY_START_WORDS,
    find_key_blocks,
    find_key_bodies,
    find_key_lines,
    outside,
)
from edgar.redact.commands import (
    find_bare_tokens,
    find_command_credentials,
    find_url_tokens,
)
from edgar.redact.names import (
    NAME_KINDS,
    SERVICE_ALIASES,
    SERVICES,
    looks_secret_name,
    service_family,
)
from edgar.redact.scan import LITERALS, Shared, build, scan
from edgar.redact.text import LOWER, PRIO_ENV, Span

__all__ = ["FAMILIES", "MARK", "Redactor", "looks_secret_name", "redact", "secret_values"]

MARK = "[REDACTED:{}]"
assert MARK.startswith(MARK_HEAD), "redact_assign must know how a marker starts"
_ENV_FAMILY = "env-secret"
_MIN_SECRET = 4  # shortest exact value redact() honours
_MIN_ENV_VALUE = 8  # shortest environment value secret_values() keeps
_SETTLE_ROUNDS = 4

# Every family a marker can name: the rules', the name-based ones, and those with a service.
FAMILIES = frozenset(
    {r.id for r in upstream.load().rules}
    | {r.id for r in noseyparker.load().rules}
    | own.FAMILIES
    | {"private-key", "url-password", "url-token", "basic-auth", "bearer-token",
       "high-entropy-token", _ENV_FAMILY}
    | set(NAME_KINDS)
    | {service_family(s, k) for s in (*SERVICES, *SERVICE_ALIASES.values()) for k in NAME_KINDS}
)


def secret_values(environ: Mapping[str, str], extra: Iterable[str] = ()) -> tuple[str, ...]:
    """Values of the secret-looking variables in `environ` — 8 characters or more, shorter ones
    would redact ordinary words — plus `extra`; longest first, without duplicates."""
    found = {v for k, v in environ.items() if len(v) >= _MIN_ENV_VALUE and looks_secret_name(k)}
    found.update(v for v in extra if v)
    return tuple(sorted(found, key=lambda v: (-len(v), v)))


# --- the redactor ---------------------------------------------------------------------------------


_ALL_MARKERS = "\n".join(MARK.format(f) for f in sorted(FAMILIES))


def _clean_secrets(values: Iterable[str]) -> tuple[str, ...]:
    # A value found inside a marker ("REDACTED", "github-token") would redact the marker.
    markers = _ALL_MARKERS
    keep = {v for v in values if isinstance(v, str) and len(v) >= _MIN_SECRET and v not in markers}
    return tuple(sorted(keep, key=lambda v: (-len(v), v)))


class Redactor:
    """`redact()` bound to a fixed set of exact secret values; call it on each durable line."""

    __slots__ = ("_secrets",)

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = _clean_secrets(secrets)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None,
                     extra: Iterable[str] = ()) -> Redactor:
        return cls(secret_values(os.environ if environ is None else environ, extra))

    def __call__(self, text: str) -> str:
        if not text:
            return text
        out, marks = self._once(text)
        return self._settle(out, marks) if marks else text

    def _settle(self, text: str, marks: list[int]) -> str:
        """Check again, until they stop changing, the lines where a marker now sits."""
        pieces: list[str] = []
        pos = 0
        for mark in marks:
            if mark < pos:
                continue
            start = text.rfind("\n", 0, mark) + 1
            end = text.find("\n", mark)
            end = len(text) if end < 0 else end
            line = text[start:end]
            for _ in range(_SETTLE_ROUNDS):
                line, again = self._once(line)
                if not again:
                    break
            pieces += (text[pos:start], line)
            pos = end
        pieces.append(text[pos:])
        return "".join(pieces)

    def _once(self, text: str) -> tuple[str, list[int]]:
        """One pass: the text with every span found replaced, and where the markers start."""
        spans = self._find(text)
        if not spans:
            return text, []
        spans.sort()
        merged: list[list] = []  # start, end, family, length, priority
        for s, e, family, prio in spans:
            if merged and s < merged[-1][1]:
                last = merged[-1]
                if (e - s, prio) > (last[3], last[4]):
                    last[2:5] = family, e - s, prio
                last[1] = max(last[1], e)
            else:
                merged.append([s, e, family, e - s, prio])
        pieces: list[str] = []
        marks: list[int] = []
        pos = size = 0
        for s, e, family, _, _ in merged:
            marker = MARK.format(family)
            pieces += (text[pos:s], marker)
            size += s - pos
            marks.append(size)
            size += len(marker)
            pos = e
        pieces.append(text[pos:])
        return "".join(pieces), marks

    def _find(self, text: str) -> list[Span]:
        spans: list[Span] = []
        for v in self._secrets:
            i = text.find(v)
            while i >= 0:
                spans.append((i, i + len(v), _ENV_FAMILY, PRIO_ENV))
                i = text.find(v, i + len(v))
        raw = text.encode("ascii", "replace")  # one '?' per non-ASCII character: same offsets
        low = raw.translate(LOWER)
        # one pass for every keyword-led finder and every literal below
        hits = scan(shared_scan(), low)
        lit = hits.literals
        if b"private key" in lit or b"putty-user-key-file" in lit:
            find_key_blocks(text, spans)
        if hits.key_start:
            find_key_bodies(text, spans)
        regions = upstream.find(text, raw, low, spans, hits.context)
        blocks = find_key_lines(text, regions, spans)
        if blocks:  # a PEM body's lines were judged as a whole: none is a bare token
            regions = outside(regions, blocks)
        noseyparker.find(text, low, spans, hits.noseyparker)
        own.find(text, low, spans, hits.own)
        if any(op in raw for op in OPERATOR_BYTES):  # no operator, no assignment
            find_assignments(text, low, spans)
        urls = lit.get(b"://")
        if urls:
            find_url_passwords(text, raw, spans, urls)
            find_url_tokens(text, raw, spans, urls)
        find_command_credentials(text, raw, low, spans, lit)
        find_bare_tokens(text, low, regions, spans)
        return spans


@cache
def shared_scan() -> Shared:
    return build(noseyparker.scan_words(),
                 (upstream.context_words(), own.WORDS, tuple(w.lower() for w in KEY_START_WORDS),
                  LITERALS))


@lru_cache(maxsize=16)
def _bound(secrets: tuple[str, ...]) -> Redactor:
    return Redactor(secrets)


_PLAIN = Redactor()


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every secret replaced by `[REDACTED:<family>]` (see the module docstring)."""
    values = tuple(secrets)
    return (_bound(values) if values else _PLAIN)(text)
