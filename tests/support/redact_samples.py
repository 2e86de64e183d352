"""Tokens of edgar's earlier hand-written rule table, one generator per family, written from the
providers' documented formats (not from gitleaks' rules or examples): the held-out part of the
redaction labelled set (`scripts/build_redact_testset.py`) and of the planted-token tests.
"""

from __future__ import annotations

import random
import string

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
ALNUM = UP + LO + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
RNG = random.Random(20251129)  # reseeded by heldout()


def r(alphabet: str, n: int) -> str:
    """n random characters; at least one digit and both cases when the alphabet has them, so a
    sample always looks like the real thing."""
    while True:
        s = "".join(RNG.choice(alphabet) for _ in range(n))
        wants = [set(c) & set(alphabet) for c in (DIG, UP, LO)]
        if all(not w or any(ch in w for ch in s) for w in wants) or n < 6:
            return s


def uuid() -> str:
    return f"{r(HEX, 8)}-{r(HEX, 4)}-4{r(HEX, 3)}-a{r(HEX, 3)}-{r(HEX, 12)}"


def plain(make):
    """A sample whose whole text is the secret."""
    return lambda: (lambda t: (t, t))(make())


def framed(prefix: str, make, suffix: str = ""):
    """A sample where only the part after `prefix` is the secret (AccountKey=<secret>)."""
    return lambda: (lambda s: (prefix + s + suffix, s))(make())


# family -> () -> (text to plant, the secret that must disappear)
SAMPLES = {
    "aws-access-key": plain(lambda: "AKIA" + r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    "aws-bedrock-key": plain(lambda: "ABSKQmVkcm9ja0FQSUtleS" + r(B64, 110)),
    "amazon-mws-token": plain(lambda: "amzn.mws." + uuid()),
    "google-api-key": plain(lambda: "AIza" + r(URLSAFE, 35)),
    "google-oauth-secret": plain(lambda: "GOCSPX-" + r(URLSAFE, 28)),
    "google-oauth-token": plain(lambda: "ya29." + r(URLSAFE, 150)),
    "google-refresh-token": plain(lambda: "1//0" + r(URLSAFE, 100)),
    "firebase-fcm-key": plain(lambda: "AAAA" + r(URLSAFE, 7) + ":APA91b" + r(URLSAFE, 134)),
    "azure-storage-key": framed("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=",
                                lambda: r(ALNUM, 86) + "==", ";EndpointSuffix=core.windows.net"),
    "azure-sas-signature": framed("https://acct.blob.core.windows.net/c?sv=2022-11-02&sr=b&sig=",
                                  lambda: r(ALNUM, 40) + "%2B" + r(ALNUM, 8) + "%3D"),
    "azure-ad-client-secret": plain(lambda: r(ALNUM, 3) + "8Q~" + r(ALNUM + "~._-", 34)),
    "azure-key": plain(lambda: r(ALNUM, 52) + "JQQJ99" + r(UP + DIG, 3) + "AZDO" + r(ALNUM, 4)),
    "alibaba-access-key": plain(lambda: "LTAI" + r(ALNUM, 20)),
    "tencent-secret-id": plain(lambda: "AKID" + r(ALNUM, 32)),
    "yandex-key": plain(lambda: "AQVN" + r(URLSAFE, 36)),
    "yandex-token": plain(lambda: "t1." + r(URLSAFE, 40) + "." + r(URLSAFE, 86)),
    "scaleway-key": plain(lambda: "SCW" + r(UP + DIG, 17)),
    "digitalocean-token": plain(lambda: "dop_v1_" + r(HEX, 64)),
    "cloudflare-origin-ca-key": plain(lambda: "v1.0-" + r(HEX, 24) + "-" + r(HEX, 146)),
    "heroku-key": plain(lambda: "HRKU-AA" + r(URLSAFE, 58)),
    "vercel-token": plain(lambda: "vcp_" + r(ALNUM, 56)),
    "netlify-token": plain(lambda: "nfp_" + r(ALNUM, 40)),
    "flyio-token": plain(lambda: "fm2_" + r(B64, 160) + "=="),
    "render-key": plain(lambda: "rnd_" + r(ALNUM, 32)),
    "supabase-key": plain(lambda: "sbp_" + r(HEX, 40)),
    "planetscale-token": plain(lambda: "pscale_tkn_" + r(URLSAFE, 43)),
    "neon-key": plain(lambda: "napi_" + r(LO + DIG, 64)),
    "aiven-password": plain(lambda: "AVNS_" + r(URLSAFE, 24)),
    "appwrite-key": plain(lambda: "standard_" + r(HEX, 256)),
    "backblaze-key": plain(lambda: "K00" + r(ALNUM, 28)),
    "tailscale-key": plain(lambda: "tskey-auth-" + r(ALNUM, 17) + "-" + r(ALNUM, 33)),
    "databricks-token": plain(lambda: "dapi" + r(HEX, 32)),
    "clickhouse-key": plain(lambda: "4b1d" + r(ALNUM, 38)),
    "salesforce-token": plain(lambda: "00D" + r(ALNUM, 15) + "!" + r(ALNUM + "._", 96)),
    "elastic-key": plain(lambda: "essu_" + r(B64, 80)),
    "portainer-token": plain(lambda: "ptr_" + r(B64, 44)),
    "github-token": plain(lambda: "ghp_" + r(ALNUM, 36)),
    "gitlab-token": plain(lambda: "glpat-" + r(URLSAFE, 20)),
    "gitlab-session-cookie": framed("_gitlab_session=", lambda: r(LO + DIG, 32)),
    "bitbucket-token": plain(lambda: "ATBB" + r(ALNUM, 32)),
    "atlassian-token": plain(lambda: "ATATT3xFfGF0" + r(URLSAFE, 180)),
    "trello-token": plain(lambda: "ATTA" + r(ALNUM, 64)),
    "npm-token": plain(lambda: "npm_" + r(ALNUM, 36)),
    "pypi-token": plain(lambda: "pypi-AgEIcHlwaS5vcmc" + r(URLSAFE, 120)),
    "rubygems-token": plain(lambda: "rubygems_" + r(HEX, 48)),
    "nuget-key": plain(lambda: "oy2" + r(LO + DIG, 43)),
    "clojars-token": plain(lambda: "CLOJARS_" + r(LO + DIG, 60)),
    "docker-token": plain(lambda: "dckr_pat_" + r(URLSAFE, 27)),
    "artifactory-key": plain(lambda: "AKCp" + r(ALNUM, 69)),
    "buildkite-token": plain(lambda: "bkua_" + r(HEX, 40)),
    "circleci-token": plain(lambda: "CCIPAT_" + r(ALNUM, 22) + "_" + r(HEX, 40)),
    "sonar-token": plain(lambda: "squ_" + r(HEX, 40)),
    "sourcegraph-token": plain(lambda: "sgp_" + r(HEX, 16) + "_" + r(HEX, 40)),
    "deepsource-token": plain(lambda: "dsp_" + r(ALNUM, 40)),
    "deno-token": plain(lambda: "ddp_" + r(ALNUM, 36)),
    "octopus-key": plain(lambda: "API-" + r(UP + DIG, 26)),
    "readme-key": plain(lambda: "rdme_" + r(LO + DIG, 70)),
    "scalingo-token": plain(lambda: "tk-us-" + r(URLSAFE, 48)),
    "infracost-key": plain(lambda: "ico-" + r(ALNUM, 32)),
    "harness-token": plain(lambda: "pat." + r(URLSAFE, 22) + "." + r(ALNUM, 24) + "."
                           + r(ALNUM, 20)),
    "youtrack-token": plain(lambda: "perm:cm9vdA==." + r(ALNUM, 8) + "==." + r(ALNUM, 30)),
    "vault-token": plain(lambda: "hvs." + r(URLSAFE, 90)),
    "terraform-token": plain(lambda: r(ALNUM, 14) + ".atlasv1." + r(URLSAFE, 67)),
    "doppler-token": plain(lambda: "dp.pt." + r(ALNUM, 43)),
    "pulumi-token": plain(lambda: "pul-" + r(HEX, 40)),
    "infisical-token": plain(lambda: "st." + uuid() + "." + r(HEX, 32) + "." + r(HEX, 32)),
    "1password-token": plain(lambda: "ops_eyJ" + r(B64, 250)),
    "1password-secret-key": plain(
        lambda: "-".join(["A3", r(UP + DIG, 6), r(UP + DIG, 11), *[r(UP + DIG, 5)] * 3])
    ),
    "age-secret-key": plain(lambda: "AGE-SECRET-KEY-1" + r(BECH32, 58)),
    "slack-token": plain(lambda: "xoxb-" + r(DIG, 12) + "-" + r(DIG, 13) + "-" + r(ALNUM, 24)),
    "slack-webhook": framed("https://", lambda: "hooks.slack.com/services/T" + r(UP + DIG, 10)
                            + "/B"
                            + r(UP + DIG, 10) + "/" + r(ALNUM, 24)),
    "discord-webhook": framed("https://",
                              lambda: f"discord.com/api/webhooks/{r(DIG, 18)}/{r(URLSAFE, 68)}"),
    "teams-webhook": framed("https://contoso.",
                            lambda: f"webhook.office.com/webhookb2/{uuid()}@{uuid()}"
                            f"/IncomingWebhook/{r(HEX, 32)}/{uuid()}"),
    "zapier-webhook": framed("https://",
                             lambda: f"hooks.zapier.com/hooks/catch/{r(DIG, 7)}/{r(LO, 6)}/"),
    "telegram-bot-token": plain(lambda: r(DIG, 10) + ":AA" + r(URLSAFE, 33)),
    "twilio-key": plain(lambda: "SK" + r(HEX, 32)),
    "twilio-account-sid": plain(lambda: "AC" + r(HEX, 32)),
    "sendgrid-key": plain(lambda: "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43)),
    "mailgun-key": plain(lambda: "key-" + r(LO + DIG, 32)),
    "mailchimp-key": plain(lambda: r(HEX, 32) + "-us" + r(DIG, 2)),
    "mandrill-key": plain(lambda: "md-" + r(ALNUM, 22)),
    "brevo-key": plain(lambda: "xkeysib-" + r(HEX, 64) + "-" + r(ALNUM, 16)),
    "resend-key": plain(lambda: "re_" + r(ALNUM, 8) + "_" + r(ALNUM, 24)),
    "stripe-key": plain(lambda: "sk_live_" + r(ALNUM, 99)),
    "stripe-webhook-secret": plain(lambda: "whsec_" + r(ALNUM, 32)),
    "square-token": plain(lambda: "EAAA" + r(URLSAFE, 60)),
    "facebook-token": plain(lambda: "EAAB" + r(ALNUM, 180)),
    "braintree-token": plain(lambda: "access_token$production$" + r(LO + DIG, 16) + "$"
                             + r(HEX, 32)),
    "shopify-token": plain(lambda: "shpat_" + r(HEX, 32)),
    "woocommerce-key": plain(lambda: "ck_" + r(HEX, 40)),
    "razorpay-key": plain(lambda: "rzp_live_" + r(ALNUM, 14)),
    "flutterwave-key": plain(lambda: "FLWSECK_TEST-" + r(HEX, 32) + "-X"),
    "shippo-token": plain(lambda: "shippo_live_" + r(HEX, 40)),
    "easypost-key": plain(lambda: "EZAK" + r(ALNUM, 54)),
    "duffel-token": plain(lambda: "duffel_live_" + r(URLSAFE, 43)),
    "plaid-token": plain(lambda: "access-production-" + uuid()),
    "adyen-key": plain(lambda: "AQE" + r(LO + DIG, 8) + "." + r(URLSAFE, 60)),
    "api-key": plain(lambda: "live_" + r(ALNUM, 34)),
    "anthropic-key": plain(lambda: "sk-ant-api03-" + r(URLSAFE, 93) + "AA"),
    "openai-key": plain(lambda: "sk-proj-" + r(URLSAFE, 156)),
    "openrouter-key": plain(lambda: "sk-or-v1-" + r(HEX, 64)),
    "langfuse-key": plain(lambda: "sk-lf-" + uuid()),
    "elevenlabs-key": plain(lambda: "sk_" + r(HEX, 48)),
    "huggingface-token": plain(lambda: "hf_" + r(UP + LO, 34)),
    "replicate-token": plain(lambda: "r8_" + r(ALNUM, 37)),
    "groq-key": plain(lambda: "gsk_" + r(ALNUM, 52)),
    "xai-key": plain(lambda: "xai-" + r(ALNUM, 80)),
    "perplexity-key": plain(lambda: "pplx-" + r(ALNUM, 48)),
    "together-key": plain(lambda: "tgp_v1_" + r(URLSAFE, 43)),
    "fireworks-key": plain(lambda: "fw_" + r(ALNUM, 24)),
    "pinecone-key": plain(lambda: "pcsk_" + r(ALNUM, 6) + "_" + r(ALNUM, 64)),
    "langsmith-key": plain(lambda: "lsv2_pt_" + r(HEX, 32) + "_" + r(HEX, 10)),
    "cerebras-key": plain(lambda: "csk-" + r(LO + DIG, 48)),
    "tavily-key": plain(lambda: "tvly-dev-" + r(ALNUM, 32)),
    "firecrawl-key": plain(lambda: "fc-" + r(HEX, 32)),
    "nvidia-key": plain(lambda: "nvapi-" + r(URLSAFE, 64)),
    "jina-key": plain(lambda: "jina_" + r(URLSAFE, 60)),
    "voyage-key": plain(lambda: "pa-" + r(URLSAFE, 43)),
    "modal-token": plain(lambda: "as-" + r(ALNUM, 22)),
    "brave-search-key": plain(lambda: "BSA" + r(URLSAFE, 28)),
    "anyscale-key": plain(lambda: "esecret_" + r(ALNUM, 26)),
    "linear-key": plain(lambda: "lin_api_" + r(ALNUM, 40)),
    "notion-token": plain(lambda: "ntn_" + r(DIG, 11) + r(ALNUM, 35)),
    "airtable-token": plain(lambda: "pat" + r(ALNUM, 14) + "." + r(HEX, 64)),
    "figma-token": plain(lambda: "figd_" + r(URLSAFE, 40)),
    "clickup-token": plain(lambda: "pk_" + r(DIG, 8) + "_" + r(UP + DIG, 32)),
    "hubspot-token": plain(lambda: "pat-na1-" + uuid()),
    "typeform-token": plain(lambda: "tfp_" + r(URLSAFE, 59)),
    "contentful-token": plain(lambda: "CFPAT-" + r(URLSAFE, 43)),
    "frameio-token": plain(lambda: "fio-u-" + r(URLSAFE, 64)),
    "adobe-secret": plain(lambda: "p8e-" + r(ALNUM, 32)),
    "pinterest-token": plain(lambda: "pina_" + r(ALNUM, 96)),
    "instagram-token": plain(lambda: "IGQV" + r(URLSAFE, 180)),
    "twitter-bearer-token": plain(lambda: "A" * 22 + r(ALNUM, 20) + "%2F" + r(ALNUM, 20) + "%3D"),
    "mapbox-token": plain(lambda: "sk.eyJ1Ijoi" + r(URLSAFE, 50) + "." + r(URLSAFE, 22)),
    "dropbox-token": plain(lambda: "sl.B" + r(URLSAFE, 135)),
    "grafana-token": plain(lambda: "glsa_" + r(ALNUM, 32) + "_" + r(HEX, 8)),
    "grafana-key": plain(lambda: "eyJrIjoi" + r(ALNUM, 80)),
    "newrelic-key": plain(lambda: "NRAK-" + r(UP + DIG, 27)),
    "newrelic-license-key": plain(lambda: r(HEX, 36) + "NRAL"),
    "sentry-token": plain(lambda: "sntryu_" + r(HEX, 64)),
    "dynatrace-token": plain(lambda: "dt0c01." + r(UP + DIG, 24) + "." + r(UP + DIG, 64)),
    "postman-key": plain(lambda: "PMAK-" + r(HEX, 24) + "-" + r(HEX, 34)),
    "posthog-key": plain(lambda: "phx_" + r(ALNUM, 47)),
    "honeycomb-key": plain(lambda: "hcaik_" + r(ALNUM, 58)),
    "honeybadger-token": plain(lambda: "hbp_" + r(ALNUM, 36)),
    "axiom-token": plain(lambda: "xaat-" + uuid()),
    "launchdarkly-key": plain(lambda: "sdk-" + uuid()),
    "maxmind-key": plain(lambda: r(ALNUM, 6) + "_" + r(ALNUM, 29) + "_mmk"),
    "openshift-token": plain(lambda: "sha256~" + r(URLSAFE, 43)),
    "prefect-key": plain(lambda: "pnu_" + r(ALNUM, 36)),
    "settlemint-token": plain(lambda: "sm_pat_" + r(ALNUM, 16)),
    "intra42-secret": plain(lambda: "s-s4t2ud-" + r(HEX, 64)),
    "airtable-key": plain(lambda: "key" + r(ALNUM, 14)),
    "intercom-token": plain(lambda: "dG9rOj" + r(B64, 54) + "="),
    "stytch-secret": plain(lambda: "secret-live-" + r(URLSAFE, 36)),
    "adafruit-key": plain(lambda: "aio_" + r(ALNUM, 28)),
    "castai-key": plain(lambda: "castai_v1_" + r(ALNUM, 64) + "_" + r(ALNUM, 8)),
    "definednetworking-token": plain(lambda: "dnkey-" + r(URLSAFE, 26) + "-" + r(URLSAFE, 52)),
    "authress-key": plain(lambda: "sc_" + r(ALNUM, 12) + "." + r(ALNUM, 5) + ".acc_"
                          + r(ALNUM, 16) + "."
                          + r(URLSAFE, 60)),
    "jwt": plain(lambda: "eyJhbGciOiJIUzI1NiJ9.eyJ" + r(URLSAFE, 60) + "." + r(URLSAFE, 43)),
    "discord-token": plain(lambda: "MT" + r(ALNUM, 22) + "." + r(URLSAFE, 6) + "."
                           + r(URLSAFE, 38)),
    # Assignments, each family of the name-based rule.
    "password": framed("DB_PASSWORD=", lambda: "hunter2" + r(ALNUM, 6)),
    "secret": framed('client_secret: "', lambda: r(ALNUM, 24), '"'),
    "token": framed("ACCESS_TOKEN=", lambda: r(ALNUM, 40)),
    "credential": framed('"credentials": "', lambda: r(ALNUM, 30), '"'),
    "secret-key": framed("SECRET_KEY = '", lambda: r(ALNUM + "!@#$%^&*(-_=+)", 50), "'"),
    "access-key": framed("s3_access_key: ", lambda: r(ALNUM, 20)),
    "aws-secret-key": framed("aws_secret_access_key = ", lambda: r(B64, 40)),
    "datadog-key": framed("DD_API_KEY=", lambda: r(HEX, 32)),
    "bearer-token": framed("Authorization: Bearer ", lambda: r(URLSAFE, 40)),
    "basic-auth": framed("Authorization: Basic ", lambda: r(B64, 28) + "=="),
    "url-password": framed("postgres://app:", lambda: r(ALNUM, 20), "@db.internal:5432/app"),
    "private-key": plain(lambda: "-----BEGIN RSA PRIVATE KEY-----\n"
                         + "\n".join(r(B64, 64) for _ in range(8))
                         + "\n-----END RSA PRIVATE KEY-----"),
}


MAIN = {
    "aws-access-key": "aws", "aws-bedrock-key": "aws", "github-token": "github",
    "slack-token": "slack", "slack-webhook": "slack", "openai-key": "openai",
    "anthropic-key": "anthropic", "google-api-key": "google", "google-oauth-secret": "google",
    "google-oauth-token": "google", "google-refresh-token": "google", "stripe-key": "stripe",
    "stripe-webhook-secret": "stripe", "private-key": "private-key", "jwt": "jwt",
}


def heldout(rng: random.Random, per_family: int = 3) -> list[tuple[str, str, str]]:
    """(family group, text, secret) for `per_family` fresh samples of every family."""
    global RNG
    RNG = rng
    out = []
    for name, make in SAMPLES.items():
        for k in range(per_family):
            planted, secret = make()
            text = (planted, f"{{\"data\": \"{planted}\"}}", f"see {planted} in the log")[k % 3]
            out.append((MAIN.get(name, "other"), text, secret))
    return out
