"""Secrets never leave the machine: realistic keys of common providers are redacted from the bundle."""

from __future__ import annotations

from datetime import timedelta

import pytest

from orkas_tui.config import Settings
from orkas_tui.core.redact import MARK, Redactor
from orkas_tui.core.reflect import prepare
from tests.reflection.conftest import NOW, add_turn, configure, set_reflected

# Shaped like real keys (lengths and alphabets of each provider), never valid ones.
KEYS = {
    "openai": "sk-" + "T3BlbkFJ" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0uV",
    "openai-project": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6h-Ij9kLm2",
    "anthropic": "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAzx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA-zx9Yw8Vu7Ts6Rq5Po4NmAA",
    "github-classic": "ghp_" + "R2d2C3poBb8Luke4Leia5Han6Solo7Yoda8",
    "github-fine-grained": "github_pat_" + "11ABCDEFG0123456789abc_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvutsrqponmlkjihgf",
    "aws-access-key": "AKIA" + "IOSFODNN7EXAMPLQ",
    "aws-secret": "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYz",
    "google": "AIza" + "SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
    "slack-bot": "xoxb-" + "2048611245-4096122490-aBcDeFgHiJkLmNoPqRsTuVwX",
    "stripe-live": "sk_live_" + "51HqLyjW2eZvKYlo2CcXr9aBcDeFgHiJkLmNoPq",
    "stripe-restricted": "rk_live_" + "51HqLyjW2eZvKYlo2CcXr9aBcDeFgHiJkLmNoPq",
    "private-key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACB7c2VjcmV0\n-----END OPENSSH PRIVATE KEY-----",
    "rsa-private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----",
    "url-password": "postgres://deploy:" + "s3cr3t-Passw0rd" + "@db.internal:5432/app",
    "bearer": "Authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "password-param": "https://api.example.com/login?user=bob&password=" + "hunter2-Sup3r",
}
SECRET_PART = {
    "aws-secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYz",
    "url-password": "s3cr3t-Passw0rd",
    "bearer": "eyJhbGciOiJIUzI1NiJ9",
    "password-param": "hunter2-Sup3r",
    "private-key": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "rsa-private-key": "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
}


def secret(provider: str) -> str:
    return SECRET_PART.get(provider, KEYS[provider])


@pytest.mark.parametrize("provider", sorted(KEYS))
def test_each_provider_key_is_redacted(provider) -> None:
    redact = Redactor(Settings().bundle.redact_patterns)
    text = redact(f"the tool printed: {KEYS[provider]} (done)")
    assert secret(provider) not in text and MARK in text and text.endswith("(done)")


def test_keys_in_every_part_of_a_turn_never_reach_the_prompt(tmp_path) -> None:
    root = tmp_path / "ws"
    set_reflected(root, "a1", NOW - timedelta(days=2))
    at = NOW - timedelta(hours=3)
    for i, provider in enumerate(sorted(KEYS)):
        add_turn(root, "a1", at + timedelta(minutes=i), conversation=f"c{i % 3}", user=f"use {KEYS[provider]} please",
                 errors=[{"error": f"401 for {KEYS[provider]}"}], calls=1, output=f"env: {KEYS[provider]}")
    prepared = prepare(configure(root), "a1")
    sent = "\n".join(m["content"] for m in prepared.prompt.messages)
    assert prepared.prompt.redactions >= len(KEYS)
    leaked = [p for p in KEYS if secret(p) in sent]
    assert not leaked
