"""Secrets found by where they sit: values assigned to secret-looking names, and the password
of `scheme://user:password@host`. Names are judged here too: `looks_secret_name`, re-exported by
`edgar.redact`.

What this module guarantees:

* **Names that hold a secret.** `classify(name)` splits a name into words (`apiKey` → api, key)
  and gives (strength, family) for names that hold a secret — `OPENAI_API_KEY`, `client_secret`,
  `AUTH` — and None for names that describe one: `KEYBOARD_LAYOUT`, `TOKEN_COUNT`, `max_tokens`,
  `PASSWORD_STORE_DIR`, `SSH_AUTH_SOCK`, `public_key`, `PWD`.
* **Strength decides the value.** Under `password` or `secret` any literal value goes; under
  `token`, `api_key`, `auth` a token-like one; under a bare `key` only a long random value that
  is not hex, a UUID or a path.
* **Only the value.** Name, operator, quotes and an auth scheme (`Bearer`, `Basic`: the family is
  then `bearer-token`, `basic-auth`) stay; of a URL only the password goes.
* **Stand-ins stay.** References, templates and masks (`${VAR}`, `{{ x }}`, `****`,
  `os.environ[…]`), code (`self.token`, `getpass()`), annotations (`password: str`), messages
  ("Enter your password:") and markers are never taken for a secret.
* **Bounded work.** Secret words are found by one literal-prefixed pattern each over the
  lower-cased bytes; a name is judged once and looked back at for at most 100 characters; a
  value is at most 512 characters.

Finders append `Span`s to a list; merging them and writing markers is `redact.Redactor`'s job.
"""
from __future__ import annotations

import re
from collections import Counter

from edgar.redact.names import classify
from edgar.redact.text import (
    DIGITS,
    LOWER_CHARS,
    PRIO_NAME,
    PRIO_URL,
    UPPER,
    WORD,
    Span,
    entropy,
    lazy,
    table,
)

MARK_HEAD = "[REDACTED:"  # how every marker (`redact.MARK`) starts
_SYMBOLS = frozenset("+=!@#$%^&*")
_SPACE = frozenset(" \t\n\r\f\v")
_NAME_CHARS = WORD | {".", "-"}
# The lower-cased text with each character that may be in a name as `a`, any other as a space.
_NAME_VIEW = table([("".join(sorted(_NAME_CHARS)).encode(), ord("a"))], ord(" "))

# --- assignments --------------------------------------------------------------------------------
# What may follow a secret-looking name: its closing quote or bracket, then an operator (`=`,
# `:`, and Go's, make's, PHP's and Perl's `:=` `::=` `?=` `??=` `.=` `+=` `=>`), perhaps with a
# type (`: String =`, Go's `string =`); or the key/value split of `name: API_KEY` + `value: …`,
# a call's `("API_KEY", "…")`, the '>' of an XML tag. One source for the byte scan and for the
# parse, so the two cannot drift apart.
_ASSIGN_SRC = (r"""\\{0,2}(?P<q>["'`])?\]?(?:
    [ \t]*+(?P<op>:{1,3}=|\?\??=|[.+]=|=>|=(?![=~>])"""
               r"""|:[ \t]*+(?i:string|str|&str|secretstr|charsequence)[ \t]*+=
        |:(?![:/\\]))
  | [ \t]++(?i:string|\[\]byte)[ \t]*+(?P<typed>=)
  | (?P<kv>[ \t]*+,?[ \t]*+(?:\r?\n[ \t-]*+)?["']?(?i:value)["']?[ \t]*+[:=])
  | (?P<comma>[ \t]*+,(?=[ \t]*+["']))
  | (?P<xml>>)
  )[ \t]*+""")
OPERATOR_BYTES = (b"=", b":", b">", b"--", b'",', b"',")
_WORDS = (rb"key(?!s\b)", rb"secret", rb"token(?!s\b)", rb"p(?:ass|wd)", rb"auth", rb"cred",
          rb"p(?:at|w)(?![a-z])")
# A name holding a secret word, then an assignment — not the comma of a call's ("NAME", "…"):
# names followed by a comma are mostly lists of strings (`"token123",` in minified JSON), and
# only a call's are judged (`_CALL_RX`), found from its `("` instead.
_NO_COMMA = _ASSIGN_SRC.replace(r"""  | (?P<comma>[ \t]*+,(?=[ \t]*+["']))""" + "\n", "")
assert _NO_COMMA != _ASSIGN_SRC
_KEYWORD_RX = tuple(lazy(rb"(?P<n>" + word + rb"[a-z0-9_.\-]{0,64}+)" + _NO_COMMA.encode(), re.X)
                    for word in _WORDS)
_CALL_RX = lazy(rb"""\(["'](?P<n>[a-z0-9_.\-]{1,100})["'][ \t]*,(?=[ \t]*["'])""")
_SECRET_WORD = lazy(b"|".join(_WORDS))
_FLAG_RX = lazy(
    rb"--(?P<n>[a-z0-9-]{0,40}(?:pass|pwd|secret|token|key|auth|cred)[a-z0-9-]{0,40})(?=[ \t=])"
)
_ASSIGN = lazy(_ASSIGN_SRC, re.X)
# An env dump's line: upper-case NAME at the start of a line (or after `export `), then '='.
_ENV_LINE = lazy(r"[A-Z][A-Z0-9_]*(?==)")
_ENV_START = lazy(r"(?:\A|\n|\\n|^export |\nexport )\Z")
_FLAG_SEP = lazy(r"=|[ \t]+")
_SCHEMES = "bearer|basic|token|bot|digest|negotiate|ntlm|apikey|api-key|ssws|oauth|jwt"
_VALUE = lazy(
    rf"""(?P<scheme>(?i:{_SCHEMES})[ \t]+(?=\S))?
    (?:[rRbBuUfF]{{1,2}}(?=["']))?
    (?:\\"(?P<v1>[^"\n]{{0,512}}?)\\"
      |"(?P<v2>(?:[^"\\\n]|\\.){{0,512}})"
      |'(?P<v3>(?:[^'\\\n]|\\.){{0,512}})'
      |`(?P<v4>[^`\n]{{0,512}})`
      |(?P<v5>[^\s'"`,;&|()\[\]{{}}<>\\]{{1,512}}))""",
    re.X,
)
_SCHEME_IN_QUOTES = lazy(rf"(?i:{_SCHEMES})[ \t]+(?=\S)")
_XML_VALUE = lazy(r"[ \t\r\n]*(?P<v>[^<\s][^<\n]{0,500}?)[ \t\r\n]*</")
_BLOCK_SCALAR = lazy(r"[|>][-+]?[ \t]*\r?\n[ \t]+")
_KV_NAME = lazy(r"""(?i:name)["']?[ \t]*[:=][ \t]*["']?\Z""")  # the key of name/value pairs
_PROSE_NEXT = lazy(r" [A-Za-z]")
# Values that stand for a secret without being one: references, templates, masks.
_STAND_IN = lazy(
    r"""\$\{?[A-Z_][A-Z0-9_]*\}?|\$\(.*|\$\{.*|\{\{.*|<.*>|%[A-Za-z_][A-Za-z0-9_]*%|%s|%\(\w+\)s
    |\{[A-Za-z_][A-Za-z0-9_.]*\}|[*xX•.#?_-]+|@Microsoft\..*|ref\+.*|!Ref.*|!Sub.*
    |(?:os\.environ|os\.getenv|process\.env|ENV\[|getenv\(|env\(|secrets\.|vault:|ssm:).*""",
    re.X,
)
_FILL_IN = lazy(r"(?i)\byour\b|your[_-]|[_-]here\b|replace[_-]?me|change[_-]?me|placeholder")
_CODE_REF = lazy(r"[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|->|::)[A-Za-z_$][A-Za-z0-9_$]*)*")
_CODE_WORDS = frozenset(
    "none null nil true false undefined yes no on off self this cls required optional str string"
    " bytes int bool boolean float number object any dict list secretstr char void password text"
    " hidden inherit".split()
) | frozenset(_SCHEMES.split("|"))
_SECRETISH = ("pass", "pwd", "secret", "token", "key", "auth", "cred")
_HEX_OR_UUID = lazy(r"[0-9a-fA-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


# --- values ------------------------------------------------------------------------------------


def _looks_like_token(v: str, min_len: int) -> bool:
    chars = set(v)
    if len(v) < min_len or len(chars) < 4 or not chars.isdisjoint(_SPACE):
        return False
    digit = not chars.isdisjoint(DIGITS)
    up = not chars.isdisjoint(UPPER)
    lo = not chars.isdisjoint(LOWER_CHARS)
    symbol = not chars.isdisjoint(_SYMBOLS)
    return (digit and (up or lo)) or (up and lo) or (symbol and (up or lo))


def _weak_ok(v: str) -> bool:
    """A bare `key = …` holds a secret only if the value is long, random and not a digest."""
    if len(v) < 16 or _HEX_OR_UUID.fullmatch(v) or "://" in v:
        return False
    if "/" in v and any(c in v for c in "._-"):  # a path, not base64
        return False
    if "." in v and _CODE_REF.fullmatch(v):  # module.attr, host.name
        return False
    return _looks_like_token(v, 16) and not DIGITS.isdisjoint(v) and entropy(v) >= 3.2


def _stand_in(v: str) -> bool:
    return (not v or v.startswith(MARK_HEAD) or v.lower() in _CODE_WORDS
            or _STAND_IN.fullmatch(v) is not None or _placeholder(v))


def _placeholder(v: str) -> bool:
    """`pnu_XXXXXXXX…`, `0000…TUVWXYZ`, `sha256~XXX_PUT_YOUR_TOKEN_HERE_XXX`: a value to fill in."""
    if len(v) >= 8 and Counter(v.lower()).most_common(1)[0][1] * 2 >= len(v):
        return True
    return _FILL_IN.search(v) is not None


def _sentence(v: str) -> bool:
    """A message about a password ("Enter your password:") rather than one."""
    if " " not in v:
        return False
    return v.rstrip()[-1:] in ".:!?…" or (v.count(" ") >= 2 and v[:1].isupper()
                                          and v[1:2].islower())


def _code_ref(v: str, nxt: str) -> bool:
    """An unquoted identifier that names a value in code: `password=password`, `self.token`,
    `getpass()`, `kwargs["key"]`."""
    if not _CODE_REF.fullmatch(v):
        return False
    low = v.lower()
    return (
        (nxt != "" and nxt in "([")
        or "." in v
        or "->" in v
        or "::" in v
        or low in _CODE_WORDS
        # `password=db_password` names another variable; `MySecret2024` has digits, no code does
        or (any(w in low for w in _SECRETISH) and DIGITS.isdisjoint(v))
    )


def _value_span(strength: str, text: str, m: re.Match[str]) -> tuple[int, int, str] | None:
    """Where the secret sits in an assignment's value and the auth scheme before it (`bearer`,
    `basic`, or ""), or None to leave the value as it is."""
    for group in ("v1", "v2", "v3", "v4", "v5"):
        v = m.group(group)
        if v is not None:
            start, end = m.span(group)
            break
    else:
        return None
    quoted = group != "v5"  # v1-v4 are the quoted forms
    scheme = m.group("scheme")
    if quoted and not scheme:
        inner = _SCHEME_IN_QUOTES.match(v)
        if inner:  # "Bearer abc…": the scheme word stays
            scheme = inner.group()
            start += inner.end()
            v = v[inner.end() :]
    if _stand_in(v):
        return None
    nxt = text[end : end + 1]
    scheme = (scheme or "").strip().lower()
    if strength == "always":
        if quoted:
            ok = not _sentence(v)
        else:  # "Secret: the recipe is…" is prose, "secret: hunter2" is not
            prose = v.isalpha() and v.islower() and _PROSE_NEXT.match(text, end) is not None
            ok = len(v) >= 3 and not prose and not _code_ref(v, nxt)
    elif not quoted and _code_ref(v, nxt) and DIGITS.isdisjoint(v):
        ok = False
    elif strength == "strong":
        ok = _looks_like_token(v, 8)
    else:
        ok = _weak_ok(v)
    return (start, end, scheme) if ok else None


# --- finding -----------------------------------------------------------------------------------


def find_assignments(text: str, low: bytes, spans: list[Span]) -> None:
    seen: set[int] = set()  # names already judged: `secret_key` holds two secret words
    names = low.translate(_NAME_VIEW)
    for rx in _KEYWORD_RX:
        for m in rx.finditer(low):
            _judge_name(text, names, m.start(), m.end("n"), seen, spans)
    for m in _CALL_RX.finditer(low):
        s, e = m.span("n")
        if _SECRET_WORD.search(low, s, e):
            _judge_name(text, names, s, e, seen, spans)
    for m in _FLAG_RX.finditer(low):
        _judge_name(text, names, m.start("n"), m.end("n"), seen, spans)


def _judge_name(text: str, names: bytes, p: int, ne: int, seen: set[int],
                spans: list[Span]) -> None:
    # where the name holding the keyword at p starts: after the last character before p (at
    # most 100 back) that cannot be in a name — one search of the names view, in C
    floor = p - 100 if p > 100 else 0
    ns = names.rfind(b" ", floor, p) + 1 or floor
    if ns and text[ns - 1] == "\\" and text[ns] in "nrt":  # "\napi_key=…" in a JSON string
        ns += 1
    if ns in seen:
        return
    name = text[ns:ne]
    # What follows the name first: most names a keyword starts (`"token123",` in minified
    # JSON) are no assignment, and that costs less to see than the name's words. A name
    # always ends where its keyword's match ends, so a later match of the same name (the
    # `key` of `secret_key`) would be turned away the same way.
    a = _ASSIGN.match(text, ne)
    if a is None:
        if not name.startswith("-"):
            return
    elif a.group("kv") and not _KV_NAME.search(text, max(0, ns - 12), ns):
        return  # "value" after a name that is not the key of a name/value pair
    elif a.group("comma") and not (a.group("q") and text[ns - 2 : ns] in ('("', "('")):
        return  # only a call's ("API_KEY", "…"): a list of names is not an assignment
    cls = classify(name)
    if cls is None:
        return
    seen.add(ns)
    if text.startswith(MARK_HEAD, ns - len(MARK_HEAD)):
        return  # a family inside a marker, not a name
    strength, family = cls
    env = _ENV_LINE.match(text, ns)
    if env and env.end() == ne and _ENV_START.search(text, max(0, ns - 7), ns):
        strength = "always"  # an env dump's NAME=value line: the whole value is the secret
    if a is None:
        a = _FLAG_SEP.match(text, ne)  # --password hunter2
    elif a.group("xml"):  # <password>…</password>
        x = _XML_VALUE.match(text, a.end()) if ns and text[ns - 1] == "<" else None
        if x and not _stand_in(x.group("v")):
            spans.append((x.start("v"), x.end("v"), family, PRIO_NAME))
        return
    op = a.groupdict().get("op")
    start = a.end()
    if op == ":" and (block := _BLOCK_SCALAR.match(text, start)):
        start = block.end()  # YAML `token: |` with the value on the next line
    v = _VALUE.match(text, start)
    if v is None:
        return
    if op == ":" and (v.group("v5") or "").lower() in _CODE_WORDS:
        return  # a type annotation: `password: str`
    span = _value_span(strength, text, v)
    if span is None:
        return
    start, end, scheme = span
    family = {"basic": "basic-auth", "bearer": "bearer-token"}.get(scheme, family)
    spans.append((start, end, family, PRIO_NAME))


# --- URL passwords ------------------------------------------------------------------------------
_URL_CREDS = lazy(r"://[^\s:/?#@'\"<>\[\]{}\\]{0,256}:(?P<pw>[^\s/?#'\"<>\\]{1,256})@(?=[A-Za-z0-9\[])")


def find_url_passwords(text: str, raw: bytes, spans: list[Span],
                       at: list[int] | None = None) -> None:
    """`at`: where `://` is in the text (`edgar.redact.scan` found them), else searched here."""
    for i in _all(raw, b"://") if at is None else at:
        m = _URL_CREDS.match(text, i)
        if m and not _stand_in(m.group("pw")):
            spans.append((m.start("pw"), m.end("pw"), "url-password", PRIO_URL))


def _all(raw: bytes, word: bytes) -> list[int]:
    out = []
    i = raw.find(word)
    while i >= 0:
        out.append(i)
        i = raw.find(word, i + len(word))
    return out
