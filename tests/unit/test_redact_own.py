"""edgar's own finders for what neither upstream finds (issue 24 item 1): passwords said in
prose, an AWS secret key after the word "secret", Vault unseal keys, PasswordAuthentication,
Discord and Teams webhooks, Mapbox tokens, the body of a private key pasted without its BEGIN
line — and the words, code and certificates that look like them come back byte for byte."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar.redact import FAMILIES, redact
from edgar.redact import own as own_

AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzKEYq12"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

SHAPES = [
    # prose
    (f"Authorization: bearer {JWT}", JWT),
    (f"use bearer {JWT} for the call", JWT),
    ("the password Flx9#mK2qP!z works", "Flx9#mK2qP!z"),
    ("password Flx9mK2qPz7", "Flx9mK2qPz7"),
    ("my password is Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("My password is hunter2blue", "hunter2blue"),
    ("the new password will be Zq8#wLp2, remember it", "Zq8#wLp2"),
    ("Password: Xk9mQ2pL7v", "Xk9mQ2pL7v"),
    (f"the aws secret {AWS} is in the vault", AWS),
    (f"AWS secret key {AWS}", AWS),
    (f"secret access key: {AWS}", AWS),
    # Vault
    ("Unseal Key 1: 4jYbl2CBIv6SpkKj6Hos9iD32k5RfGkLzlosrrq/JgOm",
     "4jYbl2CBIv6SpkKj6Hos9iD32k5RfGkLzlosrrq/JgOm"),
    ("Unseal Key 2: aa7fc3e1f1c2bcb6e9b5c05e3d5a0b0c3d1e7f90a2b4c6d8e0f1a3b5c7d9e1f3a5",
     "aa7fc3e1f1c2bcb6e9b5c05e3d5a0b0c3d1e7f90a2b4c6d8e0f1a3b5c7d9e1f3a5"),
    ("Recovery Key 3: 0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e",
     "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e"),
    # Code Climate, connection strings (Nosey Parker's and the URL finder's; held here too)
    ("CC_TEST_REPORTER_ID=8a7a3e0b6c9d4f1e2b5a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f",
     "8a7a3e0b6c9d4f1e2b5a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f"),
    ("mongodb+srv://app:hunter2@cluster0.ab1cd.mongodb.net/", "hunter2"),
    ("redis://:Zx9kLm2Qp7aa@redis.example.com:6379/0", "Zx9kLm2Qp7aa"),
    ("redis://default:s3cr3tPa55@redis-1234.c1.cloud.redislabs.com:12345", "s3cr3tPa55"),
    ("rediss://:p4ssw0rdX@host:6380", "p4ssw0rdX"),
    # constructors
    ('new PasswordAuthentication("user", "Pa55w0rdZ".toCharArray())', "Pa55w0rdZ"),
    ('return new PasswordAuthentication(username, "s3cretPw9".toCharArray());', "s3cretPw9"),
    # webhooks
    ("https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/abcdEFGHijklMNOPqrstUVWX",
     "abcdEFGHijklMNOPqrstUVWX"),
    ("https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz01",
     "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz01"),
    ("https://discordapp.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz01",
     "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz01"),
    ("https://chat.googleapis.com/v1/spaces/AAAAbCdEfGh/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI"
     "&token=Zx9kLm2Qp7aBcDeFgHiJkLmNoPqRsTuVwXyZ012345%3D",
     "Zx9kLm2Qp7aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"),
    ("https://contoso.webhook.office.com/webhookb2/af6c450b-f238-46fa-adf2-8a081050d5c0@aa2e9690-ed5e-4e49-a4e3-"
     "24d07b37e4ed/IncomingWebhook/fec5003413c934a9e41569c0bd3c3d9a/3e1f2a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b",
     "fec5003413c934a9e41569c0bd3c3d9a"),
    # Mapbox
    ("MAPBOX_TOKEN "
     "pk.eyJ1IjoiZ2l0aHViIiwiYSI6ImNqc2V1cjQ1MjBleHYzeW1yeGpjcnpsaTEifQ.y6yLR6ycwJ7S0Q-6kYBXmQ",
     "y6yLR6ycwJ7S0Q-6kYBXmQ"),
    ("tk.eyJ1IjoiZ2l0aHViIiwiZXhwIjoxNjUxNTUyNjU3LCJpYXQiOjE2NTE1NDkwNTd9.Ab3dE5fG7hI9jK1lM3nO5p",
     "Ab3dE5fG7hI9jK1lM3nO5p"),
    ("const t = "
     "'sk.eyJ1IjoiZ2l0aHViIiwiYSI6ImNsMHh5ejEyMzQ1Njc4OTBhYmNkZWYifQ.Qw3rTy6uIo9pAs2dFg5hJk'",
     "Qw3rTy6uIo9pAs2dFg5hJk"),
]


@pytest.mark.parametrize(("text", "secret"), SHAPES)
def test_each_shape_loses_its_secret(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out, out
    assert redact(out) == out


CLEAN = [
    "reset your password", "the password is incorrect", "Password must be at least 8 characters.",
    "password VARCHAR(255) NOT NULL", "def check_password(password, hashed):", "Enter password: ",
    "password hashing with bcrypt2", "The password is stored in /etc/app/secret.txt",
    "my password is password",
    "password --stdin", "password is required", "password.length >= 8",
    "password: str = Field(min_length=8)",
    "password: ${DB_PASSWORD}", "password is <your password>", "the password is xxxxxxxx",
    "the secret key is 0123456789abcdef0123456789abcdef01234567",  # a hex digest: no capitals
    "secret sauce: 3 tablespoons", "the unseal key 1 is lost", "PasswordAuthentication no",
    "new PasswordAuthentication(user, pw.toCharArray())", "https://discord.com/api/webhooks/{id}/{token}",
    "see https://docs.mapbox.com/help/glossary/access-token/ for pk. tokens",
    # a certificate's body is public: it stays
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ",
]


@pytest.mark.parametrize("text", CLEAN)
def test_look_alikes_stay(text: str) -> None:
    assert redact(text) == text


def test_every_own_family_can_name_a_marker() -> None:
    assert own_.FAMILIES <= FAMILIES


# The DER a private key's base64 starts with: PKCS #1 RSA, PKCS #8 RSA, Ed25519, SEC 1 EC,
# encrypted PKCS #8, OpenSSH's format.
HEADS = [
    bytes.fromhex("308204a40201000282010100"),
    bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8"),
    bytes.fromhex("302e020100300506032b657004220420"),
    bytes.fromhex("30770201010420"),
    bytes.fromhex("30820535305f06092a864886f70d01050d3052"),
    b"openssh-key-v1\x00\x00\x00\x00\x04none",
]


def _pem_lines(der: bytes) -> list[str]:
    b64 = base64.b64encode(der).decode()
    return [b64[i : i + 64] for i in range(0, len(b64), 64)]


@settings(max_examples=60, deadline=None)
@given(head=st.sampled_from(HEADS), body=st.binary(min_size=64, max_size=600),
       before=st.sampled_from(["", "here it is:\n", "  ", "key: |\n  "]),
       indent=st.sampled_from(["", "  "]))
def test_a_private_keys_body_without_its_begin_line_goes_whole(head: bytes, body: bytes,
                                                              before: str, indent: str) -> None:
    lines = _pem_lines(head + body)
    text = before + "\n".join(indent + line for line in lines) + "\nthanks"
    out = redact(text)
    assert not any(line in out for line in lines if len(line) >= 16), out
    assert out.endswith("thanks")
    one = redact("private_key=" + "".join(lines))  # on one line, as in a JSON string
    assert lines[0] not in one


HOSTILE_HEADS = ["secret", "password", "password is", "my password is ", "unseal key 1:",
                 "passwordauthentication(",
                 "discord.com/api/webhooks/1", ".webhook.office.com/webhookb2/", "pk.eyJ1Ijoi",
                 "MIIEpAIBAAK",
                 "b3BlbnNzaC1rZXktdjE", "token", "api_key", "key", "if ",
                 "-----BEGIN RSA PRIVATE KEY-----"]


@pytest.mark.timing  # asserts how long it took
@pytest.mark.parametrize("fill", [" ", "\t", " \t", "a", "A1", "=", ":"])
def test_hostile_runs_after_a_keyword_cost_no_backtracking(fill: str) -> None:
    """A keyword then 20 000 characters of one kind (the run a regex with two adjacent
    whitespace loops splits every way), and a PEM BEGIN line, a long body and a broken END
    line, repeated: redacted in well under a second, not minutes."""
    import time

    texts = [head + fill * 20_000 for head in HOSTILE_HEADS]
    texts.append(("-----BEGIN RSA PRIVATE KEY-----" + fill * 900
                  + "!-----END RSA PRIVATE KEY-----\n") * 20)
    start = time.process_time()
    for text in texts:
        redact(text)
    assert time.process_time() - start < 2.0
