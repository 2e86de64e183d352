"""The token-family table behind `edgar.memory.redact`: data, not logic.

Each `Rule` names a family (the text inside `[REDACTED:<family>]`), the literal *triggers* that
announce it, and a regular expression for the whole token. Patterns were written from the
providers' documented token formats and match *prefix families*: bodies are `{min,}`, never an
exact length, because formats drift (GitHub, GitLab, Slack and OpenAI have all lengthened theirs).

How `redact.py` uses a rule:

* A *head* trigger is where the token starts (`ghp_`, `glpat-`, `AKIA`). It must sit on a word
  boundary: the character before it is not `[A-Za-z0-9_]`, or is the `n`/`t`/`r` of a JSON escape
  (`"\\nghp_…"` in a session-log line).
* A *mid* trigger (`back > 0`) sits inside the token (Telegram's `:AA`, Mailchimp's `-us`); the
  pattern is tried from word starts up to `back` characters earlier and must cover the trigger,
  so what comes before a mid trigger has a bounded length (`{30,86}`, not `{30,}`).
* Every match must end on a boundary (the next character is not `[A-Za-z0-9]`), and its body
  (the match minus a head trigger) passes `check`: `mixed` (a digit, or upper and lower case —
  ordinary lower-case words never qualify), `random` (stricter, for short or word-like prefixes),
  `hexfree` (`mixed`, plus a letter outside a-f so a hex digest that happens to start with the
  prefix is left alone), `digit`, `cased` (digits and both cases), `twitter` (a URL-encoded
  character, or a long random body), or `None` (the pattern is specific enough).
* A named group `s` marks the secret inside a longer match (`AccountKey=<s>`): only `s` is
  replaced.

Also here: the vocabulary `redact.py` uses to judge *names* in assignments (`API_KEY=…`), and the
service names that turn a generic `token` family into `slack-token`.
"""

from __future__ import annotations

from typing import NamedTuple


class Rule(NamedTuple):
    family: str
    triggers: tuple[str, ...]
    pattern: str
    back: int = 0  # > 0: triggers are inside the token, this many characters after its start
    check: str | None = "mixed"


def R(family: str, triggers: str, pattern: str, back: int = 0, check: str | None = "mixed") -> Rule:
    return Rule(family, tuple(triggers.split()), pattern, back, check)


# Alphabets, spelled out because `re` would otherwise let \w and \d match any Unicode letter.
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

RULES: tuple[Rule, ...] = (
    # --- cloud providers ---------------------------------------------------------------------
    R("aws-access-key", "AKIA ASIA ABIA ACCA A3T", r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16,}"),
    R("aws-bedrock-key", "ABSK", r"ABSK[A-Za-z0-9+/]{60,}={0,2}"),
    R("amazon-mws-token", "amzn.mws.", r"amzn\.mws\." + _UUID, check=None),
    R("google-api-key", "AIza", r"AIza[A-Za-z0-9_-]{30,}"),
    R("google-oauth-secret", "GOCSPX-", r"GOCSPX-[A-Za-z0-9_-]{20,}"),
    R("google-oauth-token", "ya29.", r"ya29\.[A-Za-z0-9_.-]{20,}"),
    R("google-refresh-token", "1//0", r"1//0[A-Za-z0-9_-]{30,}"),
    R("firebase-fcm-key", ":APA91b", r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{60,}", back=11),
    R("azure-storage-key", "AccountKey= SharedAccessKey=",
      r"(?:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{30,}={0,2})"),
    R("azure-sas-signature", "sig=", r"sig=(?P<s>[A-Za-z0-9%+/]{30,}(?:%3[Dd]|=)*)", check=None),
    R("azure-ad-client-secret", "Q~", r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,}", back=4),
    # Microsoft's "identifiable" keys (Azure DevOps, storage, Cognitive Services) carry JQQJ9…
    R("azure-key", "JQQJ9", r"[A-Za-z0-9]{30,86}JQQJ9[A-Za-z0-9]{5,}", back=86),
    R("alibaba-access-key", "LTAI", r"LTAI[A-Za-z0-9]{12,}"),
    R("tencent-secret-id", "AKID", r"AKID[A-Za-z0-9]{30,}"),
    R("yandex-key", "AQVN", r"AQVN[A-Za-z0-9_-]{35,}"),
    R("yandex-key", "YC", r"YC[A-Za-z0-9_-]{38,}", check="random"),
    R("yandex-token", "t1.", r"t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{80,}={0,2}"),
    R("scaleway-key", "SCW", r"SCW[A-Z0-9]{17,}", check="digit"),
    R("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", r"do[opr]_v1_[a-f0-9]{64,}"),
    R("cloudflare-origin-ca-key", "v1.0-", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{100,}"),
    R("heroku-key", "HRKU-", r"HRKU-[A-Za-z0-9_-]{40,}"),
    R("vercel-token", "vcp_ vci_ vca_ vcr_ vck_", r"vc[piark]_[A-Za-z0-9]{24,}"),
    R("netlify-token", "nfp_ nfc_ nfo_", r"nf[pco]_[A-Za-z0-9]{30,}"),
    R("flyio-token", "fo1_ fm1 fm2",
      r"(?:fo1_[A-Za-z0-9_-]{40,}"
      r"|fm[12][ar]?_[A-Za-z0-9+/]{60,}={0,3}(?:,fm[12][ar]?_[A-Za-z0-9+/]+={0,3})*)"),
    R("render-key", "rnd_", r"rnd_[A-Za-z0-9]{24,}"),
    R("supabase-key", "sbp_ sb_secret_ sb_publishable_",
      r"(?:sbp_(?:oauth_)?[a-f0-9]{40,}|sb_(?:secret|publishable)_[A-Za-z0-9_-]{20,})"),
    R("planetscale-token", "pscale_tkn_ pscale_oauth_ pscale_pw_",
      r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{30,}"),
    R("neon-key", "napi_", r"napi_[a-z0-9]{50,}"),
    R("aiven-password", "AVNS_", r"AVNS_[A-Za-z0-9_-]{20,}"),
    R("appwrite-key", "standard_", r"standard_[a-f0-9]{100,}"),
    R("backblaze-key", "K00", r"K00[A-Za-z0-9+/]{28,}", check="random"),
    R("tailscale-key", "tskey-", r"tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    R("databricks-token", "dapi dose", r"(?:dapi|dose)[a-f0-9]{32,}(?:-[0-9])?"),
    R("clickhouse-key", "4b1d", r"4b1d[A-Za-z0-9]{38,}", check="hexfree"),
    R("salesforce-token", "00D", r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{40,}"),
    R("elastic-key", "essu_", r"essu_[A-Za-z0-9+/=]{40,}"),
    R("portainer-token", "ptr_", r"ptr_[A-Za-z0-9+/=]{40,}"),
    # --- source hosting, packages, CI ------------------------------------------------------
    R("github-token", "ghp_ gho_ ghu_ ghs_ ghr_", r"gh[pousr]_[A-Za-z0-9]{30,}"),
    R("github-token", "github_pat_", r"github_pat_[A-Za-z0-9]{20,}_[A-Za-z0-9]{30,}"),
    R("gitlab-token",
      "glpat- gldt- glrt- glrtr- glft- glimt- glagent- gloas- glcbt- glsoat- glffct- glptt- glwt-",
      r"gl(?:pat|dt|rtr|rt|ft|imt|agent|oas|cbt|soat|ffct|ptt|wt)-[A-Za-z0-9_.-]{20,}"),
    R("gitlab-token", "GR1348941", r"GR1348941[A-Za-z0-9_-]{20,}"),
    R("gitlab-session-cookie", "_gitlab_session=", r"_gitlab_session=(?P<s>[0-9a-z]{32,})"),
    R("bitbucket-token", "ATBB", r"ATBB[A-Za-z0-9_=.-]{28,}"),
    R("atlassian-token", "ATATT ATCTT", r"AT(?:ATT|CTT)[A-Za-z0-9_=-]{50,}"),
    R("trello-token", "ATTA", r"ATTA[A-Za-z0-9]{50,}"),
    R("npm-token", "npm_", r"npm_[A-Za-z0-9]{36,}"),
    R("pypi-token", "pypi-AgE", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    R("rubygems-token", "rubygems_", r"rubygems_[a-f0-9]{40,}"),
    R("nuget-key", "oy2", r"oy2[a-z0-9]{43,}"),
    R("clojars-token", "CLOJARS_", r"CLOJARS_[a-z0-9]{40,}"),
    R("docker-token", "dckr_pat_ dckr_oat_", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
    R("artifactory-key", "AKCp cmVmdGtu", r"(?:AKCp[A-Za-z0-9]{60,}|cmVmdGtu[A-Za-z0-9]{50,})"),
    R("buildkite-token", "bkua_", r"bkua_[a-f0-9]{40,}"),
    R("circleci-token", "CCIPAT_ CCIPRJ_", r"CCIP(?:AT|RJ)_[A-Za-z0-9_]{20,}"),
    R("sonar-token", "sqp_ squ_ sqa_", r"sq[pua]_[a-f0-9]{40,}"),
    R("sourcegraph-token", "sgp_", r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40,}"),
    R("deepsource-token", "dsp_", r"dsp_[A-Za-z0-9]{30,}"),
    R("deno-token", "ddp_ ddw_", r"dd[pw]_[A-Za-z0-9]{36,}"),
    R("octopus-key", "API-", r"API-[A-Z0-9]{26,}", check="digit"),
    R("readme-key", "rdme_", r"rdme_[a-z0-9]{60,}"),
    R("scalingo-token", "tk-us-", r"tk-us-[A-Za-z0-9_-]{40,}"),
    R("infracost-key", "ico-", r"ico-[A-Za-z0-9]{32,}"),
    R("harness-token", "pat. sat.", r"[ps]at\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9]{20,}\.[A-Za-z0-9]{20,}"),
    R("youtrack-token", "perm:", r"perm:[A-Za-z0-9+/=]{4,}\.[A-Za-z0-9+/=]{4,}\.[A-Za-z0-9]{20,}"),
    # --- secrets managers and infrastructure as code ---------------------------------------
    R("vault-token", "hvs. hvb. hvr.", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    R("terraform-token", ".atlasv1.", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{50,}", back=14),
    R("doppler-token", "dp.pt. dp.st. dp.ct. dp.sa. dp.scim. dp.audit.",
      r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{30,}"),
    R("pulumi-token", "pul-", r"pul-[a-f0-9]{40,}"),
    R("infisical-token", "st.", r"st\.[A-Za-z0-9-]{20,}\.[a-f0-9]{32,}\.[a-f0-9]{32,}"),
    R("1password-token", "ops_eyJ", r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    R("1password-secret-key", "A3-", r"A3-[A-Z0-9]{6}-[A-Z0-9-]{20,}", check="digit"),
    R("age-secret-key", "AGE-SECRET-KEY-1 AGE-PLUGIN-",
      r"AGE-(?:SECRET-KEY|PLUGIN-[A-Z0-9]+)-1[A-Z0-9]{40,}"),
    # --- chat, mail, messaging -------------------------------------------------------------
    R("slack-token", "xoxb- xoxp- xoxa- xoxr- xoxs- xoxo- xoxe- xoxe.",
      r"(?:xox[bpaesor]-|xoxe\.xox[bp]-)[A-Za-z0-9-]{10,}"),
    R("slack-token", "xapp-", r"xapp-[0-9]-[A-Za-z0-9-]{10,}"),
    R("slack-webhook", "hooks.slack.com/",
      r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}", check=None),
    R("discord-webhook", "discord.com/api/ discordapp.com/api/",
      r"discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks/[0-9]+/[A-Za-z0-9_-]{20,}", check=None),
    R("teams-webhook", "webhook.office.com/",
      r"webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,}", check=None),
    R("zapier-webhook", "hooks.zapier.com/",
      r"hooks\.zapier\.com/hooks/catch/[0-9]+/[A-Za-z0-9]+/?", check=None),
    R("telegram-bot-token", ":AA", r"[0-9]{5,16}:AA[A-Za-z0-9_-]{30,}", back=17),
    R("twilio-key", "SK", r"SK[0-9a-f]{32,}"),
    R("twilio-account-sid", "AC", r"AC[0-9a-f]{32,}"),
    R("sendgrid-key", "SG.", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}"),
    R("mailgun-key", "key- pubkey-", r"(?:pub)?key-[0-9a-z]{32,}"),
    R("mailchimp-key", "-us", r"[0-9a-f]{32}-us[0-9]{1,2}", back=32),
    R("mandrill-key", "md-", r"md-[A-Za-z0-9_-]{22,}", check="random"),
    R("brevo-key", "xkeysib- xsmtpsib-", r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16,}"),
    R("resend-key", "re_", r"re_[A-Za-z0-9_]{20,}", check="random"),
    # --- payments and commerce -------------------------------------------------------------
    R("stripe-key", "sk_live_ sk_test_ sk_prod_ rk_live_ rk_test_ rk_prod_ pk_live_ pk_test_ pk_prod_",
      r"[srp]k_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
    R("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9+/=]{20,}"),
    R("square-token", "sq0atp- sq0csp-", r"sq0(?:atp|csp)-[A-Za-z0-9_-]{20,}"),
    R("square-token", "EAAA", r"EAAA[A-Za-z0-9_-]{56,}"),
    R("facebook-token", "EAA", r"EAA[A-Za-z0-9]{90,}"),
    R("braintree-token", "access_token$",
      r"access_token\$(?:production|sandbox|development)\$[A-Za-z0-9$]{20,}"),
    R("shopify-token", "shpat_ shpss_ shpca_ shppa_", r"shp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32,}"),
    R("woocommerce-key", "ck_ cs_", r"c[ks]_[a-f0-9]{40,}"),
    R("razorpay-key", "rzp_live_ rzp_test_", r"rzp_(?:live|test)_[A-Za-z0-9]{14,}"),
    R("flutterwave-key", "FLWSECK FLWPUBK", r"FLW(?:SECK|PUBK)(?:_TEST)?-?[A-Za-z0-9]{12,}(?:-X)?"),
    R("shippo-token", "shippo_live_ shippo_test_", r"shippo_(?:live|test)_[a-fA-F0-9]{40,}"),
    R("easypost-key", "EZAK EZTK", r"EZ[AT]K[A-Za-z0-9]{40,}"),
    R("duffel-token", "duffel_test_ duffel_live_", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{40,}"),
    R("plaid-token", "access-sandbox- access-development- access-production-",
      r"access-(?:sandbox|development|production)-" + _UUID, check=None),
    R("adyen-key", "AQE", r"AQE[a-z0-9]{5,}\.[A-Za-z0-9_=-]{50,}"),
    # Lob, Chargebee, Adyen client keys, GoCardless, Mollie: live_/test_ and a random body.
    R("api-key", "live_ test_", r"(?:live|test)_(?:pub_)?[A-Za-z0-9]{30,}", check="random"),
    # --- AI and data services --------------------------------------------------------------
    R("anthropic-key", "sk-ant-", r"sk-ant-[A-Za-z0-9_-]{32,}"),
    R("openai-key", "sk-proj- sk-svcacct- sk-admin- sk-None-",
      r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}"),
    R("openai-key", "sk-", r"sk-[A-Za-z0-9]{20,}T3BlbkFJ[A-Za-z0-9]{20,}"),
    R("openrouter-key", "sk-or-", r"sk-or-v[0-9]-[A-Za-z0-9]{32,}"),
    R("langfuse-key", "sk-lf- pk-lf-", r"[sp]k-lf-[A-Za-z0-9-]{30,}"),
    # DeepSeek, Moonshot, Stability and older OpenAI keys share the bare sk- prefix.
    R("openai-key", "sk-", r"sk-[A-Za-z0-9]{32,}"),
    R("elevenlabs-key", "sk_", r"sk_[a-f0-9]{40,}"),
    R("huggingface-token", "hf_ api_org_", r"(?:hf|api_org)_[A-Za-z0-9]{30,}", check="random"),
    R("replicate-token", "r8_", r"r8_[A-Za-z0-9]{30,}"),
    R("groq-key", "gsk_", r"gsk_[A-Za-z0-9]{40,}"),
    R("xai-key", "xai-", r"xai-[A-Za-z0-9]{50,}"),
    R("perplexity-key", "pplx-", r"pplx-[A-Za-z0-9]{40,}"),
    R("together-key", "tgp_v1_", r"tgp_v1_[A-Za-z0-9_-]{30,}"),
    R("fireworks-key", "fw_", r"fw_[A-Za-z0-9]{20,}", check="random"),
    R("pinecone-key", "pcsk_", r"pcsk_[A-Za-z0-9_]{40,}"),
    R("langsmith-key", "lsv2_pt_ lsv2_sk_", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10,}"),
    R("cerebras-key", "csk-", r"csk-[a-z0-9]{40,}"),
    R("tavily-key", "tvly-", r"tvly-[A-Za-z0-9-]{24,}"),
    R("firecrawl-key", "fc-", r"fc-[a-f0-9]{32,}"),
    R("nvidia-key", "nvapi-", r"nvapi-[A-Za-z0-9_-]{40,}"),
    R("jina-key", "jina_", r"jina_[A-Za-z0-9_-]{40,}"),
    R("voyage-key", "pa-", r"pa-[A-Za-z0-9_-]{40,}", check="random"),
    R("modal-token", "ak- as-", r"a[ks]-[A-Za-z0-9]{20,}", check="random"),
    R("brave-search-key", "BSA", r"BSA[A-Za-z0-9_-]{25,}", check="random"),
    R("anyscale-key", "esecret_", r"esecret_[A-Za-z0-9]{20,}"),
    # --- productivity, analytics, monitoring -----------------------------------------------
    R("linear-key", "lin_api_ lin_oauth_", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    R("notion-token", "secret_ ntn_", r"(?:secret|ntn)_[A-Za-z0-9]{40,}", check="random"),
    R("airtable-token", "pat", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64,}"),
    # the legacy key is exactly "key" and 14 characters: mixed case and digits keep words out
    R("airtable-key", "key", r"key[A-Za-z0-9]{14}", check="cased"),
    R("intercom-token", "dG9rO", r"dG9rO[A-Za-z0-9+/=_-]{40,}"),  # base64 of "tok:"
    R("figma-token", "figd_ figu_ figo_", r"fig[duo]_[A-Za-z0-9_-]{30,}"),
    R("clickup-token", "pk_", r"pk_[0-9]{4,}_[A-Z0-9]{30,}"),
    R("hubspot-token", "pat-na1- pat-eu1-", r"pat-(?:na|eu)1-[0-9a-f-]{36,}"),
    R("typeform-token", "tfp_", r"tfp_[A-Za-z0-9_.=-]{40,}"),
    R("contentful-token", "CFPAT-", r"CFPAT-[A-Za-z0-9_-]{40,}"),
    R("frameio-token", "fio-u-", r"fio-u-[A-Za-z0-9_=-]{40,}"),
    R("adobe-secret", "p8e-", r"p8e-[A-Za-z0-9]{32,}"),
    R("pinterest-token", "pina_", r"pina_[A-Za-z0-9]{32,}"),
    R("instagram-token", "IGQV", r"IGQV[A-Za-z0-9_-]{100,}"),
    R("twitter-bearer-token", "AAAAAAAAAAAAAAAAAAAAA", r"A{21}[A-Za-z0-9%]{30,}", check="twitter"),
    R("mapbox-token", "sk.eyJ pk.eyJ tk.eyJ", r"[spt]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    R("dropbox-token", "sl.", r"sl\.[A-Za-z0-9_.-]{100,}", check="random"),
    R("grafana-token", "glc_ glsa_",
      r"(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32,}_[A-Fa-f0-9]{8})"),
    R("grafana-key", "eyJrIjoi", r"eyJrIjoi[A-Za-z0-9+/]{40,}={0,2}"),
    R("newrelic-key", "NRAK- NRII- NRJS- NRRA- NRAA- NRSP-", r"NR(?:AK|II|JS|RA|AA|SP)-[A-Za-z0-9]{19,}"),
    R("newrelic-license-key", "NRAL", r"[a-f0-9]{36}NRAL", back=36),
    R("sentry-token", "sntrys_ sntryu_ sntryi_", r"sntry[usi]_[A-Za-z0-9+/=_]{40,}"),
    R("dynatrace-token", "dt0", r"dt0[a-z][0-9]{2}\.[A-Za-z0-9]{20,}\.[A-Za-z0-9]{40,}"),
    R("postman-key", "PMAK- PMAT-", r"PMA[KT]-[A-Za-z0-9-]{24,}"),
    R("posthog-key", "phx_ phc_", r"ph[xc]_[A-Za-z0-9]{32,}"),
    R("honeycomb-key", "hcaik_ hcxik_ hcamk_ hcxmk_", r"hc[ax][im]k_[A-Za-z0-9]{40,}"),
    R("honeybadger-token", "hbp_", r"hbp_[A-Za-z0-9]{30,}"),
    R("axiom-token", "xaat- xapt-", r"xa[ap]t-[a-f0-9-]{30,}"),
    R("launchdarkly-key", "sdk- mob-", r"(?:sdk|mob)-" + _UUID, check=None),
    R("maxmind-key", "_mmk", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29,33}_mmk", back=40),
    R("openshift-token", "sha256~", r"sha256~[A-Za-z0-9_-]{43,}"),
    R("prefect-key", "pnu_ pnb_", r"pn[ub]_[A-Za-z0-9]{36,}"),
    R("settlemint-token", "sm_aat_ sm_pat_ sm_sat_", r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16,}"),
    R("intra42-secret", "s-s4t2ud- s-s4t2af-", r"s-s4t2(?:ud|af)-[a-f0-9]{64,}"),
    R("stytch-secret", "secret-live- secret-test-", r"secret-(?:live|test)-[A-Za-z0-9_=-]{30,}"),
    R("adafruit-key", "aio_", r"aio_[A-Za-z0-9]{28,}"),
    R("castai-key", "castai_v1_", r"castai_v1_[A-Za-z0-9]{64,}_[A-Za-z0-9]{8,}"),
    R("definednetworking-token", "dnkey-", r"dnkey-[A-Za-z0-9=_-]{70,}"),
    R("authress-key", "sc_ ext_ scauth_ authress_",
      r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}"
      r"\.[A-Za-z0-9+/_=-]{30,}"),
    # --- generic structured tokens -----------------------------------------------------------
    R("jwt", "eyJ", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
)

# Discord bot tokens have no literal prefix: base64 of a numeric user id, a timestamp, an HMAC.
DISCORD_TOKEN = r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}"

# --- names in assignments ---------------------------------------------------------------------
# A name is split into lower-case words (`OPENAI_API_KEY` -> openai, api, key; `apiKey` -> api,
# key). These sets decide what kind of secret its value is, if any.

PASSWORD_WORDS = frozenset(
    "password passwd passphrase pwd pass dbpass pgpass rootpass adminpass userpass smtppass"
    " mailpass ftppass sqlpass mypass passcode".split()
)
SECRET_WORDS = frozenset("secret clientsecret appsecret consumersecret webhooksecret jwtsecret".split())
TOKEN_WORDS = frozenset(
    "token apitoken accesstoken authtoken refreshtoken sessiontoken bearertoken"
    " usertoken bottoken idtoken oauthtoken auth authorization bearer jwt cookie credential"
    " credentials creds cred secrets apikey accesskey secretkey privatekey masterkey signingkey"
    " encryptionkey licensekey appkey clientkey consumerkey accountkey subscriptionkey authkey"
    " sessionkey sshkey webhookkey apisecret".split()
)
# Words ending in one of these are compounds of a secret word (`githubtoken`, `mysecret`).
COMPOUND_SUFFIXES = ("password", "passwd", "passphrase", "secret", "token")
# ...except these, which end the same way for other reasons.
NOT_COMPOUNDS = frozenset("bypass compass askpass surpass overpass underpass trespass encompass".split())

# `key` is only a strong signal after one of these (api_key, SECRET_KEY, stripe_key ...).
KEY_MODIFIERS = frozenset(
    "api access secret private master signing sign encryption encrypt crypt crypto license app"
    " application client consumer account subscription ssh auth session service admin root deploy"
    " personal shared storage ingest write hmac jwt cookie webhook integration server bot management"
    " org organization project rest sdk mobile partner merchant dev prod production live test"
    " sandbox user aes gpg pgp rsa ed25519 ecdsa token".split()
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
    " cache table lifetime age uses rate arn ref reference".split()
)
# Names that contain a secret word but are well-known non-secrets.
NOT_SECRET_NAMES = frozenset("pwd oldpwd ssh_auth_sock gpg_agent_info".split())

# Service names that prefix a generic family: SLACK_BOT_TOKEN -> [REDACTED:slack-token].
SERVICE_ALIASES = {"dd": "datadog", "gh": "github", "hf": "huggingface", "az": "azure", "gcloud": "gcp"}
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
