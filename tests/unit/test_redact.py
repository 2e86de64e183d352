"""edgar.redact: every family is caught in prose, code, logs and JSON; look-alikes are
left byte for byte; URL passwords, key blocks and exact values; idempotence.

Fake tokens are built here from random characters of each format's alphabet, so no string in
this file is a live credential.
"""

from __future__ import annotations

import json

import pytest

from edgar.redact import FAMILIES, MARK, Redactor, looks_secret_name, redact, secret_values
from tests.support.redact_samples import (  # noqa: F401
    ALNUM,
    B64,
    DIG,
    HEX,
    LO,
    MAIN,
    SAMPLES,
    UP,
    URLSAFE,
    r,
    uuid,
)

MAIN_SAMPLES = {k: v for k, v in SAMPLES.items() if k in MAIN or k in ("url-password",)}

CONTEXTS = {
    "prose": "I pasted {} by mistake, please forget it.",
    "code": 'client = Client(conn="{}")\nclient.run()',
    "log": "2025-03-01T12:00:01Z INFO started with value={} pid=4242",
    "json": None,  # json.dumps of a dict: escapes and quotes of its own
    "line-start": "{}\nnext line",
}


def in_context(context: str, planted: str) -> str:
    if context == "json":
        return json.dumps({"prompt": "deploy with\n" + planted + "\nthanks", "n": 1})
    return CONTEXTS[context].format(planted)


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("family", list(MAIN_SAMPLES))
def test_planted_main_family_token_is_gone(family: str, context: str) -> None:
    # edgar's earlier hand-written samples (held out from the upstream rules)
    planted, secret = SAMPLES[family]()
    text = in_context(context, planted)
    out = redact(text)
    assert secret not in out, out
    assert "[REDACTED:" in out


@pytest.mark.parametrize("family", list(SAMPLES))
def test_output_is_stable(family: str) -> None:
    planted, _ = SAMPLES[family]()
    text = f"a {planted} b\n{planted}"
    once = redact(text)
    assert redact(once) == once


LOOKALIKES = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it (short: 3f78685)",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  file.tar.gz",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "sha512 cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
    "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
    "image: python@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request_id=550e8400-e29b-41d4-a716-446655440000 status=200",
    "ID: 550E8400-E29B-41D4-A716-446655440000",
    'png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5'
    'ErkJggg"',
    'data = b"H4sIAAAAAAAAA+3OMQ6CQBCF4T3KnIBmFnZhtwIYEm1JjEGN4/8fIBqr+d5kvpd5ZRLeJv0v"',
    "blob = b'SGVsbG8sIFdvcmxkISBUaGlzIGlzIGEgYmFzZTY0IGVuY29kZWQgc3RyaW5nLg=='",
    '<img src="data:image/png;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7">',
    "pip install scikit-learn; import sklearn  # sk-learn is the old name",
    "task-123 and task-4567 are done; skeleton_key = make_key()",
    "AKIA is the prefix of AWS access key ids; ghp_ is GitHub's; xoxb is Slack's.",
    "github_pat_parser = build_parser()",
    "hf_hub_download(repo_id, filename)",
    "https://github.com/openai/openai-python/blob/main/README.md?plain=1#L10",
    "https://user@github.com/org/repo.git and ssh://git@github.com:22/org/repo.git",
    "http://localhost:8080/api/v1/items?page=2&limit=50",
    "postgres://localhost:5432/app and redis://cache:6379/0",
    'password_reset_url = "https://example.com/account/reset"',
    "token_count = 42",
    "max_tokens=4096, num_tokens = len(tokens)",
    "KEYBOARD_LAYOUT=us",
    "public_key = 'ssh-ed25519 "
    "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'",
    "cache_key = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'",
    "id = Column(Integer, primary_key=True)",
    "npm install --save-dev typescript && npm run build",
    "for key, value in sorted(items, key=lambda kv: kv[1]):",
    "def login(username, password):\n    if not password:\n        return None",
    "password = getpass.getpass()\npassword: str = Field(...)",
    "connect(host, password=password, token=self.token)",
    "api_key = os.environ.get('OPENAI_API_KEY')",
    "secret_name = 'prod/db'",
    "Bearer token authentication is described in RFC 6750.",
    "The secret to good code is simplicity; the key point is tests.",
    "2025-03-01T12:00:01.123Z WARN retry 3/5 after 429 (tokens=5123) v1.2.3",
    "/home/user/projects/edgar/edgar/memory/redact.py:123",
    "AbstractSingletonProxyFactoryBean and SimpleBeanFactoryAwareAspectInstanceFactory",
    "color: #ff00aa; width: 1234px",
    "email me at jane.doe@example.com",
    'credentials: "same-origin"',
    "secrets: inherit",
    "auth: true\npassword_min_length: 12",
    'tokenizer.pad_token = tokenizer.eos_token\n{"tokens": 1234, "key": "user_settings"}',
    "xoxo, see you",
    "sig=abc and sl.something and dp.pt.",
    "the value is 4b1d3c2a4b1d3c2a4b1d3c2a4b1d3c2a4b1d3c2a (a sha that starts like ClickHouse)",
    "UPPERCASE_CONSTANT_NAME_THAT_IS_LONG = 1",
    "https://api.example.com/v1/messages?model=claude-sonnet-4-5",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA2XY9rL5mJ1uTq8cvo0yQzB3f user@host",
    "-----BEGIN CERTIFICATE-----\n"
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
    "-----END CERTIFICATE-----",
    "pod web-7d4b9c8f6d-x2x7k restarted;"
    " container 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    '"integrity":'
    ' "sha512-Y9Fmdu6aqahEUvD3J8bNlZ9WT8V6xzWpj3C7iMRtuC7LkZ1hArT2dWyK0YBJ1XiW6dGm0fS7qXb+t9Zq3A8f'
    '+A=="',
    "arn:aws:iam::123456789012:role/deploy s3://my-bucket/path/to/key.json"
    " git@github.com:org/repo.git",
    "token: ${{ secrets.GITHUB_TOKEN }}\npassword: {{ .Values.db.password }}\nAPI_KEY=$API_KEY",
    "API_KEY=your-api-key-here\nSECRET_KEY=changeme\nTOKEN=<paste your token>",
    "Tokens: 1234 in, 567 out. Token usage: 123. monkey: banana",
    "Secret: the launch date moves to May. Key: press Enter to continue.",
    "| password | required | string |",
    "pip install --require-hashes"
    " --hash=sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
]


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_are_untouched(text: str) -> None:
    assert redact(text) == text


def test_url_password_keeps_scheme_user_host() -> None:
    out = redact("DATABASE_URL=postgresql://app_user:S3cr3t-P4ss@db.example.com:5432/app?sslmode=require")
    assert out == (
        "DATABASE_URL=postgresql://app_user:[REDACTED:url-password]@db.example.com:5432/app?sslmode=require"
    )
    assert redact("redis://:pa55word@cache:6379") == "redis://:[REDACTED:url-password]@cache:6379"
    assert redact("mongodb+srv://u:p%40ss@c0.example.net/x") == (
        "mongodb+srv://u:[REDACTED:url-password]@c0.example.net/x"
    )
    # a reference to a password is not one
    assert redact("postgres://app:${DB_PASSWORD}@db/app") == "postgres://app:${DB_PASSWORD}@db/app"


def test_pem_block_is_replaced_whole() -> None:
    body = "\n".join(r(B64, 64) for _ in range(12))
    for label in ("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY",
                  "ENCRYPTED PRIVATE KEY"):
        text = f"before\n-----BEGIN {label}-----\n{body}\n-----END {label}-----\nafter"
        assert redact(text) == "before\n[REDACTED:private-key]\nafter"
    pgp = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{body}\n-----END PGP PRIVATE KEY BLOCK-----"
    assert redact(pgp) == "[REDACTED:private-key]"
    # a service-account JSON: the key sits in one line with escaped newlines
    pem = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
    sa = json.dumps({"type": "service_account", "private_key_id": r(HEX, 40), "private_key": pem})
    out = redact(sa)
    assert "BEGIN PRIVATE KEY" not in out and body.split("\n")[3] not in out
    # cut off before its END line: the BEGIN line and the base64 lines still go
    cut = f"log: -----BEGIN RSA PRIVATE KEY-----\n{body}"
    out = redact(cut)
    assert out == "log: [REDACTED:private-key]"
    # a public key is not a secret
    pub = ("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n"
           "-----END PUBLIC KEY-----")
    assert redact(pub) == pub


def test_putty_key_file() -> None:
    text = (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\n"
        f"{r(B64, 64)}\n{r(B64, 20)}\nPrivate-Lines: 1\n{r(B64, 48)}\nPrivate-MAC: {r(HEX, 64)}\n"
    )
    assert redact(text) == "[REDACTED:private-key]\n"


def test_assignment_styles() -> None:
    secret = "Zq8" + r(ALNUM, 21)
    cases = [
        (f'password = "{secret}"', 'password = "[REDACTED:password]"'),
        (f"password='{secret}'", "password='[REDACTED:password]'"),
        (f"DB_PASSWORD={secret}", "DB_PASSWORD=[REDACTED:password]"),
        (f"export GITHUB_TOKEN={secret}", "export GITHUB_TOKEN=[REDACTED:github-token]"),
        (f'{{"api_key": "{secret}"}}', '{"api_key": "[REDACTED:api-key]"}'),
        (f"secret: {secret}", "secret: [REDACTED:secret]"),
        (f"token = {secret}", "token = [REDACTED:token]"),
        (f"'client_secret' => '{secret}',", "'client_secret' => '[REDACTED:secret]',"),
        (f'apiKey := "{secret}"', 'apiKey := "[REDACTED:api-key]"'),
        (f'os.environ["OPENAI_API_KEY"] = "{secret}"',
         'os.environ["OPENAI_API_KEY"] = "[REDACTED:openai-key]"'),
        (f"--password {secret} --user bob", "--password [REDACTED:password] --user bob"),
        (f"--api-key={secret}", "--api-key=[REDACTED:api-key]"),
        (f"<password>{secret}</password>", "<password>[REDACTED:password]</password>"),
        (f"x-api-key: {secret}", "x-api-key: [REDACTED:api-key]"),
        (f"spring.datasource.password={secret}", "spring.datasource.password=[REDACTED:password]"),
        (f"Server=db;User Id=sa;Password={secret};",
         "Server=db;User Id=sa;Password=[REDACTED:password];"),
        (f"https://api.example.com/v1?access_token={secret}&page=2",
         "https://api.example.com/v1?access_token=[REDACTED:token]&page=2"),
        (f"SLACK_BOT_TOKEN={secret}", "SLACK_BOT_TOKEN=[REDACTED:slack-token]"),
        (f'"Authorization": "Bearer {secret}"',
         '"Authorization": "Bearer [REDACTED:bearer-token]"'),
    ]
    for text, expected in cases:
        assert redact(text) == expected, text


SYNTAXES = [
    '{i}Token="{s}"', "{i}Token = {s}", '{{\n    "{i}_token": "{s}"\n}}',
    '\\{{\\n    \\"{i}_token\\": \\"{s}\\"\\n\\}}',  # JSON inside a JSON string
    '{{"name": "{i}_token", "value": "{s}"}}', "- name: {I}_TOKEN\n  value: {s}",
    '{{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}}', "<{i}Token>{s}</{i}Token>",
    "<{i}Token>\n    {s}\n</{i}Token>", '<entry name="{i}Token" value="{s}" />', "{i}_token: {s}",
    "{i}_token: '{s}'", "{i}_token: |\n  {s}", 'string {i}Token = "{s}";',
    'var {i}Token string = "{s}"',
    "{i}Token := `{s}`", 'var {i}Token: String = "{s}"', '${i}Token .= "{s}"',
    '${i}Token ??= "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")', '  "{i}Token" => "{s}"', '{i}_TOKEN ::= "{s}"',
    '{i}_TOKEN ?= "{s}"', '{i}_TOKEN += "{s}"', "{{PATH=/usr/bin, {I}_PASSWORD={s}, LC_CTYPE=C}}",
    '$env:{I}_API_KEY = "{s}"', "docker run -e {I}_API_KEY={s} image", "X-{i}-Api-Key: {s}",
    "https://example.com?{i}Token={s}&page=2",
]


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_assignment_syntaxes(syntax: str) -> None:
    secret = r(ALNUM, 32)
    text = syntax.format(i="acme", I="ACME", s=secret)
    out = redact(text)
    assert secret not in out, out
    assert redact(out) == out


def test_password_values_are_redacted_even_when_plain() -> None:
    assert redact('password = "hunter2hunter2"') == 'password = "[REDACTED:password]"'
    assert redact("DB_PASSWORD=letmein") == "DB_PASSWORD=[REDACTED:password]"
    assert redact("secret: abc") == "secret: [REDACTED:secret]"
    # ... but not a prompt about one, a mask, a reference, or an empty value
    for text in ('password_prompt = "Enter your password:"', 'password = "Enter your password:"',
                 '"password": "********"', "password = ${DB_PASSWORD}", 'password = ""',
                 "password: str", 'password = os.environ["DB_PASSWORD"]', "password = None"):
        assert redact(text) == text, text


def test_json_escaped_tokens() -> None:
    tok = "ghp_" + r(ALNUM, 36)
    line = json.dumps({"text": f"first line\n{tok}\tand\t{tok}"})
    out = redact(line)
    assert tok not in out
    assert out.count("[REDACTED:github-pat]") == 2
    assert json.loads(out)["text"].startswith("first line\n[REDACTED:github-pat]")


def test_exact_secret_values_layer() -> None:
    secret = "correct horse battery staple"  # no rule would catch it on its own
    text = f"the phrase is {secret}, again: {secret}!"
    assert redact(text) == text
    assert redact(text, [secret]) == (
        "the phrase is [REDACTED:env-secret], again: [REDACTED:env-secret]!")
    # longest first: a value inside a longer one does not split it
    assert redact("abcd-efgh-ijkl", ["abcd", "abcd-efgh-ijkl"]) == "[REDACTED:env-secret]"
    # too short to honour, and values that would collide with markers, are ignored
    assert redact("an ab test", ["ab"]) == "an ab test"
    assert redact("REDACTED", ["REDACTED"]) == "REDACTED"
    assert redact("x [REDACTED:datadog-key]", ["datadog-"]) == "x [REDACTED:datadog-key]"


def test_redactor_from_environ() -> None:
    environ = {
        "OPENAI_API_KEY": "not-a-real-key-" + r(ALNUM, 20),
        "DB_PASSWORD": "hunter2-staging",
        "MY_SERVICE_TOKEN": "tok-" + r(ALNUM, 12),
        "SHORT_TOKEN": "abc",  # too short: would redact ordinary words
        "HOME": "/home/someone",
        "KEYBOARD_LAYOUT": "us-international",
        "PASSWORD_STORE_DIR": "/home/someone/.password-store",
    }
    red = Redactor.from_environ(environ, extra=["config-value-" + r(ALNUM, 8)])
    text = " ".join(environ.values()) + " abc"
    out = red(text)
    for name in ("OPENAI_API_KEY", "DB_PASSWORD", "MY_SERVICE_TOKEN"):
        assert environ[name] not in out
    for name in ("HOME", "KEYBOARD_LAYOUT", "PASSWORD_STORE_DIR"):
        assert environ[name] in out
    assert out.endswith(" abc")
    assert red(out) == out


def test_from_environ_defaults_to_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    value = "edgar-test-secret-" + r(ALNUM, 16)
    monkeypatch.setenv("EDGAR_TEST_API_KEY", value)
    assert Redactor.from_environ()(f"x {value} y") == "x [REDACTED:env-secret] y"


def test_secret_values() -> None:
    env = {"A_TOKEN": "x" * 8, "B_TOKEN": "y" * 7, "PATH": "/usr/bin:/bin",
           "GH_PAT_SECRET": "z" * 20}
    assert secret_values(env, ["extra-value"]) == ("z" * 20, "extra-value", "x" * 8)


@pytest.mark.parametrize(
    "name",
    ["OPENAI_API_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "client_secret", "AUTH", "KEY", "apiKey",
     "PGPASSWORD", "AWS_SECRET_ACCESS_KEY", "x-api-key", "NPM_CONFIG__AUTHTOKEN", "passphrase",
     "GOOGLE_APPLICATION_CREDENTIALS", "SECRET_KEY_BASE", "refresh_token"],
)
def test_secret_names(name: str) -> None:
    assert looks_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["KEYBOARD_LAYOUT", "TOKEN_COUNT", "max_tokens", "PASSWORD_STORE_DIR", "SSH_AUTH_SOCK", "PWD",
     "OLDPWD", "public_key", "primary_key", "password_reset_url", "GIT_ASKPASS", "XAUTHORITY",
     "TOKENIZERS_PARALLELISM", "csrf_token", "is_secret", "HOME", "AUTHOR", "monkey", "secret_name",
     "token_type", "KEY_LENGTH"],
)
def test_not_secret_names(name: str) -> None:
    assert not looks_secret_name(name)


def test_markers_never_match() -> None:
    assert {"github-pat", "aws-access-token", "private-key", "password", "url-password"} <= FAMILIES
    for family in FAMILIES:
        mark = MARK.format(family)
        for text in (mark, f"token = {mark}", f'"password": "{mark}"', f"{mark}: abc123def456",
                     f"https://u:{mark}@h", f"x\\n{mark}", f"{mark}{mark}"):
            assert redact(text) == text, text


def test_neighbouring_replacements_settle() -> None:
    # the exact value ends where a token begins: after the first replacement the token has a
    # word boundary it did not have before; the result must still be stable
    tok = "ghp_" + r(ALNUM, 36)
    text = "abcdefgh" + tok
    once = redact(text, ["abcdefgh"])
    assert tok not in once
    assert redact(once, ["abcdefgh"]) == once


def test_non_ascii_text_keeps_offsets() -> None:
    tok = "sk-ant-api03-" + r(URLSAFE, 95)
    text = f"clé: « {tok} » — 日本語 — ok"
    assert redact(text) == "clé: « [REDACTED:anthropic-api-key] » — 日本語 — ok"


def test_empty_and_plain_text() -> None:
    assert redact("") == ""
    assert redact("hello world") == "hello world"


# Issue 26 item 3: upstream's global allowlist `(?i)^true|false|null$` anchors only its first and
# last branch, so a JWT whose last segment ran on into `/FALSE` was allowed as a whole.
@pytest.mark.parametrize("tail", ["/FALSE", "/false", "/null", "/true", " FALSE", "/x"])
def test_a_token_followed_by_an_allowlisted_word_is_still_redacted(tail: str) -> None:
    jwt = ("eyJhbGciOiJIUzI1NiJ9.eyJB2b03Cf02AE935dC1adFFBB7Ec97ac60ff51c8a7."
           "aZ8_kLm-Qw3RtY9uIoP1xcVbN7mZa2sDfGhJkL4ccf")
    out = redact(jwt + tail)
    assert jwt not in out and "[REDACTED:jwt]" in out


@pytest.mark.parametrize("value", ["false", "FALSE", "null", "true"])
def test_the_allowlisted_words_themselves_stay(value: str) -> None:
    assert redact(f"api_key: {value}") == f"api_key: {value}"
