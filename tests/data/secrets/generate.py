"""Writes corpus.json: one fake secret per format of gitleaks' rules (config/gitleaks.toml), plus the forms
the issue names. Every value is random (seeded), shaped like the real format, and valid for nothing.

Each entry: ``rule`` (the gitleaks rule id, or our name for a form it has no rule for), ``text`` (a line as
it appears in a transcript), ``secret`` (what must never be sent). Run ``python tests/data/secrets/generate.py``.
Left out: rules for identifiers that are not secret (``*-client-id``, ``*-access-id``, public keys) and
``pkcs12-file`` (a binary file, never a transcript line).
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

RNG = random.Random(20261202)
AN = string.ascii_letters + string.digits
LC = string.ascii_lowercase + string.digits
UC = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = AN + "+/"
URL = AN + "-_"


def r(chars: str, n: int) -> str:
    return "".join(RNG.choice(chars) for _ in range(n))


def uuid() -> str:
    return "-".join(r(HEX, n) for n in (8, 4, 4, 4, 12))


def pem(kind: str, lines: int = 6, end: bool = True) -> str:
    body = "\n".join(r(B64, 64) for _ in range(lines))
    return f"-----BEGIN {kind}-----\n{body}\n" + (f"-----END {kind}-----" if end else "")


def jwt() -> str:
    import base64

    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': r(LC, 12), 'iat': 1764000000})}.{r(URL, 43)}"


# (rule, secret, text with {s} where the secret goes); the keyword rules use gitleaks' own sample form
def assignment(identifier: str, secret: str) -> tuple[str, str]:
    return secret, f'{identifier}_api_token = "{{s}}"'


ENTRIES: list[tuple[str, str, str]] = [
    # distinctive token shapes
    ("1password-secret-key", f"A3-{r(UC, 6)}-{r(UC, 11)}-{r(UC, 5)}-{r(UC, 5)}-{r(UC, 5)}", "OP_SECRET_KEY={s}"),
    ("1password-service-account-token", "ops_eyJ" + r(B64, 260), "export OP_SERVICE_ACCOUNT_TOKEN={s}"),
    ("adobe-client-secret", "p8e-" + r(AN, 32), "adobe client secret {s}"),
    ("age-secret-key", "AGE-SECRET-KEY-1" + r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), "# key: {s}"),
    ("airtable-personnal-access-token", f"pat{r(AN, 14)}.{r(HEX, 64)}", "Authorization header for airtable uses {s}"),
    ("alibaba-access-key-id", "LTAI" + r(LC, 20), "access key id {s}"),
    ("anthropic-admin-api-key", "sk-ant-admin01-" + r(URL, 93) + "AA", "ANTHROPIC_ADMIN_KEY={s}"),
    ("anthropic-api-key", "sk-ant-api03-" + r(URL, 93) + "AA", "export ANTHROPIC_API_KEY={s}"),
    ("artifactory-api-key", "AKCp" + r(AN, 69), "artifactory: {s}"),
    ("artifactory-reference-token", "cmVmd" + r(AN, 59), "ref token {s}"),
    ("authress-service-client-access-key", f"sc_{r(LC, 10)}.{r(LC, 5)}.acc_{r(LC, 20)}.{r(B64, 60)}", "AUTHRESS={s}"),
    ("aws-access-token", "AKIA" + r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), "aws_access_key_id = {s}"),
    ("aws-access-token (ASIA, temporary)", "ASIA" + r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), "AccessKeyId: {s}"),
    ("aws-amazon-bedrock-api-key-long-lived", "ABSK" + r(B64, 132), "AWS_BEARER_TOKEN_BEDROCK={s}"),
    ("azure-ad-client-secret", f"{r(AN, 3)}7Q~{r(AN + '_~.-', 34)}", 'client secret: "{s}"'),
    ("clickhouse-cloud-api-secret-key", "4b1d" + r(AN, 38), "clickhouse {s}"),
    ("clojars-api-token", "CLOJARS_" + r(LC, 60), "token {s}"),
    ("cloudflare-origin-ca-key", f"v1.0-{r(HEX, 24)}-{r(HEX, 146)}", "origin ca key {s}"),
    ("databricks-api-token", "dapi" + r(HEX, 32), "DATABRICKS_TOKEN={s}"),
    ("digitalocean-access-token", "doo_v1_" + r(HEX, 64), "do token {s}"),
    ("digitalocean-pat", "dop_v1_" + r(HEX, 64), "doctl auth init -t {s}"),
    ("digitalocean-refresh-token", "dor_v1_" + r(HEX, 64), "refresh {s}"),
    ("doppler-api-token", "dp.pt." + r(AN, 43), "DOPPLER_TOKEN={s}"),
    ("duffel-api-token", "duffel_test_" + r(URL, 43), "duffel {s}"),
    ("dynatrace-api-token", f"dt0c01.{r(UC, 24)}.{r(UC, 64)}", "Api-Token {s}"),
    ("easypost-api-token", "EZAK" + r(AN, 54), "easypost {s}"),
    ("easypost-test-api-token", "EZTK" + r(AN, 54), "easypost test {s}"),
    ("facebook-page-access-token", "EAAC" + r(AN, 120), "page token {s}"),
    ("flutterwave-secret-key", f"FLWSECK_TEST-{r(HEX, 32)}-X", "flw {s}"),
    ("flutterwave-encryption-key", f"FLWSECK_TEST-{r(HEX, 12)}", "flw enc {s}"),
    ("flyio-access-token", "fo1_" + r(URL, 43), "FLY_API_TOKEN={s}"),
    ("frameio-api-token", "fio-u-" + r(URL, 64), "frameio {s}"),
    ("gcp-api-key", "AIza" + r(URL, 35), "https://maps.googleapis.com/maps/api/geocode/json?key={s}"),
    ("github-app-token", "ghs_" + r(AN, 36), "GITHUB_TOKEN={s}"),
    ("github-fine-grained-pat", "github_pat_" + r(AN + "_", 82), "git clone https://x:{s}@github.com/o/r"),
    ("github-oauth", "gho_" + r(AN, 36), "oauth {s}"),
    ("github-pat", "ghp_" + r(AN, 36), "gh auth login --with-token <<< {s}"),
    ("github-refresh-token", "ghr_" + r(AN, 36), "refresh {s}"),
    ("gitlab-cicd-job-token", f"glcbt-{r(AN, 5)}_{r(AN, 20)}", "CI_JOB_TOKEN {s}"),
    ("gitlab-deploy-token", "gldt-" + r(AN, 20), "deploy token {s}"),
    ("gitlab-feature-flag-client-token", "glffct-" + r(AN, 20), "unleash {s}"),
    ("gitlab-feed-token", "glft-" + r(AN, 20), "feed {s}"),
    ("gitlab-incoming-mail-token", "glimt-" + r(AN, 25), "mail {s}"),
    ("gitlab-kubernetes-agent-token", "glagent-" + r(AN, 50), "agent {s}"),
    ("gitlab-oauth-app-secret", "gloas-" + r(AN, 64), "oauth app {s}"),
    ("gitlab-pat", "glpat-" + r(URL, 20), "git remote set-url origin https://oauth2:{s}@gitlab.com/g/p.git"),
    ("gitlab-pat-routable", f"glpat-{r(URL, 40)}.01{r(LC, 7)}", "PRIVATE-TOKEN: {s}"),
    ("gitlab-ptt", "glptt-" + r(HEX, 40), "trigger {s}"),
    ("gitlab-rrt", "GR1348941" + r(URL, 20), "runner registration {s}"),
    ("gitlab-runner-authentication-token", "glrt-" + r(AN, 20), "runner {s}"),
    ("gitlab-scim-token", "glsoat-" + r(AN, 20), "scim {s}"),
    ("gitlab-session-cookie", "_gitlab_session=" + r(LC, 32), "Cookie: {s}"),
    ("grafana-api-key", "eyJrIjoi" + r(AN, 72), "grafana {s}"),
    ("grafana-cloud-api-token", "glc_" + r(AN, 40), "GRAFANA_CLOUD={s}"),
    ("grafana-service-account-token", f"glsa_{r(AN, 32)}_{r(HEX, 8)}", "sa {s}"),
    ("harness-api-key", f"pat.{r(URL, 22)}.{r(AN, 24)}.{r(AN, 20)}", "harness {s}"),
    ("hashicorp-tf-api-token", f"{r(LC, 14)}.atlasv1.{r(URL, 64)}", 'credentials "app.terraform.io" {{ token = "{s}" }}'),
    ("heroku-api-key-v2", "HRKU-AA" + r(URL, 58), "HEROKU_API_KEY={s}"),
    ("huggingface-access-token", "hf_" + r(string.ascii_letters, 34), "huggingface-cli login --token {s}"),
    ("huggingface-organization-api-token", "api_org_" + r(string.ascii_letters, 34), "org token {s}"),
    ("infracost-api-token", "ico-" + r(AN, 32), "INFRACOST_API_KEY={s}"),
    ("intra42-client-secret", "s-s4t2ud-" + r(HEX, 64), "42 secret {s}"),
    ("jwt", jwt(), "token {s}"),
    ("linear-api-key", "lin_api_" + r(AN, 40), "LINEAR_API_KEY={s}"),
    ("maxmind-license-key", f"{r(AN, 6)}_{r(AN, 29)}_mmk", "LicenseKey {s}"),
    (
        "microsoft-teams-webhook",
        f"https://contoso.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{r(LC, 32)}/{uuid()}",
        "curl -X POST {s}",
    ),
    ("notion-api-token", f"ntn_{r(string.digits, 11)}{r(AN, 35)}", "NOTION_TOKEN={s}"),
    ("npm-access-token", "npm_" + r(AN, 36), "npm token create printed {s}"),
    ("octopus-deploy-api-key", "API-" + r(UC, 26), "X-Octopus-ApiKey: {s}"),
    ("openai-api-key", f"sk-proj-{r(URL, 58)}T3BlbkFJ{r(URL, 58)}", "OPENAI_API_KEY={s}"),
    ("openshift-user-token", "sha256~" + r(URL, 43), "oc login --token={s}"),
    ("perplexity-api-key", "pplx-" + r(AN, 48), "pplx {s}"),
    ("planetscale-api-token", "pscale_tkn_" + r(URL, 43), "pscale {s}"),
    ("planetscale-oauth-token", "pscale_oauth_" + r(URL, 43), "pscale oauth {s}"),
    ("planetscale-password", "pscale_pw_" + r(URL, 43), "mysql -h aws.connect.psdb.cloud -u u -p{s}"),
    ("postman-api-token", f"PMAK-{r(HEX, 24)}-{r(HEX, 34)}", "postman {s}"),
    ("prefect-api-token", "pnu_" + r(AN, 36), "PREFECT_API_KEY={s}"),
    ("private-key", pem("RSA PRIVATE KEY"), "cat id_rsa\n{s}"),
    ("private-key (OpenSSH)", pem("OPENSSH PRIVATE KEY"), "{s}"),
    ("private-key (PKCS#8, cut short)", pem("PRIVATE KEY", 3, end=False), "head -4 key.pem\n{s}"),
    ("private-key (PGP block)", pem("PGP PRIVATE KEY BLOCK"), "gpg --export-secret-keys -a\n{s}"),
    ("pulumi-api-token", "pul-" + r(HEX, 40), "PULUMI_ACCESS_TOKEN={s}"),
    ("pypi-upload-token", "pypi-AgEIcHlwaS5vcmc" + r(URL, 80), "twine upload -p {s}"),
    ("readme-api-token", "rdme_" + r(LC, 70), "readme {s}"),
    ("rubygems-api-token", "rubygems_" + r(HEX, 48), "GEM_HOST_API_KEY={s}"),
    ("scalingo-api-token", "tk-us-" + r(URL, 48), "scalingo {s}"),
    ("sendgrid-api-token", f"SG.{r(URL, 22)}.{r(URL, 43)}", "SENDGRID_API_KEY={s}"),
    ("sendinblue-api-token", f"xkeysib-{r(HEX, 64)}-{r(AN, 16)}", "brevo {s}"),
    ("sentry-user-token", "sntryu_" + r(HEX, 64), "SENTRY_AUTH_TOKEN={s}"),
    ("settlemint-personal-access-token", "sm_pat_" + r(AN, 16), "settlemint {s}"),
    ("shippo-api-token", "shippo_live_" + r(HEX, 40), "shippo {s}"),
    ("shopify-access-token", "shpat_" + r(HEX, 32), "X-Shopify-Access-Token: {s}"),
    ("shopify-custom-access-token", "shpca_" + r(HEX, 32), "custom app {s}"),
    ("shopify-private-app-access-token", "shppa_" + r(HEX, 32), "private app {s}"),
    ("shopify-shared-secret", "shpss_" + r(HEX, 32), "shared secret {s}"),
    ("sidekiq-sensitive-url", f"{r(HEX, 8)}:{r(HEX, 8)}", 'source "https://{s}@gems.contribsys.com/"'),
    ("slack-app-token", f"xapp-1-{r(UC, 11)}-{r(string.digits, 13)}-{r(LC, 64)}", "SLACK_APP_TOKEN={s}"),
    ("slack-bot-token", f"xoxb-{r(string.digits, 12)}-{r(string.digits, 13)}-{r(AN, 24)}", "SLACK_BOT_TOKEN={s}"),
    (
        "slack-user-token",
        f"xoxp-{r(string.digits, 12)}-{r(string.digits, 12)}-{r(string.digits, 13)}-{r(LC, 32)}",
        "user token {s}",
    ),
    ("slack-legacy-workspace-token", "xoxa-2-" + r(AN, 40), "legacy {s}"),
    ("slack-config-refresh-token", "xoxe-1-" + r(UC, 146), "refresh {s}"),
    (
        "slack-webhook-url",
        f"https://hooks.slack.com/services/T{r(UC, 8)}/B{r(UC, 10)}/{r(AN, 24)}",
        "curl -X POST -d @msg.json {s}",
    ),
    ("slack-webhook-url (workflows)", f"https://hooks.slack.com/workflows/{r(AN, 48)}", "webhook {s}"),
    ("square-access-token", "EAAA" + r(URL, 60), "SQUARE_ACCESS_TOKEN={s}"),
    ("stripe-access-token", "sk_live_" + r(AN, 99), "Stripe.api_key = {s}"),
    ("stripe-access-token (restricted, test)", "rk_test_" + r(AN, 40), "stripe {s}"),
    ("twilio-api-key", "SK" + r("0123456789ABCDEF", 32), "TWILIO_API_KEY={s}"),
    ("vault-batch-token", "hvb." + r(URL, 150), "VAULT_TOKEN={s}"),
    ("vault-service-token", "hvs." + r(URL, 95), "vault login {s}"),
    ("vault-service-token (legacy)", "s." + r(AN, 24), "X-Vault-Token: {s}"),
    # gitleaks' keyword rules: a provider's name near an assignment (its own sample form)
    *[
        (rule, *assignment(name, secret))
        for rule, name, secret in [
            ("adafruit-api-key", "adafruit", r(LC + "_-", 32)),
            ("airtable-api-key", "airtable", r(LC, 17)),
            ("algolia-api-key", "algolia", r(LC, 32)),
            ("alibaba-secret-key", "alibaba", r(LC, 30)),
            ("asana-client-secret", "asana", r(LC, 32)),
            ("atlassian-api-token", "atlassian", r(LC, 24)),
            ("beamer-api-token", "beamer", "b_" + r(LC + "_-", 44)),
            ("bitbucket-client-secret", "bitbucket", r(LC + "_-", 64)),
            ("bittrex-secret-key", "bittrex", r(LC, 32)),
            ("cisco-meraki-api-key", "meraki", r(HEX, 40)),
            ("cloudflare-api-key", "cloudflare", r(LC + "_-", 40)),
            ("cloudflare-global-api-key", "cloudflare", r(HEX, 37)),
            ("codecov-access-token", "codecov", r(LC, 32)),
            ("cohere-api-token", "cohere", r(AN, 40)),
            ("coinbase-access-token", "coinbase", r(LC + "_-", 64)),
            ("confluent-access-token", "confluent", r(LC, 16)),
            ("confluent-secret-key", "confluent", r(LC, 64)),
            ("contentful-delivery-api-token", "contentful", r(LC + "_-", 43)),
            ("datadog-access-token", "datadog", r(LC, 40)),
            ("defined-networking-api-token", "dnkey", f"dnkey-{r(LC, 26)}-{r(LC, 52)}"),
            ("discord-api-token", "discord", r(HEX, 64)),
            ("discord-client-secret", "discord", r(LC + "_-", 32)),
            ("droneci-access-token", "droneci", r(LC, 32)),
            ("dropbox-api-token", "dropbox", r(LC, 15)),
            ("dropbox-long-lived-api-token", "dropbox", r(LC, 11) + "AAAAAAAAAA" + r(LC + "_-", 43)),
            ("dropbox-short-lived-api-token", "dropbox", "sl." + r(LC + "_-", 135)),
            ("etsy-access-token", "etsy", r(LC, 24)),
            ("facebook-secret", "facebook", r(HEX, 32)),
            ("fastly-api-token", "fastly", r(LC + "_-", 32)),
            ("finicity-api-token", "finicity", r(HEX, 32)),
            ("finicity-client-secret", "finicity", r(LC, 20)),
            ("finnhub-access-token", "finnhub", r(LC, 20)),
            ("flickr-access-token", "flickr", r(LC, 32)),
            ("freshbooks-access-token", "freshbooks", r(LC, 64)),
            ("gitter-access-token", "gitter", r(LC + "_-", 40)),
            ("gocardless-api-token", "gocardless", "live_" + r(LC + "_-", 40)),
            ("heroku-api-key", "heroku", uuid()),
            ("hubspot-api-key", "hubspot", uuid().upper()),
            ("intercom-api-key", "intercom", r(LC + "_-", 60)),
            ("jfrog-api-key", "jfrog", r(LC, 73)),
            ("jfrog-identity-token", "jfrog", r(LC, 64)),
            ("kraken-access-token", "kraken", r(LC + "/+_-", 86)),
            ("kucoin-access-token", "kucoin", r(HEX, 24)),
            ("kucoin-secret-key", "kucoin", uuid()),
            ("launchdarkly-access-token", "launchdarkly", r(LC + "_-", 40)),
            ("linear-client-secret", "linear", r(HEX, 32)),
            ("linkedin-client-secret", "linkedin", r(LC, 16)),
            ("lob-api-key", "lob", "live_" + r(HEX, 35)),
            ("looker-client-secret", "looker", r(LC, 24)),
            ("mailchimp-api-key", "mailchimp", f"{r(HEX, 32)}-us{r(string.digits, 2)}"),
            ("mailgun-private-api-token", "mailgun", "key-" + r(HEX, 32)),
            ("mailgun-signing-key", "mailgun", f"{r(HEX, 32)}-{r(HEX, 8)}-{r(HEX, 8)}"),
            ("mapbox-api-token", "mapbox", f"pk.{r(LC, 60)}.{r(LC, 22)}"),
            ("mattermost-access-token", "mattermost", r(LC, 26)),
            ("messagebird-api-token", "messagebird", r(LC, 25)),
            ("netlify-access-token", "netlify", r(LC + "_-", 43)),
            ("new-relic-browser-api-token", "newrelic", "NRJS-" + r(HEX, 19)),
            ("new-relic-insert-key", "newrelic", "NRII-" + r(LC + "-", 32)),
            ("new-relic-user-api-key", "newrelic", "NRAK-" + r(UC, 27)),
            ("nytimes-access-token", "nytimes", r(LC + "_-", 32)),
            ("okta-access-token", "okta", "00" + r(AN + "_-", 40)),
            ("plaid-api-token", "plaid", f"access-sandbox-{uuid()}"),
            ("plaid-secret-key", "plaid", r(LC, 30)),
            ("privateai-api-token", "privateai", r(LC, 32)),
            ("rapidapi-access-token", "rapidapi", r(LC + "_-", 50)),
            ("sendbird-access-token", "sendbird", r(HEX, 40)),
            ("sentry-access-token", "sentry", r(HEX, 64)),
            ("snyk-api-token", "snyk", uuid()),
            ("sonar-api-token", "sonar", "squ_" + r(LC, 40)),
            ("squarespace-access-token", "squarespace", uuid()),
            ("sumologic-access-token", "sumo", r(LC, 64)),
            ("telegram-bot-api-token", "telegram", f"{r(string.digits, 10)}:A{r(LC + '_-', 34)}"),
            ("travisci-access-token", "travis", r(LC, 22)),
            ("twitch-api-token", "twitch", r(LC, 30)),
            ("twitter-access-secret", "twitter", r(LC, 45)),
            ("twitter-access-token", "twitter", f"{r(string.digits, 19)}-{r(AN, 40)}"),
            ("twitter-api-key", "twitter", r(LC, 25)),
            ("twitter-api-secret", "twitter", r(LC, 50)),
            ("twitter-bearer-token", "twitter", "A" * 22 + r(AN + "%", 90)),
            ("typeform-api-token", "typeform", "tfp_" + r(LC + "_-.", 59)),
            ("yandex-access-token", "yandex", f"t1.{r(AN, 20)}.{r(URL, 86)}"),
            ("yandex-api-key", "yandex", "AQVN" + r(URL, 36)),
            ("yandex-aws-access-token", "yandex", "YC" + r(URL, 38)),
            ("zendesk-secret-key", "zendesk", r(LC, 40)),
        ]
    ],
    # forms the issue names that gitleaks covers with context rules
    ("generic-api-key (JSON)", r(B64, 40), '{{"SecretAccessKey": "{s}", "AccessKeyId": "AKIAEXAMPLE"}}'),
    ("generic-api-key (client_secret)", r(URL, 35), '{{"client_id": "app", "client_secret": "{s}"}}'),
    ("generic-api-key (password JSON)", "Tr0ub4dor&3", '{{"user": "admin", "password": "{s}"}}'),
    ("generic-api-key (YAML password)", "correct-horse-battery-9", "database:\n  user: app\n  password: {s}\n"),
    ("generic-api-key (session token)", "IQoJb3JpZ2luX2VjE" + r(B64, 180), "aws_session_token = {s}"),
    ("generic-api-key (high entropy, env)", r(AN, 32), "MY_SERVICE_KEY={s}"),
    ("kubernetes-secret-yaml", r(B64, 24) + "==", "apiVersion: v1\nkind: Secret\ndata:\n  password: {s}\n"),
    ("nuget-config-password", "n9Get-" + r(AN, 12), '<add key="ClearTextPassword" value="{s}" />'),
    ("curl-auth-user", "p4ss-" + r(AN, 10), "curl -u admin:{s} https://api.example.com/v1"),
    ("curl-auth-header (Basic)", "YWRtaW46" + r(B64, 20) + "==", 'curl -H "Authorization: Basic {s}" https://x'),
    ("curl-auth-header (Bearer)", r(URL, 40), "curl -H 'Authorization: Bearer {s}' https://x"),
    ("mysql -p", "My5ql-" + r(AN, 10), "mysql -u root -p{s} -h db appdb"),
    ("redis URL, password only", "pw", "redis-cli -u redis://:{s}@cache.internal:6379/0"),
    ("postgres URL", "pg-" + r(AN, 14), "DATABASE_URL=postgres://app:{s}@db.internal:5432/app"),
    ("mongodb+srv URL", "mg" + r(AN, 12), "mongodb+srv://svc:{s}@cluster0.mongodb.net/db"),
    (
        "azure-storage-account-key",
        r(B64, 86) + "==",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net",
    ),
    ("azure-sas-signature", r(AN, 40) + "%3D", "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-12-31&sp=r&sig={s}"),
    ("discord-webhook-url", f"https://discord.com/api/webhooks/{r(string.digits, 18)}/{r(URL, 68)}", "POST {s}"),
    ("sshpass -p", "Ssh-" + r(AN, 10), "sshpass -p {s} ssh deploy@host"),
    # typed into a real prompt (FitToday, set 5 of the correction corpus): a bare key, no name beside it
    (
        "revenuecat-secret-api-key",
        "sk_" + r(string.ascii_letters, 29),
        "a chave secreta do RevenueCat é {s}, configura no backend",
    ),
]


def main() -> None:
    corpus = [{"rule": rule, "text": text.format(s=secret), "secret": secret} for rule, secret, text in ENTRIES]
    rules = [e["rule"] for e in corpus]
    assert len(rules) == len(set(rules)), "one entry per rule"
    path = Path(__file__).with_name("corpus.json")
    path.write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(corpus)} secrets written to {path}")


if __name__ == "__main__":
    main()
