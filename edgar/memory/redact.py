"""Secret redaction for every line edgar writes to disk (design §3 invariant 6).

What `redact()` guarantees:

* **Exact values.** Every occurrence of a value passed in `secrets` (layer a: the values of
  environment variables and config keys whose names look secret, see `secret_values`) becomes
  `[REDACTED:env-secret]`, longest value first. Values shorter than 4 characters are ignored:
  they would redact ordinary words.
* **Token families.** Tokens of the families in `secret_rules.RULES` (layer b: AWS, GitHub,
  GitLab, Slack, OpenAI, Anthropic, Stripe … well over a hundred services), JWTs, PEM and PuTTY
  private-key blocks (the whole block), the password of `scheme://user:password@host` (scheme,
  user and host are kept), and values assigned to secret-looking names (`password=…`,
  `"api_key": "…"`, `export GITHUB_TOKEN=…`, `Authorization: Bearer …`, `--password …`,
  `<password>…</password>`) become `[REDACTED:<family>]`, e.g. `[REDACTED:github-token]`.
* **Look-alikes stay.** Git SHAs, sha256 digests, UUIDs, base64 in code, `sk-learn`,
  `task-123`, `token_count = 42`, `password_reset_url = …`, URLs without a password are returned
  byte for byte. Hex and UUID values are redacted only when assigned to a name that says
  `api_key`/`token`/`secret`/`password`, never on their own.
* **Idempotent.** `redact(redact(x)) == redact(x)` for every `x`: a marker never matches a rule,
  and lines that gained a marker are re-checked until nothing changes.
* **Pure and fast.** No I/O, no globals mutated; everything is compiled once at import. Text is
  scanned by C-speed byte searches first and the regular expressions run only where a trigger was
  found (`bench/redact.py` reports the throughput).

`Redactor` binds a set of exact values once (the usual caller: `Redactor.from_environ()` at
start-up, then `redactor(line)` for each durable line).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache

from edgar.memory.secret_rules import (
    COMPOUND_SUFFIXES,
    DISCORD_TOKEN,
    KEY_MODIFIERS,
    NOT_COMPOUNDS,
    NOT_SECRET_AFTER,
    NOT_SECRET_BEFORE,
    NOT_SECRET_NAMES,
    PASSWORD_WORDS,
    RULES,
    SECRET_WORDS,
    SERVICES,
    TOKEN_WORDS,
    Rule,
)

__all__ = ["Redactor", "looks_secret_name", "redact", "secret_values"]

MARK = "[REDACTED:{}]"
_MARK_HEAD = "[REDACTED:"
_ENV_FAMILY = "env-secret"
_MIN_SECRET = 4  # shortest exact value redact() honours
_MIN_ENV_VALUE = 8  # shortest environment value secret_values() keeps
_FIXPOINT_ROUNDS = 4

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_WORD = _ALNUM | {"_"}
_NAME_CHARS = _WORD | {".", "-"}

# --- byte classes for the fast scans ----------------------------------------------------------
# Text is encoded to ASCII with '?' for anything else (same length, so offsets line up) and
# translated to one byte per class. Tokens live in runs of "core" characters; ≥ 16 of them in a
# row is the only place a prefixed token can be, so the regexes never see ordinary prose.
_CORE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-%+/=~"
_EXT = b".:$@!"  # can sit inside a token (JWT's '.', Telegram's ':') but do not make a run


def _table(pairs: Iterable[tuple[bytes, int]], default: int) -> bytes:
    table = bytearray([default]) * 256
    for chars, value in pairs:
        for c in chars:
            table[c] = value
    return bytes(table)


_CLS = _table([(_CORE, ord("a")), (_EXT, ord("b"))], ord(" "))
_LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))
_RUN = b"a" * 16
# A secret-looking name followed by an assignment operator (or the '>' of an XML tag); one
# literal-prefixed pattern per keyword, because `re` finds a literal prefix at memchr speed and
# an alternation of words at a tenth of it.
_TAIL = rb"""[a-z0-9_.\-]*)(?:\\{0,2}["'`])?\]?(?:[ \t]*(?::=|=>|=(?![=~>])|:(?![:/\\]))|>)"""
_KEYWORD_RX = tuple(
    re.compile(rb"(?P<n>" + kw + _TAIL) for kw in (b"key", b"secret", b"token", b"pass", b"pwd", b"auth", b"cred")
)
# Command-line flags: --password hunter2, --api-key=...
_FLAG_RX = re.compile(rb"--(?P<n>[a-z0-9-]*(?:pass|pwd|secret|token|key|auth|cred)[a-z0-9-]*)(?=[ \t=])")

# --- token rules --------------------------------------------------------------------------------
# Right boundary: the token may not run on into more letters or digits.
_RB = r"(?![A-Za-z0-9])"


class _Compiled:
    __slots__ = ("rule", "rx", "has_s")

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.rx = re.compile(rule.pattern + _RB)
        self.has_s = "s" in self.rx.groupindex


def _index_rules() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[_Compiled, ...]],
                            tuple[tuple[bytes, tuple[_Compiled, ...]], ...]]:
    head: dict[str, list[_Compiled]] = {}
    mid: dict[str, list[_Compiled]] = {}
    for rule in RULES:
        compiled = _Compiled(rule)
        for trig in rule.triggers:
            (mid if rule.back else head).setdefault(trig, []).append(compiled)
    # A hit on "sk-ant-" also tries the rules of its shorter triggers ("sk-"), longest first.
    rules_for: dict[str, tuple[_Compiled, ...]] = {}
    for trig in head:
        cands: list[_Compiled] = []
        for k in range(len(trig), 0, -1):
            for c in head.get(trig[:k], ()):
                if c not in cands:
                    cands.append(c)
        rules_for[trig] = tuple(cands)
    # Head triggers are looked up by the first two characters of each word, longest first.
    by_first2: dict[str, list[str]] = {}
    for trig in head:
        by_first2.setdefault(trig[:2], []).append(trig)
    first2 = {k: tuple(sorted(v, key=len, reverse=True)) for k, v in by_first2.items()}
    mids = tuple((t, tuple(cs)) for t, cs in mid.items())
    return first2, rules_for, mids


_FIRST2, _RULES_FOR, _MIDS = _index_rules()
# Mid triggers that follow a separator are found through the word after it (":AA" -> "AA" after
# ':'); the others sit inside a word and are looked for in the region's bytes.
_AFTER_SEP = {t[1:3]: t[0] for t, _ in _MIDS if t[0] in ":.-"}
_IN_WORD = tuple(t.encode() for t, _ in _MIDS if t[0] not in ":.-")
# Discord bot tokens start with base64 of a numeric user id: "MT" for 1…, "OT" for 9….
_DISCORD_STARTS = frozenset("MT Mj Mz ND NT Nj Nz OD OT".split())


def _starts_pattern() -> re.Pattern[bytes]:
    """Word starts whose first two characters could begin a token: one C-speed scan per region
    instead of a Python step per word."""
    firsts: dict[str, set[str]] = {}
    for two in (*_FIRST2, *_AFTER_SEP, *_DISCORD_STARTS):
        firsts.setdefault(two[0], set()).add(two[1])
    alts = "|".join(re.escape(a) + "[" + "".join(re.escape(c) for c in sorted(b)) + "]" for a, b in sorted(firsts.items()))
    return re.compile(rb"\b(?:" + alts.encode() + rb")")


_STARTS = _starts_pattern()
_DISCORD = re.compile(DISCORD_TOKEN + r"(?![A-Za-z0-9_-])")

_PEM = re.compile(
    r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----.{0,100000}?"
    r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    re.S,
)
# A block cut short (a truncated log line): the BEGIN line, header lines and base64 lines.
_PEM_OPEN = re.compile(
    r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[ \t]*(?:\r?\n|\\r\\n|\\n)?[ \t]*(?:[A-Za-z0-9+/=]{8,}|[A-Za-z-]{3,}:[^\n\\]*))*"
)
_PUTTY = re.compile(r"PuTTY-User-Key-File-[0-9]+:.{0,20000}?Private-MAC:[ \t]*[0-9a-fA-F]+", re.S)
_PUTTY_OPEN = re.compile(r"Private-Lines:[ \t]*[0-9]+(?:[ \t]*(?:\r?\n|\\r\\n|\\n)[ \t]*[A-Za-z0-9+/=]{8,})+")

_URL_CREDS = re.compile(r"://(?P<user>[^\s:/?#@'\"<>\[\]{}\\]*):(?P<pw>[^\s/?#'\"<>\\]+)@(?=[A-Za-z0-9\[])")

# --- assignments ----------------------------------------------------------------------------------
_NAME_FWD = re.compile(r"[A-Za-z0-9_.-]*")
_ASSIGN = re.compile(r"\\{0,2}[\"'`]?\]?[ \t]*(?P<op>:=|=>|=(?![=~>])|:(?![:/\\]))[ \t]*")
_FLAG_SEP = re.compile(r"(?:=|[ \t]+)")
_VALUE = re.compile(
    r"""(?P<scheme>(?i:bearer|basic|token|bot|digest|apikey|api-key|ssws|oauth|jwt)[ \t]+(?=[^\s]))?
    (?:[rRbBuUfF]{1,2}(?=["']))?
    (?:\\"(?P<v1>[^"\n]{0,2000}?)\\"
      |"(?P<v2>(?:[^"\\\n]|\\.){0,2000})"
      |'(?P<v3>(?:[^'\\\n]|\\.){0,2000})'
      |`(?P<v4>[^`\n]{0,2000})`
      |(?P<v5>[^\s'"`,;&|()\[\]{}<>\\]{1,2000}))""",
    re.X,
)
_XML_VALUE = re.compile(r">(?P<v>[^<\n]{1,500})</")
_BEARER = re.compile(r"[ \t]+(?P<v>[A-Za-z0-9._~+/-]{12,}=*)")
_SCHEME_IN_QUOTES = re.compile(r"(?i:bearer|basic|token|bot|digest|apikey|ssws|oauth|jwt)[ \t]+(?=\S)")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_ENV_REF = re.compile(
    r"""\$\{?[A-Z_][A-Z0-9_]*\}?|\$\(.*|\$\{.*|\{\{.*|<.*>|%[A-Za-z_][A-Za-z0-9_]*%|%s|%\(\w+\)s
    |\{[A-Za-z_][A-Za-z0-9_.]*\}|[*xX•.#?_-]+|@Microsoft\..*|ref\+.*|!Ref.*|!Sub.*
    |(?:os\.environ|os\.getenv|process\.env|ENV\[|getenv\(|env\(|secrets\.|vault:|ssm:).*""",
    re.X,
)
_CODE_REF = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|->|::)[A-Za-z_$][A-Za-z0-9_$]*)*")
_CODE_WORDS = frozenset(
    "none null nil true false undefined yes no on off self this cls required optional str string"
    " bytes int bool boolean float number object any dict list secretstr secret_str char void"
    " password text hidden".split()
)
_SECRETISH = ("pass", "pwd", "secret", "token", "key", "auth", "cred")
_HEX_OR_UUID = re.compile(r"[0-9a-fA-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


# --- small helpers ----------------------------------------------------------------------------------


def _left_ok(text: str, i: int) -> bool:
    if i == 0 or text[i - 1] not in _WORD:
        return True
    return i >= 2 and text[i - 2] == "\\" and text[i - 1] in "nrt"


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def _mixed(s: str) -> bool:
    """A digit, or both cases: never true of ordinary lower-case (or upper-case) words."""
    has_up = has_lo = False
    for c in s:
        if "0" <= c <= "9":
            return True
        if "A" <= c <= "Z":
            has_up = True
        elif "a" <= c <= "z":
            has_lo = True
    return has_up and has_lo


def _random(s: str) -> bool:
    """Stricter than `_mixed`: letters and digits, or a real mix of cases, with high entropy."""
    digits = sum(c.isdigit() for c in s)
    up = sum("A" <= c <= "Z" for c in s)
    lo = sum("a" <= c <= "z" for c in s)
    if digits and (up or lo):
        return _entropy(s) >= 3.0
    if up and lo:  # CamelCaseWords have few capitals; random text has about half
        return min(up, lo) >= 0.25 * (up + lo) and _entropy(s) >= 3.5
    return False


def _check(kind: str | None, body: str) -> bool:
    if kind is None:
        return True
    if kind == "mixed":
        return _mixed(body)
    if kind == "random":
        return _random(body)
    if kind == "hexfree":
        return _mixed(body) and any(c.isalpha() and c.lower() > "f" for c in body)
    if kind == "digit":
        return any(c.isdigit() for c in body)
    if kind == "percent":
        return "%" in body and _mixed(body)
    raise ValueError(f"unknown check {kind!r}")


# --- names --------------------------------------------------------------------------------------------


def _parts(name: str) -> list[str]:
    return [p.lower() for p in _CAMEL.findall(name)]


def _word_kind(part: str) -> str | None:
    if part in PASSWORD_WORDS:
        return "password"
    if part in SECRET_WORDS:
        return "secret"
    if part in TOKEN_WORDS:
        if part.endswith("key"):
            return "key"
        if part.startswith(("cred", "credential")):
            return "credential"
        return "token"
    if part == "key":
        return "key"
    if part not in NOT_COMPOUNDS and len(part) > 6:
        for suffix in COMPOUND_SUFFIXES:
            if part.endswith(suffix):
                return {"secret": "secret", "token": "token"}.get(suffix, "password")
    return None


@lru_cache(maxsize=4096)
def _classify(name: str) -> tuple[str, str] | None:
    """(strength, family) for a name whose value is a secret, else None.

    strength: "always" (password/secret: any literal value is redacted), "strong" (token, api
    key: redacted when it looks like a token) or "weak" (a bare `key`: only random-looking,
    non-hex values).
    """
    bare = name.strip("-_.$@ ")
    if not bare or bare.lower() in NOT_SECRET_NAMES:
        return None
    parts = _parts(bare)
    hit = None
    for i in range(len(parts) - 1, -1, -1):
        kind = _word_kind(parts[i])
        if kind:
            hit = (i, kind)
            break
    if hit is None:
        return None
    i, kind = hit
    after, before = parts[i + 1 :], parts[:i]
    if any(p in NOT_SECRET_AFTER for p in after):
        return None
    if before and before[-1] in NOT_SECRET_BEFORE:
        return None
    if before and before[0] in NOT_SECRET_BEFORE and before[0] in {
        "is", "has", "use", "uses", "require", "requires", "enable", "enabled", "disable", "show",
        "hide", "allow", "validate", "check", "get", "set", "verify", "generate", "with",
        "without", "no", "skip", "need", "needs", "should", "can", "must", "save", "load", "read",
        "parse", "encode", "decode", "format", "print", "log", "redact", "strip", "remove",
        "delete", "clear", "sample", "example", "dummy", "fake", "mock",
    }:
        return None
    lowered = bare.lower()
    service = next((s for s in SERVICES if s in parts or (len(s) > 4 and s in lowered)), None)
    if kind == "key":
        modifier = before[-1] if before and before[-1] in KEY_MODIFIERS else None
        strong = parts[i] != "key" or modifier is not None or service is not None
        strength = "strong" if strong else "weak"
        if "secret" in before or parts[i] == "secretkey":
            family = "secret-key"
        elif modifier in ("access", "private", "encryption", "signing", "master", "license"):
            family = f"{modifier}-key"
        else:
            family = "api-key"
    elif kind in ("password", "secret"):
        strength, family = "always", kind
        if parts[i] == "pwd" and len(parts) == 1:
            strength = "weak"  # a bare `pwd` is as often a working directory
    else:
        strength, family = "strong", kind
    if service:
        family = f"{service.replace('_', '')}-{family.replace('api-', '')}"
    return strength, family


def looks_secret_name(name: str) -> bool:
    """True for names whose values are secrets: OPENAI_API_KEY, DB_PASSWORD, GITHUB_TOKEN,
    client_secret, AUTH, KEY. False for KEYBOARD_LAYOUT, TOKEN_COUNT, PASSWORD_STORE_DIR,
    SSH_AUTH_SOCK, public_key, PWD."""
    cls = _classify(name)
    return cls is not None and not (cls[0] == "weak" and name.strip("-_.").lower() == "pwd")


def secret_values(environ: Mapping[str, str], extra: Iterable[str] = ()) -> tuple[str, ...]:
    """Values of the secret-looking variables in `environ` (8 characters or more: shorter ones
    would redact ordinary words), plus `extra`; longest first, without duplicates."""
    found = {v for k, v in environ.items() if looks_secret_name(k) and len(v) >= _MIN_ENV_VALUE}
    found.update(v for v in extra if v)
    return tuple(sorted(found, key=lambda v: (-len(v), v)))


# --- values ----------------------------------------------------------------------------------------------


def _looks_like_token(v: str, min_len: int) -> bool:
    if len(v) < min_len or any(c.isspace() for c in v):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_up = any("A" <= c <= "Z" for c in v)
    has_lo = any("a" <= c <= "z" for c in v)
    symbols = any(c in "+/=!@#$%^&*~" for c in v)
    if not ((has_digit and (has_up or has_lo)) or (has_up and has_lo) or (symbols and (has_up or has_lo))):
        return False
    return len(set(v)) > 3


def _weak_ok(v: str) -> bool:
    """A bare `key = …` holds a secret only if the value is long, random and not a digest."""
    if len(v) < 16 or _HEX_OR_UUID.fullmatch(v) or "://" in v:
        return False
    if "/" in v and any(c in v for c in "._-"):  # a path, not base64
        return False
    if v.count(".") >= 1 and _CODE_REF.fullmatch(v):  # module.attr, host.name
        return False
    return _looks_like_token(v, 16) and any(c.isdigit() for c in v) and _entropy(v) >= 3.2


def _placeholder(v: str) -> bool:
    return (
        not v
        or v.startswith(_MARK_HEAD)
        or v.lower() in _CODE_WORDS
        or _ENV_REF.fullmatch(v) is not None
    )


def _sentence(v: str) -> bool:
    if " " not in v:
        return False
    stripped = v.rstrip()
    return stripped[-1:] in ".:!?…" or (v.count(" ") >= 2 and v[:1].isupper() and v[1:2].islower())


def _code_ref(v: str, nxt: str) -> bool:
    if not _CODE_REF.fullmatch(v):
        return False
    low = v.lower()
    return (
        (nxt != "" and nxt in "([") or "." in v or "->" in v or "::" in v or low in _CODE_WORDS
        or any(w in low for w in _SECRETISH)
    )


def _value_span(strength: str, text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """The span of the secret inside an assignment's value, or None to leave it."""
    for g, quoted in (("v1", True), ("v2", True), ("v3", True), ("v4", True), ("v5", False)):
        v = m.group(g)
        if v is not None:
            start, end = m.span(g)
            break
    else:
        return None
    if quoted and not m.group("scheme"):
        sm = _SCHEME_IN_QUOTES.match(v)
        if sm:  # "Bearer abc…": keep the scheme word
            start += sm.end()
            v = v[sm.end() :]
    if _placeholder(v):
        return None
    nxt = text[end : end + 1]
    if strength == "always":
        if quoted:
            return None if _sentence(v) else (start, end)
        if len(v) < 3 or _code_ref(v, nxt):
            return None
        return start, end
    if not quoted and _code_ref(v, nxt) and not any(c.isdigit() for c in v):
        return None
    if strength == "strong":
        return (start, end) if _looks_like_token(v, 8) else None
    if strength == "weak":
        return (start, end) if _weak_ok(v) else None
    return None


# --- the redactor -------------------------------------------------------------------------------------

_Span = tuple[int, int, str, int]  # start, end, family, priority
_PRIO_TOKEN, _PRIO_URL, _PRIO_ENV, _PRIO_NAME = 3, 2, 1, 0


def _clean_secrets(values: Iterable[str]) -> tuple[str, ...]:
    # A value inside a marker ("REDACTED", "github-token") would make redaction non-idempotent.
    markers = "\n".join(MARK.format(r.family) for r in RULES) + MARK.format(_ENV_FAMILY)
    keep = {v for v in values if isinstance(v, str) and len(v) >= _MIN_SECRET and v not in markers}
    return tuple(sorted(keep, key=lambda v: (-len(v), v)))


class Redactor:
    """`redact()` bound to a fixed set of exact secret values; call it on each durable line."""

    __slots__ = ("_secrets",)

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = _clean_secrets(secrets)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> Redactor:
        return cls(secret_values(os.environ if environ is None else environ, extra))

    def __call__(self, text: str) -> str:
        out, marks = self._once(text)
        if not marks:
            return text
        return self._settle(out, marks)

    # One pass finds every span in the original text; a second look is only needed where a
    # marker now sits (a replaced neighbour can open a word boundary), so only those lines are
    # re-checked, until they stop changing.
    def _settle(self, text: str, marks: list[int]) -> str:
        pieces: list[str] = []
        pos = 0
        for mpos in marks:
            if mpos < pos:
                continue
            ls = text.rfind("\n", 0, mpos) + 1
            le = text.find("\n", mpos)
            le = len(text) if le < 0 else le
            line = text[ls:le]
            for _ in range(_FIXPOINT_ROUNDS):
                new, again = self._once(line)
                if not again:
                    break
                line = new
            pieces.append(text[pos:ls])
            pieces.append(line)
            pos = le
        pieces.append(text[pos:])
        return "".join(pieces)

    def _once(self, text: str) -> tuple[str, list[int]]:
        spans = self._find(text)
        if not spans:
            return text, []
        spans.sort()
        merged: list[list] = []
        for s, e, fam, prio in spans:
            if merged and s < merged[-1][1]:
                last = merged[-1]
                if (e - s, prio) > (last[3], last[4]):
                    last[2], last[3], last[4] = fam, e - s, prio
                last[1] = max(last[1], e)
            else:
                merged.append([s, e, fam, e - s, prio])
        pieces: list[str] = []
        marks: list[int] = []
        pos = out_len = 0
        for s, e, fam, _, _ in merged:
            chunk = text[pos:s]
            pieces.append(chunk)
            out_len += len(chunk)
            marks.append(out_len)
            marker = MARK.format(fam)
            pieces.append(marker)
            out_len += len(marker)
            pos = e
        pieces.append(text[pos:])
        return "".join(pieces), marks

    def _find(self, text: str) -> list[_Span]:
        spans: list[_Span] = []
        for v in self._secrets:
            i = text.find(v)
            while i >= 0:
                spans.append((i, i + len(v), _ENV_FAMILY, _PRIO_ENV))
                i = text.find(v, i + len(v))
        raw = text.encode("ascii", "replace")  # same length as text: one '?' per other character
        if b"PRIVATE KEY" in raw or b"PuTTY-User-Key-File" in raw:
            _find_key_blocks(text, spans)
        _find_tokens(text, raw, spans)
        low = raw.translate(_LOWER)
        _find_assignments(text, low, spans)
        if b"://" in raw:
            _find_url_passwords(text, raw, spans)
        return spans


def _find_key_blocks(text: str, spans: list[_Span]) -> None:
    # The complete block first; the open form catches a block whose END line was cut off.
    for rx in (_PEM, _PEM_OPEN, _PUTTY, _PUTTY_OPEN):
        for m in rx.finditer(text):
            spans.append((m.start(), m.end(), "private-key", _PRIO_TOKEN))


def _find_tokens(text: str, raw: bytes, spans: list[_Span]) -> None:
    cls = raw.translate(_CLS)
    n = len(cls)
    find, rfind = cls.find, cls.rfind
    i = find(_RUN)
    while i >= 0:
        lo = rfind(b" ", 0, i) + 1
        hi = find(b" ", i + 16)
        if hi < 0:
            hi = n
        _scan_region(text, raw, lo, hi, spans)
        if hi >= n:
            break
        i = find(_RUN, hi)


def _scan_region(text: str, raw: bytes, lo: int, hi: int, spans: list[_Span]) -> None:
    """Find the tokens in text[lo:hi], a run of token characters with no separator in it."""
    seg = raw[lo:hi]
    for trig in _IN_WORD:
        j = seg.find(trig)
        while j >= 0:
            _match_mid(text, lo, hi, lo + j, spans)
            j = seg.find(trig, j + 1)
    covered = lo
    # "\nghp_…" inside a JSON string: the backslash ends the previous region, and the token
    # starts after the escape's letter.
    if lo and text[lo - 1] == "\\" and text[lo] in "nrt" and hi - lo > 2:
        covered = _try_start(text, lo, lo + 1, hi, covered, spans)
    for w in _STARTS.finditer(raw, lo, hi):
        p = w.start()
        if p >= covered:
            covered = _try_start(text, lo, p, hi, covered, spans)


def _try_start(text: str, lo: int, p: int, hi: int, covered: int, spans: list[_Span]) -> int:
    two = text[p : p + 2]
    sep = _AFTER_SEP.get(two)
    if sep is not None and text[p - 1] == sep:
        _match_mid(text, lo, hi, p - 1, spans)
    trigs = _FIRST2.get(two)
    if trigs:
        for trig in trigs:
            if text.startswith(trig, p):
                m = _match_head(text, p, hi, trig)
                if m is not None:
                    spans.append(m)
                    return m[1]
                break
    if two in _DISCORD_STARTS:
        m = _DISCORD.match(text, p, hi)
        if m and _mixed(m.group()):
            spans.append((m.start(), m.end(), "discord-token", _PRIO_TOKEN))
            return m.end()
    return covered


def _match_mid(text: str, lo: int, hi: int, j: int, spans: list[_Span]) -> None:
    """A mid trigger starts at j: find the token around it."""
    for trig, cands in _MIDS:
        if not text.startswith(trig, j):
            continue
        for c in cands:
            m = _search_covering(c, text, max(lo, j - c.rule.back), j, hi)
            if m:
                s, e = m.span("s") if c.has_s else m.span()
                spans.append((s, e, c.rule.family, _PRIO_TOKEN))
                return


def _match_head(text: str, p: int, hi: int, trig: str) -> _Span | None:
    for c in _RULES_FOR[trig]:
        m = c.rx.match(text, p, hi)
        if m and _check(c.rule.check, m.group()[len(trig) :]):
            s, e = m.span("s") if c.has_s else m.span()
            return (s, e, c.rule.family, _PRIO_TOKEN)
    return None


def _search_covering(c: _Compiled, text: str, start: int, p: int, hi: int) -> re.Match[str] | None:
    pos = start
    while True:
        m = c.rx.search(text, pos, hi)
        if m is None or m.start() > p:
            return None
        if m.end() > p and _left_ok(text, m.start()) and _check(c.rule.check, m.group()):
            return m
        pos = m.start() + 1


def _find_url_passwords(text: str, raw: bytes, spans: list[_Span]) -> None:
    i = raw.find(b"://")
    while i >= 0:
        m = _URL_CREDS.match(text, i)
        if m:
            pw = m.group("pw")
            if not _placeholder(pw):
                spans.append((m.start("pw"), m.end("pw"), "url-password", _PRIO_URL))
        i = raw.find(b"://", i + 3)


def _find_assignments(text: str, low: bytes, spans: list[_Span]) -> None:
    seen: set[int] = set()  # name starts already judged: `secret_key` holds two keywords
    for rx in _KEYWORD_RX:
        for m in rx.finditer(low):
            _judge_name(text, m.start(), m.end("n"), seen, spans)
    for m in _FLAG_RX.finditer(low):
        _judge_name(text, m.start() + 2, m.end("n"), seen, spans)


def _judge_name(text: str, p: int, ne: int, seen: set[int], spans: list[_Span]) -> None:
    ns = p
    floor = max(0, p - 100)
    while ns > floor and text[ns - 1] in _NAME_CHARS:
        ns -= 1
    if ns in seen:
        return
    seen.add(ns)
    if text.startswith(_MARK_HEAD, ns - len(_MARK_HEAD)):
        return  # the family inside a marker, not a name
    span = _assignment_value(text, ns, ne, text[ns:ne])
    if span:
        spans.append(span)


def _assignment_value(text: str, ns: int, ne: int, name: str) -> _Span | None:
    cls = _classify(name)
    if cls is None:
        return None
    strength, family = cls
    if ns > 0 and text[ns - 1] == "<" and text.startswith(">", ne):  # <password>…</password>
        m = _XML_VALUE.match(text, ne)
        if m and not _placeholder(m.group("v").strip()):
            return m.start("v"), m.end("v"), family, _PRIO_NAME
        return None
    a = _ASSIGN.match(text, ne)
    if a is None and name.startswith("-"):  # --password hunter2
        a = _FLAG_SEP.match(text, ne)
    if a is None:
        if name.lower() == "bearer":
            b = _BEARER.match(text, ne)
            if b and _looks_like_token(b.group("v"), 12):
                return b.start("v"), b.end("v"), "bearer-token", _PRIO_NAME
        return None
    v = _VALUE.match(text, a.end())
    if v is None:
        return None
    if a.groupdict().get("op") == ":" and (v.group("v5") or "").lower() in _CODE_WORDS:
        return None  # a type annotation: `password: str`
    span = _value_span(strength, text, v)
    if span is None:
        return None
    if v.group("scheme"):
        scheme = v.group("scheme").strip().lower()
        family = "basic-auth" if scheme == "basic" else "bearer-token" if scheme == "bearer" else family
    return span[0], span[1], family, _PRIO_NAME


@lru_cache(maxsize=16)
def _cached(secrets: tuple[str, ...]) -> Redactor:
    return Redactor(secrets)


_PLAIN = Redactor()


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every secret replaced by `[REDACTED:<family>]` (see the module docstring)."""
    if not text:
        return text
    if secrets:
        return _cached(tuple(secrets))(text)
    return _PLAIN(text)
