"""Names that hold a secret: `looks_secret_name` and the vocabulary behind it.

Guarantee: `classify(name)` splits a name into words (`apiKey` -> api, key) and gives
(strength, family) for names that hold a secret — `OPENAI_API_KEY`, `client_secret`, `AUTH`,
`GH_PAT` — and None for names that describe one: `KEYBOARD_LAYOUT`, `TOKEN_COUNT`,
`max_tokens`, `PASSWORD_STORE_DIR`, `SSH_AUTH_SOCK`, `public_key`, `PWD`.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from edgar.redact.text import lazy, trie

_CAMEL = lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# --- names in assignments ---------------------------------------------------------------------
# A name is split into lower-case words (`OPENAI_API_KEY` -> openai, api, key; `apiKey` -> api,
# key). These sets decide what kind of secret its value is, if any.

PASSWORD_WORDS = frozenset(
    "password passwd passphrase pwd pass dbpass pgpass rootpass adminpass userpass smtppass"
    " mailpass ftppass sqlpass mypass passcode pw dbpw".split()
)
SECRET_WORDS = frozenset("secret clientsecret appsecret consumersecret webhooksecret"
                         " jwtsecret".split())
TOKEN_WORDS = frozenset(
    "token pat apitoken accesstoken authtoken refreshtoken sessiontoken bearertoken"
    " usertoken bottoken idtoken oauthtoken auth authorization bearer jwt cookie credential"
    " credentials creds cred secrets apikey accesskey secretkey privatekey masterkey signingkey"
    " encryptionkey licensekey appkey clientkey consumerkey accountkey subscriptionkey authkey"
    " sessionkey sshkey webhookkey apisecret".split()
)
# Words ending in one of these are compounds of a secret word (`githubtoken`, `mysecret`).
COMPOUND_SUFFIXES = ("password", "passwd", "passphrase", "secret", "token")
# ...except these, which end the same way for other reasons.
NOT_COMPOUNDS = frozenset("bypass compass askpass surpass overpass underpass trespass"
                          " encompass".split())

# `key` is only a strong signal after one of these (api_key, SECRET_KEY, stripe_key ...).
KEY_MODIFIERS = frozenset(
    "api access secret private master signing sign encryption encrypt crypt crypto license app"
    " application client consumer account subscription ssh auth session service admin root deploy"
    " personal shared storage ingest write hmac jwt cookie webhook integration server bot"
    " management org organization project rest sdk mobile partner merchant dev prod production"
    " live test sandbox user aes gpg pgp rsa ed25519 ecdsa token".split()
)
# The word just before the secret word makes the name *not* a secret: public_key, cache_key,
# max_tokens, csrf_token, pad_token (a tokenizer's padding token), forgot_password ...
NOT_SECRET_BEFORE = frozenset(
    "public pub publishable primary foreign sort partition cache idempotency dict hot hash lookup"
    " map object s3 row range composite unique natural surrogate sequence index idx group dedup"
    " dedupe routing shard order compound cluster field column attr"
    " property prop json yaml translation i18n locale message label react list item node element"
    " component csrf xsrf page next continuation cancel cancellation sync max min num total input"
    " output prompt completion reasoning cached count pagination stop eos bos pad unk mask sep cls"
    " special start end forgot reset forgotten sample example dummy fake mock placeholder".split()
)
# The first word makes the name a predicate or an action, not a holder: is_secret,
# has_password, get_token, validate_api_key ...
NOT_SECRET_FIRST = frozenset(
    "is has use uses require requires enable enabled disable show hide allow validate check get"
    " set verify generate with without no skip need needs should can must save load read parse"
    " encode decode format print log redact strip remove delete clear sample example dummy fake"
    " mock".split()
)
# Words after the secret word that make the name describe the secret rather than hold it:
# password_reset_url, token_count, KEY_LENGTH, SSH_AUTH_SOCK, PASSWORD_STORE_DIR ...
NOT_SECRET_AFTER = frozenset(
    "url uri urls endpoint host hostname port path paths file files filename dir directory folder"
    " name names id ids type types len length count size min max limit limits hint label field"
    " fields prompt policy pattern regex format prefix suffix ttl timeout expiry expires expiration"
    " expired expire enabled enable disabled required env var class method fn func function kind"
    " mode version location index idx provider providers manager usage used reset rotation hash"
    " hashes hashed digest sha checksum chars strength validator validation input column col lookup"
    " mapping list set param params arg args argument option options opts flag schema scope scopes"
    " algorithm alg encoding bits created updated last at date time status state valid exists"
    " missing error errors message msg text title description placeholder sock socket store"
    " storage handler helper getter setter parser serializer service loader source sources"
    " cache table lifetime age uses rate arn ref reference mechanism mechanisms".split()
)
# Names that contain a secret word but are well-known non-secrets.
NOT_SECRET_NAMES = frozenset("pwd oldpwd ssh_auth_sock gpg_agent_info".split())

# Service names that prefix a generic family: SLACK_BOT_TOKEN -> [REDACTED:slack-token].
SERVICE_ALIASES = {"dd": "datadog", "gh": "github", "hf": "huggingface", "az": "azure",
                   "gcloud": "gcp"}
SERVICES = tuple(
    """adafruit adobe airtable algolia alibaba anthropic artifactory asana atlassian auth0 aws azure
    beamer bitbucket bitly bittrex braintree brevo buildkite bugsnag circleci clickup cloudflare
    cloudinary codecov cohere coinbase confluence confluent contentful coveralls databricks datadog
    deepgram deepseek digitalocean discord docker doppler dropbox dynatrace elastic etsy facebook
    fastly figma finicity finnhub firebase flickr fly freshbooks gcp gemini github gitlab gitter
    gocardless google grafana groq heroku hetzner honeycomb hubspot huggingface intercom jfrog jira
    kraken kucoin launchdarkly linear linkedin linode lob mailchimp mailgun mailjet mapbox
    mattermost meraki messagebird mistral mixpanel mongodb netlify newrelic new_relic ngrok notion
    npm nuget nytimes okta openai openrouter opsgenie pagerduty paypal perplexity pinecone plaid
    postmark posthog pulumi pusher pypi rapidapi razorpay reddit redis replicate rollbar segment
    sendbird sendgrid sentry shopify slack snyk sonar sparkpost spotify square squarespace stripe
    sumologic supabase telegram terraform together travis trello twilio twitch twitter typeform
    vault vercel vonage nexmo wandb yandex zendesk zoom""".split()
)


# --- names -------------------------------------------------------------------------------------


def _word_kind(part: str) -> str | None:
    if part in PASSWORD_WORDS:
        return "password"
    if part in SECRET_WORDS:
        return "secret"
    if part == "key" or (part in TOKEN_WORDS and part.endswith("key")):
        return "key"
    if part in TOKEN_WORDS:
        return "credential" if part.startswith("cred") else "token"
    if len(part) > 6 and part not in NOT_COMPOUNDS:
        for suffix in COMPOUND_SUFFIXES:
            if part.endswith(suffix):
                return suffix if suffix in ("secret", "token") else "password"
    return None


@lru_cache(maxsize=4096)
def classify(name: str) -> tuple[str, str] | None:
    """(strength, family) when `name` holds a secret, else None.

    strength: "always" (password, secret: any literal value is redacted), "strong" (token, API
    key: a token-like value is) or "weak" (a bare `key`: only a long random value that is not a
    digest is).
    """
    bare = name.strip("-_.$@ ")
    if not bare or bare.lower() in NOT_SECRET_NAMES:
        return None
    parts = [p.lower() for p in _CAMEL.findall(bare)]
    for i in range(len(parts) - 1, -1, -1):
        kind = _word_kind(parts[i])
        if kind:
            break
    else:
        return None
    before, after = parts[:i], parts[i + 1 :]
    if any(p in NOT_SECRET_AFTER for p in after):
        return None
    if before and (before[-1] in NOT_SECRET_BEFORE or before[0] in NOT_SECRET_FIRST):
        return None
    service = _service(parts, bare.lower())
    service = service or next((SERVICE_ALIASES[p] for p in before if p in SERVICE_ALIASES), None)
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
    else:
        strength, family = "strong", kind
    return strength, service_family(service, family) if service else family


@cache
def _service_scan() -> tuple[dict[str, int], re.Pattern[str], dict[str, tuple[str, ...]]]:
    rank = {s: i for i, s in reversed(list(enumerate(SERVICES)))}
    long = [s for s in SERVICES if len(s) > 4]
    longer = {w: tuple(v for v in long if v != w and v.startswith(w)) for w in long}
    return rank, re.compile("(?=(" + trie(long) + "))"), longer


def _service(parts: list[str], lowered: str) -> str | None:
    """The first of SERVICES that is one of the name's words or, if longer than 4 characters,
    inside it: one scan of the name instead of a test per service (the hot path of a 2 MB text
    with thousands of distinct `token123` names)."""
    rank, rx, longer = _service_scan()
    found = [rank[p] for p in parts if p in rank]
    for m in rx.finditer(lowered):
        word = m.group(1)
        found.append(rank[word])
        # the trie reports the shortest service at a position: `square` inside `squarespace`
        found += [rank[v] for v in longer[word] if lowered.startswith(v, m.start())]
    return SERVICES[min(found)] if found else None


def service_family(service: str, family: str) -> str:
    return f"{service.replace('_', '')}-{family.removeprefix('api-')}"


NAME_KINDS = (
    "password", "secret", "token", "credential", "api-key", "secret-key", "access-key",
    "private-key", "encryption-key", "signing-key", "master-key", "license-key",
)


def looks_secret_name(name: str) -> bool:
    """True for names whose values are secrets — OPENAI_API_KEY, DB_PASSWORD, GITHUB_TOKEN,
    client_secret, AUTH, KEY; false for KEYBOARD_LAYOUT, TOKEN_COUNT, PASSWORD_STORE_DIR,
    SSH_AUTH_SOCK, public_key, PWD (case does not matter)."""
    return classify(name) is not None
