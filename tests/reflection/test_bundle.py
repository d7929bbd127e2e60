"""The bundle: the token budget is never exceeded, cuts come in the spec's order, secrets never leave."""

from __future__ import annotations

import importlib.util
import re
import sys
from datetime import timedelta

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.reflect.bundle import build_bundle
from orkas_tui.core.reflect.reflection import prepare
from orkas_tui.core.reflect.tokens import count_tokens
from orkas_tui.core.store.system_events import log_event
from orkas_tui.core.summary.scan import AgentScan
from tests.reflection.conftest import NOW, add_events, add_turn, configure, set_reflected, ts
from tests.trust.conftest import cli

M = timedelta(minutes=1)
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"


def scan_of(root, agent="a"):
    ws = Workspace(root)
    scan = AgentScan(ws.agent(agent), ws.settings)
    scan.refresh()
    return scan


def test_tiktoken_loads_offline_from_litellms_folder_without_importing_litellm():
    import os

    assert count_tokens("hello world") == 2
    assert "litellm_core_utils" in os.environ["TIKTOKEN_CACHE_DIR"]
    assert importlib.util.find_spec("litellm") is not None


def test_a_conversation_far_over_the_budget_is_cut_to_fit(root):
    long_output = "log line with some words 12345\n" * 400  # ~4k tokens each
    for i in range(60):
        add_turn(root, "a", NOW - timedelta(hours=60 - i), user=f"request number {i}", calls=2, output=long_output)
    raw = (root / "agents" / "a" / "conversations" / "c1.jsonl").read_text()
    assert count_tokens(raw) > 30 * 12_000
    bundle = build_bundle(scan_of(root), None)
    assert bundle.items_total == 60 * 8
    assert bundle.tokens <= 12_000 and count_tokens(bundle.text) == bundle.tokens
    assert bundle.outputs_cut == 120  # long tool outputs are cut first...
    assert bundle.items_kept < bundle.items_total  # ...then the oldest lines dropped
    assert "request number 59" in bundle.text and "request number 0\n" not in bundle.text
    assert "older line(s) dropped to fit the token budget" in bundle.text
    assert "… [cut" in bundle.text


def test_cutting_outputs_alone_can_be_enough_and_nothing_is_dropped(root):
    add_turn(root, "a", NOW - M, calls=3, output="x y z " * 3000)
    bundle = build_bundle(scan_of(root), None)
    assert bundle.outputs_cut == 3 and bundle.items_kept == bundle.items_total
    assert bundle.tokens <= 12_000


def test_under_budget_nothing_is_cut(root):
    add_turn(root, "a", NOW - M, calls=2, output="short output")
    bundle = build_bundle(scan_of(root), None)
    assert bundle.outputs_cut == 0 and bundle.items_kept == bundle.items_total
    assert "short output" in bundle.text


def test_a_141_kb_paste_is_cut_head_and_tail_and_what_came_before_stays(root):
    """Finding: one pasted 141 KB message made the bundle drop it and everything older."""
    for i in range(5):
        add_turn(root, "a", NOW - timedelta(hours=5 - i), user=f"earlier request {i}", calls=1, output="fine")
    paste = (
        "PASTE-HEAD " + "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(2_700)) + " PASTE-TAIL"
    )
    assert len(paste.encode()) > 141_000
    add_turn(root, "a", NOW - M, user=paste)
    bundle = build_bundle(scan_of(root), None)
    assert bundle.tokens <= 12_000 and count_tokens(bundle.text) == bundle.tokens
    assert "PASTE-HEAD" in bundle.text and "PASTE-TAIL" in bundle.text and "tokens cut …]" in bundle.text
    assert bundle.lines_cut == 1 and bundle.items_kept == bundle.items_total
    assert all(f"earlier request {i}" in bundle.text for i in range(5))
    start = bundle.text.index("PASTE-HEAD")
    assert count_tokens(bundle.text[start : bundle.text.index("PASTE-TAIL") + 10]) <= 12_000 // 4


def test_a_long_line_under_budget_is_not_cut(root):
    add_turn(root, "a", NOW - M, user="word " * 5_000)  # ~5,000 tokens: over a quarter, but everything fits
    bundle = build_bundle(scan_of(root), None)
    assert bundle.lines_cut == 0 and "tokens cut" not in bundle.text and bundle.text.count("word") == 5_000


def test_an_unreadable_events_file_is_reported_and_the_dry_run_still_works(root):
    add_turn(root, "a", NOW - M, user="hello there")
    events = root / "agents" / "a" / "events.jsonl"
    events.mkdir(parents=True)  # a folder where the file should be: open() fails for every user, root included
    code, out, err = cli("reflect", "a", "--dry-run", "--workspace", str(root), "--now", ts(NOW))
    assert code == 0, err
    assert "problem: events.jsonl: cannot read" in out and "hello there" in out
    # each count once, naming what it counts: the tokens and conversations, then each part's lines
    assert re.search(r"^bundle: [\d,]+ of 12,000 tokens from 1 conversation\(s\), 0 tool output\(s\) cut$", out, re.M)
    assert re.search(r"^parts: .*activity [\d,]+ \(\d+/\d+ lines\)$", out, re.M) and " events," not in out
    assert build_bundle(scan_of(root), None).problems == [
        "events.jsonl: cannot read (not a regular file); left out of the bundle"
    ]


def test_one_message_bigger_than_the_budget_is_truncated_not_sent_whole(root):
    add_turn(root, "a", NOW - M, user="word " * 30_000)
    bundle = build_bundle(scan_of(root), None)
    assert bundle.tokens <= 12_000


@hsettings(max_examples=15, deadline=None)
@given(budget=st.integers(min_value=500, max_value=3000), sizes=st.lists(st.integers(0, 4000), min_size=1, max_size=12))
def test_never_over_any_budget(tmp_path_factory, budget, sizes):
    root = tmp_path_factory.mktemp("ws")
    configure(root, extra=f"[bundle]\nmax_tokens = {budget}\n")
    for i, size in enumerate(sizes):
        add_turn(
            root, "a", NOW - timedelta(hours=len(sizes) - i), user="déjà vu 不对 " * (size // 10), calls=1, output="é" * size
        )
    bundle = build_bundle(scan_of(root), None)
    assert count_tokens(bundle.text) <= budget


def test_only_the_period_since_the_last_reflection_and_at_most_five_conversations(root):
    add_turn(root, "a", NOW - timedelta(days=3), conversation="old", user="before the reflection")
    set_reflected(root, "a", NOW - timedelta(days=2))
    for i in range(7):
        add_turn(root, "a", NOW - timedelta(hours=10 - i), conversation=f"conv{i}", user=f"message in conv{i}")
    bundle = build_bundle(scan_of(root), NOW - timedelta(days=2))
    assert bundle.conversations == ["conv6", "conv5", "conv4", "conv3", "conv2"]
    assert "before the reflection" not in bundle.text and "conv0" not in bundle.text and "message in conv6" in bundle.text


def test_system_events_of_the_period_are_interleaved_in_time_order(root):
    add_turn(root, "a", NOW - 30 * M, user="first request")
    add_turn(root, "a", NOW - 10 * M, user="second request")
    paths = AgentPaths(root / "agents" / "a")
    log_event(paths, "skill_created", NOW - 20 * M, skill="deploy-docs", by="reflection")
    log_event(paths, "skill_deleted", NOW - timedelta(days=9), skill="ancient", by="user")
    set_reflected(root, "a", NOW - timedelta(days=1))
    text = build_bundle(scan_of(root), NOW - timedelta(days=1)).text
    first, event, second = text.index("first request"), text.index("system skill_created"), text.index("second request")
    assert first < event < second
    assert "ancient" not in text


def test_secrets_are_redacted_before_counting_and_sending(root):
    add_events(
        root,
        "a",
        "c1",
        [
            {"ts": ts(NOW - M), "type": "turn_start", "turn": "t1", "skills_indexed": []},
            {"ts": ts(NOW - M), "type": "user", "text": f"use key {SECRET} and https://bob:hunter2@example.com/x"},
            {
                "ts": ts(NOW - M),
                "type": "tool_call",
                "id": "c",
                "name": "http",
                "args": {"headers": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345"},
            },
            {
                "ts": ts(NOW - M),
                "type": "tool_result",
                "id": "c",
                "ok": True,
                "output": "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----",
            },
            {"ts": ts(NOW), "type": "turn_end", "turn": "t1", "status": "ok"},
        ],
    )
    (root / "agents" / "a" / "self").mkdir()
    (root / "agents" / "a" / "self" / "profile.md").write_text(f"my token is {SECRET}")
    prepared = prepare(Workspace(root), "a")
    assert prepared.bundle.redactions == 4
    assert prepared.prompt.redactions == 5
    sent = "".join(m["content"] for m in prepared.prompt.messages)
    for secret in (SECRET, "hunter2", "abcdefghijklmnopqrstuvwxyz012345", "MIIEabc"):
        assert secret not in sent
    assert sent.count("[REDACTED]") == 5


def test_custom_redact_patterns_are_a_setting(root):
    configure(root, extra='[bundle]\nredact_patterns = ["ACME-[0-9]+"]\n')
    add_turn(root, "a", NOW - M, user="ticket ACME-12345 please")
    bundle = build_bundle(scan_of(root), None)
    assert bundle.redactions == 1 and "ACME-12345" not in bundle.text


def test_transient_errors_are_labelled_as_the_environments(root):
    add_turn(root, "a", NOW - M, errors=[{"error": "ETIMEDOUT registry"}, {"error": "exit status 2"}])
    text = build_bundle(scan_of(root), None).text
    assert "TRANSIENT error (the environment's, not the agent's) (call" in text
    assert re.search(r"\] c1 tool_result \{t\d+ `\w+` \w+\}: error \(call", text)  # with its source id and tool


def test_building_a_bundle_does_not_import_litellm(root):
    add_turn(root, "a", NOW - M)
    already = "litellm" in sys.modules
    prepare(Workspace(root), "a")
    assert ("litellm" in sys.modules) == already
