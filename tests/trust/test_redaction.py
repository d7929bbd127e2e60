"""Secrets never leave the machine: realistic keys of common providers are redacted from the bundle.

Recall is measured on tests/data/secrets/corpus.json (one fake secret per format of gitleaks'
rules, see its generate.py) in every place a secret can sit; false positives on the real
transcripts in shared/samples.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.reflect.bundle import BundleItem, _collect, unseen_conversations
from orkas_tui.core.reflect.reflection import prepare
from orkas_tui.core.reflect.sources import SourceIds
from orkas_tui.core.store.redact import MARK, Redactor
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.importers.run import discover, import_files
from tests.importers.conftest import SHARED, samples  # noqa: F401 - the vendored samples, unpacked once
from tests.reflection.conftest import NOW, add_events, add_turn, configure, set_reflected, ts
from tests.trust.conftest import cli

# Shaped like real keys (lengths and alphabets of each provider), never valid ones.
KEYS = {
    "openai": "sk-" + "T3BlbkFJ" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0uV",
    "openai-project": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6h-Ij9kLm2",
    "anthropic": "sk-ant-api03-"
    + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAzx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA-zx9Yw8Vu7Ts6Rq5Po4NmAA",
    "github-classic": "ghp_" + "R2d2C3poBb8Luke4Leia5Han6Solo7Yoda8",
    "github-fine-grained": "github_pat_"
    + "11ABCDEFG0123456789abc_"
    + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvutsrqponmlkjihgf",
    "aws-access-key": "AKIA" + "IOSFODNN7EXAMPLQ",
    "aws-secret": "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYz",
    "google": "AIza" + "SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
    "slack-bot": "xoxb-" + "2048611245-4096122490-aBcDeFgHiJkLmNoPqRsTuVwX",
    "stripe-live": "sk_live_" + "51HqLyjW2eZvKYlo2CcXr9aBcDeFgHiJkLmNoPq",
    "stripe-restricted": "rk_live_" + "51HqLyjW2eZvKYlo2CcXr9aBcDeFgHiJkLmNoPq",
    "private-key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACB7c2VjcmV0\n-----END OPENSSH PRIVATE KEY-----",
    "rsa-private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----",
    "url-password": "postgres://deploy:" + "s3cr3t-Passw0rd" + "@db.internal:5432/app",
    "bearer": "Authorization: Bearer "
    + "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
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
        add_turn(
            root,
            "a1",
            at + timedelta(minutes=i),
            conversation=f"c{i % 3}",
            user=f"use {KEYS[provider]} please",
            errors=[{"error": f"401 for {KEYS[provider]}"}],
            calls=1,
            output=f"env: {KEYS[provider]}",
        )
    prepared = prepare(configure(root), "a1")
    sent = "\n".join(m["content"] for m in prepared.prompt.messages)
    assert prepared.prompt.redactions >= len(KEYS)
    leaked = [p for p in KEYS if secret(p) in sent]
    assert not leaked


# --- Recall: every secret of the corpus, in every place an event, a note or a skill can hold it ---

CORPUS = json.loads((Path(__file__).resolve().parents[1] / "data" / "secrets" / "corpus.json").read_text("utf-8"))
PLACES = ("user text", "assistant text", "tool arguments", "tool output", "tool error", "turn error", "self note", "skill body")


def leaked(secret: str, sent: str) -> bool:
    """Any 12 characters in a row of the secret (all of it when shorter) still in what is sent."""
    n = min(len(secret), 12)
    return any(secret[i : i + n] in sent for i in range(len(secret) - n + 1))


def place(root: Path, where: str) -> None:
    """Every corpus text in one place of an agent's workspace, within the period a reflection reads."""
    (root / "agents").mkdir(parents=True)
    configure(
        root,
        extra="[bundle]\nmax_tokens = 1_000_000\nmax_conversations = 1_000\n"
        "[self]\nprofile_cap = 100_000\n[skills]\nmax_skills = 1_000\n",
    )
    set_reflected(root, "a1", NOW - timedelta(days=2))
    start = NOW - timedelta(hours=10)
    paths = AgentPaths(root / "agents" / "a1")
    if where == "self note":
        (paths.root / "self").mkdir(parents=True)
        (paths.root / "self" / "profile.md").write_text("\n\n".join(e["text"] for e in CORPUS), "utf-8")
    for i, entry in enumerate(CORPUS):
        at, text, turn = start + timedelta(minutes=i), entry["text"], f"t{i}"
        events = [
            {"ts": ts(at), "type": "turn_start", "turn": turn, "skills_indexed": []},
            {"ts": ts(at), "type": "user", "text": text if where == "user text" else "go on"},
            {
                "ts": ts(at),
                "type": "tool_call",
                "id": f"c{i}",
                "name": "bash",
                "args": {"command": text if where == "tool arguments" else "ls"},
            },
        ]
        if where == "tool error":
            events.append({"ts": ts(at), "type": "tool_result", "id": f"c{i}", "ok": False, "error": text})
        else:
            events.append(
                {
                    "ts": ts(at),
                    "type": "tool_result",
                    "id": f"c{i}",
                    "ok": True,
                    "output": text if where == "tool output" else "ok",
                }
            )
        if where == "skill body":
            SkillStore(paths, Settings(max_skills=1_000)).create(f"skill {i}", "when it applies", f"Steps:\n{text}\n", at)
            events.append({"ts": ts(at), "type": "skill_read", "skill": f"skill-{i}"})
        events.append({"ts": ts(at), "type": "assistant", "text": text if where == "assistant text" else "Done."})
        end = {"status": "error", "error": text} if where == "turn error" else {"status": "ok"}
        events.append({"ts": ts(at + timedelta(seconds=30)), "type": "turn_end", "turn": turn, **end})
        add_events(root, "a1", f"c{i % 7}", events)


@pytest.mark.parametrize("where", PLACES)
def test_every_corpus_secret_is_redacted_in_every_place(tmp_path: Path, where: str) -> None:
    root = tmp_path / "ws"
    place(root, where)
    prepared = prepare(Workspace(root), "a1")
    assert prepared.bundle.items_kept == prepared.bundle.items_total and prepared.bundle.lines_cut == 0
    sent = "\n".join(m["content"] for m in prepared.prompt.messages)
    if where == "skill body":
        assert sent.count("### Body of skill-") == len(CORPUS)
    leaks = [e["rule"] for e in CORPUS if leaked(e["secret"], sent)]
    assert leaks == [], f"{len(leaks)} of {len(CORPUS)} secrets leak from the {where}: {leaks}"
    if where != "self note":  # in the one note, neighbouring secrets can merge into one redaction
        assert prepared.prompt.redactions >= len(CORPUS)


def test_the_dry_run_preview_shows_no_corpus_secret(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    place(root, "tool arguments")
    code, out, err = cli("reflect", "a1", "--dry-run", "--workspace", str(root), "--now", ts(NOW))
    assert code == 0, err
    assert [e["rule"] for e in CORPUS if leaked(e["secret"], out)] == []


# --- False positives: what is redacted in the real transcripts of shared/samples, each one named ---

SAMPLE_REDACTIONS = [
    # a Phoenix test config's secret_key_base: a secret by its form, though a test-only one
    "test-only-secret-base-minimum-64-bytes-long-enough-for-phoenix-token-signing-ok",
]


def test_false_positives_on_the_real_samples_are_the_named_ones(tmp_path: Path, samples: Path) -> None:  # noqa: F811
    workspace = Workspace(tmp_path)
    for agent in ("cc", "cx"):
        (tmp_path / "agents" / agent).mkdir(parents=True)
    for fmt, agent in (("claude-code", "cc"), ("codex", "cx")):
        sources = discover(fmt, [samples / name for name in SHARED[fmt]])  # the samples of shared/samples
        import_files(workspace.agent(agent), workspace.settings, fmt, sources, settle=0)
    redact = Redactor(Settings().bundle.redact_patterns)
    found, texts = [], 0
    for agent in ("cc", "cx"):
        scan = AgentScan(workspace.agent(agent), workspace.settings)
        scan.refresh()
        items, _, _, _, _ = _collect(scan, None, {}, unseen_conversations(scan, {}, 1_000), SourceIds(()))
        for item in map(BundleItem.described, items):
            for text in filter(None, (item.text, item.output)):
                texts += 1
                found += [text[start:end] for start, end in redact.spans(text)]
    assert texts > 700
    assert sorted(set(found)) == sorted(SAMPLE_REDACTIONS)


# --- No input makes redaction hang (catastrophic backtracking) ---

HOSTILE = [
    "token." * 3_000,
    "token" * 4_000,
    "secret_" * 3_000,
    "api_key" + " " * 20_000 + "x",
    "key=" * 5_000,
    "Authorization:" + " " * 20_000,
    "-----BEGIN RSA PRIVATE KEY-----" + " abc" * 20_000,
    "\\n" * 50_000,
    "//" * 10_000 + "/:_authToken=",
    "x-api-key:" * 3_000,
    '"password"' * 3_000,
    "http://" + "a:" * 10_000,
]


def test_hostile_texts_are_redacted_without_hanging() -> None:
    """Each of these took from 3 s to many minutes with the first patterns (several detect-secrets
    plugin patterns are polynomial on long runs); a child process must finish them all."""
    code = (
        "import sys, json\nfrom orkas_tui.core.read.settings import Settings\nfrom orkas_tui.core.store.redact import Redactor\n"
        "r = Redactor(Settings().bundle.redact_patterns)\n"
        "print(sum(len(r(t)) > 0 for t in json.load(sys.stdin)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(HOSTILE),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(len(HOSTILE))


@pytest.mark.parametrize(
    "text",
    [
        "Always pass the --token flag to the CLI",
        "export PGPASSWORD=$DB_PASS; use --password $DB_PASS",
        "maxThinkingTokens: 31999",
        "const apiKey = config.apiKey;",
        "remainingTokens = CHUNK_SIZE - PROMPT_TOKENS",
        '"sessionId":"491e126e-1e71-469c-ade2-fcc8af567c74"',
        "(phoenix 1.8.3) lib/phoenix/token.ex:266: get_e",
        "the secret of good code is tests",
        "secret_key_base: ...",
        "git commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
    ],
)
def test_ordinary_text_about_credentials_is_left_alone(text: str) -> None:
    """Code and prose that name credentials without holding one (each seen in real transcripts or skills)."""
    assert Redactor(Settings().bundle.redact_patterns)(text) == text
