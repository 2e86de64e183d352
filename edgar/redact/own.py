"""edgar's own keyword rules: the formats and phrasings neither gitleaks nor Nosey Parker finds
(issue 24 item 1) — a password said in a sentence, a token after `bearer` or `the secret is`,
an AWS secret key after the word "secret", Vault unseal keys in hex, `PasswordAuthentication(user,
"pw")` and `NetworkCredential(user, "pw")`, Slack (to the end of the path), \
Discord and Teams webhook URLs,
Mapbox `pk.`/`sk.`/`tk.` tokens without the word "mapbox" near them.

What this module guarantees:

* **Keyword first.** Each rule starts with a literal (case-insensitive), found in the text's
  lower-cased view by the one shared scan (`edgar.redact.scan`); the rule's regex is tried
  once, anchored, at each hit.
* **The value only.** A match's `v` group is the secret (the password, not the sentence; the
  webhook's ids and token, not its host); a `check` on it decides, so that words and code
  stay: `password reset`, `password VARCHAR(255)`, `password_hash`, `reset your password` and
  `the password is incorrect` come back byte for byte.
* **Placeholders and markers stay** (`text.placeholder`, `[REDACTED:`): `redact` stays
  idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from edgar.redact.text import (
    DIGITS,
    LOWER_CHARS,
    PRIO_TOKEN,
    UPPER,
    Span,
    lazy,
    occurrences,
    placeholder,
)

_SYMBOLS = frozenset("!@#$%^&*+=?~_-.")


def _passwordish(v: str, shortest: int) -> bool:
    """A word said to be a password that looks like one: `shortest`+ characters, a letter, and
    a digit, a symbol or a capital after its first character — never a plain word (`incorrect`,
    `hashing`), a flag, a path or a reference."""
    if len(v) < shortest or v[0] in "-/$%.@" or v.lower().startswith(("http", "www.")):
        return False
    chars = set(v)
    if chars.isdisjoint(LOWER_CHARS | UPPER):
        return False
    return not chars.isdisjoint(DIGITS | _SYMBOLS) or not set(v[1:]).isdisjoint(UPPER)


def _said(v: str) -> bool:  # "my password is hunter2", "the password was Flx9#mK2qP!z"
    return _passwordish(v, 6)


def _bare(v: str) -> bool:  # "password Flx9mK2qPz7": nothing says it is one but the shape
    return _passwordish(v, 8) and not set(v).isdisjoint(DIGITS) and ":" not in v


def _mixed(v: str) -> bool:
    """Base64 of random bytes: capitals, lower case and digits all (a hex digest is none)."""
    chars = set(v)
    return not (chars.isdisjoint(UPPER) or chars.isdisjoint(LOWER_CHARS)
                or chars.isdisjoint(DIGITS))


def _any(v: str) -> bool:
    return True


def _minted(v: str) -> bool:
    """A token's last part as a service mints it: a digit in it (`…-e039d02840a0b9379c`), never
    `…-SlackAppConfigurationAccessTokenHere`."""
    return not set(v.rsplit("-", 1)[-1]).isdisjoint(DIGITS)


_VOWELS = frozenset("aeiouyAEIOUY")


def _unword(v: str) -> bool:
    """Letters no language spells: six consonants in a row (`Flxmkqpzwv`; `strengths` has five)."""
    run = 0
    for c in v:
        run = run + 1 if c.isalpha() and c not in _VOWELS else 0
        if run >= 6:
            return True
    return False


def _said_or_unword(v: str) -> bool:  # "the password was Flxmkqpzwv" too
    return _said(v) or (len(v) >= 8 and v.isalpha() and _unword(v))


def _bare_or_unword(v: str) -> bool:  # "password Flxmkqpzwv": a password, not a word
    return _bare(v) or (len(v) >= 8 and v.isalpha() and _unword(v))


def _tokenlike(v: str) -> bool:
    """16+ characters with letters and a digit, not a reference, a path or a dotted name."""
    chars = set(v)
    return not (len(v) < 16 or chars.isdisjoint(DIGITS) or chars.isdisjoint(LOWER_CHARS | UPPER)
                or v[0] in "$%{<./" or "://" in v or (v.count(".") > 2 and not v.startswith("eyJ")))


def _tokenish(v: str) -> bool:
    """A token said in prose (`the secret is X`): token-like, with a capital or base64's `+`/`=`
    — never a word, a name in snake case, a path or a reference."""
    return _tokenlike(v) and (not set(v).isdisjoint(UPPER) or "+" in v or v.endswith("="))


def _bearer(v: str) -> bool:
    """After `bearer` a token in lower case and digits too (`5f4dcc3b…`): three digits or more."""
    return _tokenish(v) or (_tokenlike(v) and sum(c in DIGITS for c in v) >= 3)


# A password in a sentence, on the word's own line: what may stand between the word and the
# value, and the value (no brackets, quotes or commas: `password VARCHAR(255)`, `password,
# hashed`), which must end where a word ends.
_VALUE = r"(?P<v>[A-Za-z0-9!@#$%^&*+?~_][^\s\"'`<>()\[\]{},;]{4,63}?)(?=[.,;:!?)\"']?(?:\s|\Z))"


class OwnRule(NamedTuple):
    keywords: tuple[bytes, ...]
    rx: lazy
    family: str
    check: Callable[[str], bool]


RULES = (
    OwnRule((b"password",),
            lazy(r"(?i)password(?:[ \t]+(?:is|was|will[ \t]+be|would[ \t]+be|should[ \t]+be)"
                 r"|[ \t]*:)[ \t]+(?:now[ \t]+|still[ \t]+|just[ \t]+)?" + _VALUE),
            "password", _said_or_unword),
    OwnRule((b"password",), lazy(r"(?i)password[ \t]+" + _VALUE), "password", _bare_or_unword),
    # AWS's secret access key: 40 characters of base64 after the word "secret" (and "key",
    # "access key", "is", ":" or "=") — the name alone is what says so
    # (possessive runs: a run of spaces after "secret" costs one pass, never one per split)
    OwnRule((b"secret",),
            lazy(r"(?i)secret(?:[ \t_-]*+(?:access[ \t_-]*+)?key)?(?:[ \t]++(?:is|was))?[ \t]*+"
                 r"(?:[:=][ \t]*+)?[\"']?"
                 r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
            "aws-secret-access-key", _mixed),
    # a token said in prose: "bearer X", "the secret is X", "client_secret X"
    OwnRule((b"bearer",),
            lazy(r"(?i)bearer[ \t]++(?P<v>[A-Za-z0-9._~+/-]{16,512}+=*+)(?![A-Za-z0-9._~+/=-])"),
            "bearer-token", _bearer),
    OwnRule((b"secret",),
            lazy(r"(?i)secret(?:[ \t]++(?:is|was)[ \t]++|[ \t]*+[:=][ \t]*+|[ \t]++)[\"']?"
                 r"(?P<v>[A-Za-z0-9._~+/-]{16,256}+=*+)(?![A-Za-z0-9._~+/=-])"),
            "secret", _tokenish),
    # `vault operator init`: "Unseal Key 1: <base64>" (Nosey Parker's rule) or in hex
    OwnRule((b"unseal key", b"recovery key"),
            lazy(r"(?i)(?:unseal|recovery)\s+key\s+\d{1,2}\s*:\s*(?P<v>[0-9a-f]{64,80})(?![0-9a-f])"),
            "hashicorp-vault-unseal-key", _any),
    # java.net.PasswordAuthentication(user, "pw".toCharArray()) with the password written in
    OwnRule((b"passwordauthentication(",),
            lazy(r"(?i)PasswordAuthentication\(\s*[^,()\n]{1,100},\s*\"(?P<v>[^\"\\\n]{1,200})\""),
            "password", _any),
    # .NET's NetworkCredential(user, "pw"[, domain]), however the user is given
    OwnRule((b"networkcredential(",),
            lazy(r"(?i)NetworkCredential\(\s*[^,()\n]{1,100},\s*@?\"(?P<v>[^\"\\\n]{1,200})\""),
            "password", _any),
    # Slack's webhooks to the end of their path: gitleaks' rule stops after 56 characters, and a
    # workflow URL (T…/A…/<trigger id>/<secret>) is longer
    OwnRule((b"hooks.slack.com/services/", b"hooks.slack.com/workflows/",
             b"hooks.slack.com/triggers/"),
            lazy(r"(?i)hooks\.slack\.com/(?:services|workflows|triggers)/"
                 r"(?P<v>[A-Za-z0-9]{8,12}(?:/[A-Za-z0-9_-]{6,64}){2,3})"
                 r"(?![A-Za-z0-9_-])"),
            "slack-webhook-url", _any),
    # Discord's webhook URL: the id and the token after it are the credential
    OwnRule((b"discord.com/api/webhooks/", b"discordapp.com/api/webhooks/"),
            lazy(r"(?i)discord(?:app)?\.com/api/webhooks/(?P<v>[0-9]{17,20}/[A-Za-z0-9_-]{60,80})"),
            "discord-webhook-url", _any),
    # Teams' newer webhook URLs (`<tenant>.webhook.office.com/webhookb2/…`): everything after
    OwnRule((b".webhook.office.com/webhookb2/",),
            lazy(r"(?i)\.webhook\.office\.com/webhookb2/(?P<v>[0-9a-z-]{36}@[0-9a-z-]{36}/IncomingWebhook/"
                 r"[0-9a-z]{32}/[0-9a-z-]{36}(?:/[A-Za-z0-9_-]{20,80})?)"),
            "microsoft-teams-webhook", _any),
    # A JWT without its signature (`alg: none`, or cut after the payload): header and payload
    # are base64 of `{"`; gitleaks' rule wants the second dot
    OwnRule((b"eyj",),
            lazy(r"(?P<v>eyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,8000}"
                 r"(?:\.[A-Za-z0-9_-]{0,1000})?)(?![A-Za-z0-9_-])"),
            "jwt", _any),
    # Slack's legacy tokens: short numeric groups (`xoxp-523423-234243-234233-e039d0…`), which
    # gitleaks' rules (10-13 digits a group) leave
    OwnRule((b"xoxp-", b"xoxa-", b"xoxr-", b"xoxs-", b"xoxo-", b"xoxb-"),
            lazy(r"(?P<v>xox[abposr]-(?:[0-9]{1,13}-){1,4}[0-9A-Za-z]{10,64})(?![0-9A-Za-z-])"),
            "slack-token", _minted),
    # Mapbox: pk. (public), sk. (secret), tk. (temporary), then base64 of {"u":" and a signature
    OwnRule((b"pk.eyj1ijoi", b"sk.eyj1ijoi", b"tk.eyj1ijoi"),
            lazy(r"(?P<v>[pst]k\.eyJ1Ijoi[A-Za-z0-9_-]{10,400}\.[A-Za-z0-9_-]{20,100})(?![A-Za-z0-9_-])"),
            "mapbox-access-token", _any),
)
FAMILIES = frozenset(r.family for r in RULES)
# what `edgar.redact.scan` looks for
WORDS = tuple(dict.fromkeys(w for r in RULES for w in r.keywords))
_BY_WORD = tuple(tuple(r for r in RULES if w in r.keywords) for w in WORDS)


def find(text: str, low: bytes, spans: list[Span],
         hits: list[tuple[int, int]] | None = None) -> None:
    """Append the spans of every own rule's secrets in `text` (`low`: its lower-cased ASCII
    view; `hits`: (index into `WORDS`, start) of each keyword, as `edgar.redact.scan` reports
    them — found here with `bytes.find` when not given)."""
    if hits is None:
        hits = [(k, at) for k, w in enumerate(WORDS) for at in occurrences(low, w)]
    for k, at in hits:
        for rule in _BY_WORD[k]:
            m = rule.rx.match(text, at)
            if m:
                s, e = m.span("v")
                v = text[s:e]
                if rule.check(v) and not placeholder(v) and "[REDACTED:" not in v:
                    spans.append((s, e, rule.family, PRIO_TOKEN))
