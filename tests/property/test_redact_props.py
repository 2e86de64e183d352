"""Properties of edgar.redact: idempotence on any text, no planted token survives
whatever surrounds it, and text that holds no secret comes back unchanged."""

from __future__ import annotations

import re
import string

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from edgar.redact import FAMILIES, MARK, redact
from edgar.redact.tokens import check as _check
from edgar.redact.table import RULES

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text built from the characters secrets and their surroundings are made of, with the words
# the rules look for, so the generator reaches the interesting paths often.
PIECES = st.sampled_from(
    [
        "password", "PASSWORD", "token", "api_key", "secret", "Authorization", "Bearer ", "auth",
        "=", ":", ": ", " = ", '"', "'", "\\n", "\n", " ", "://", "@", "user:",
        "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
        "ghp_", "sk-", "sk-ant-", "AKIA", "xoxb-", "eyJ", ".", "-", "_",
        "[REDACTED:", "]", "hvs.", "AIza", "$", "{", "}", "<", ">", "--", "Q~", ":AA", "-us", "NRAL",
        "name: ", "value: ", "|\n  ", '("', '", "', "</", " := ", " string = ", "https://u:",
    ]
)
TOKENISH = st.text(alphabet=string.ascii_letters + string.digits + "_-.:=/+%~$@!\"' \n\\", max_size=80)
MIXED = st.lists(st.one_of(PIECES, TOKENISH), max_size=25).map("".join)


@SETTINGS
@given(st.text(max_size=400))
def test_idempotent_on_any_text(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@SETTINGS
@given(MIXED)
def test_idempotent_on_secretish_text(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def _rule_token(draw, rule) -> tuple[str, str]:
    """A token matching `rule` and its check, and the part of it that is the secret."""
    token = draw(st.from_regex(re.compile(rule.pattern), fullmatch=True))
    m = re.fullmatch(rule.pattern, token)
    assume(m is not None)
    head = next((t for t in sorted(rule.triggers, key=len, reverse=True) if token.startswith(t)), None)
    body = token[len(head):] if head is not None and not rule.back else token
    assume(_check(rule.check, body))
    # The documented precondition of the token rules: a body run of >= 16 token characters.
    assume(re.search(r"[A-Za-z0-9_\-%+/=~]{16}", token))
    secret = m.group("s") if "s" in m.re.groupindex else token
    return token, secret


@st.composite
def planted(draw):
    rule = draw(st.sampled_from(RULES))
    token, secret = _rule_token(draw, rule)
    left = draw(st.text(max_size=60))
    right = draw(st.text(max_size=60))
    sep_left = draw(st.sampled_from([" ", "\n", '"', "'", "\t", "("]))
    sep_right = draw(st.sampled_from([" ", "\n", '"', "'", "\t", ")"]))
    return left + sep_left + token + sep_right + right, secret, rule.family


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(planted())
def test_planted_token_never_survives(case) -> None:
    text, secret, family = case
    out = redact(text)
    assert secret not in out, (family, out)
    assert redact(out) == out


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(planted(), min_size=1, max_size=4), st.text(max_size=40))
def test_idempotent_with_planted_tokens(cases, filler: str) -> None:
    text = filler.join(t for t, _, _ in cases)
    once = redact(text)
    assert redact(once) == once


# Lower-case letters, spaces and punctuation, without the words assignments are keyed on: no
# rule can fire (tokens need a digit or upper case, assignments a secret word and an operator).
SAFE = st.text(alphabet=string.ascii_lowercase + " .,;!?'\"\n()", max_size=400).filter(
    lambda s: not any(w in s for w in ("key", "secret", "token", "pass", "pwd", "auth", "cred"))
)


@SETTINGS
@given(SAFE)
def test_clean_text_is_unchanged(text: str) -> None:
    assert redact(text) == text


@SETTINGS
@given(
    st.lists(
        st.one_of(
            st.uuids().map(str),
            st.text(alphabet="0123456789abcdef", min_size=40, max_size=40),
            st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
            st.sampled_from(["commit", "sha256:", "request_id=", "id ", "etag: ", "\n", " "]),
        ),
        max_size=12,
    ).map(" ".join)
)
def test_digests_and_uuids_are_unchanged(text: str) -> None:
    assert redact(text) == text


@SETTINGS
@given(
    st.text(alphabet=string.ascii_letters + string.digits + "!#%&*+-_", min_size=8, max_size=40),
    st.text(max_size=100),
    st.text(max_size=100),
)
def test_exact_values_never_survive(secret: str, left: str, right: str) -> None:
    assume(not any(secret in MARK.format(f) for f in FAMILIES))  # ignored by design
    out = redact(left + secret + right, [secret])
    assert secret not in out
    assert redact(out, [secret]) == out


@SETTINGS
@given(st.data())
def test_every_token_of_a_rule_carries_its_trigger(data) -> None:
    """The scanners look for triggers only: a rule whose pattern admits a token without one of
    its triggers (where the rule says they sit) would silently miss it."""
    rule = data.draw(st.sampled_from(RULES))
    token = data.draw(st.from_regex(re.compile(rule.pattern), fullmatch=True))
    if rule.back:
        assert any(t in token[: rule.back + len(t)] for t in rule.triggers), (rule.family, token)
    else:
        assert any(token.startswith(t) for t in rule.triggers), (rule.family, token)
