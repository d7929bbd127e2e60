"""Reflections through the real litellm client against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import signal
import threading
import time
from datetime import timedelta

import orjson
import pytest

from orkas_tui.core.disk.write import file_lock
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import Workspace, read_state
from orkas_tui.core.reflect.queue import workspace_queue
from orkas_tui.core.reflect.reflection import reflect
from orkas_tui.core.store.changes import approve
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.proposals import list_proposals
from orkas_tui.core.store.skills import SkillStore
from tests.modelserver import Step, error, reply
from tests.reflection.conftest import NOW, configure, run_cli, set_reflected, trigger_turn, write_skill

DEPLOY_BODY = "When deploying the docs:\n\n1. Run make docs.\n2. Upload the site folder.\n"
GOOD = {
    "summary": "The user corrected the cluster twice; deploying needs the staging step.",
    "operations": [
        {
            "op": "create_skill",
            "sources": ["$USER"],
            "name": "Deploy to staging first",
            "description": "When the user asks to deploy, target the staging cluster first",
            "body": "When asked to deploy, always deploy to the staging cluster first and wait for a green check.",
        },
        {
            "op": "patch_skill",
            "sources": ["$USER"],
            "skill": "deploy-docs",
            "find": "1. Run make docs.",
            "replace": "1. Run make docs-clean docs.",
        },
        {
            "op": "update_self",
            "sources": ["$USER"],
            "note": "profile",
            "content": "I stumble on `kubectl` contexts: always check the context first.",
        },
    ],
}


@pytest.fixture
def coder(root):
    set_reflected(root, "coder", NOW - timedelta(days=2))
    trigger_turn(root, "coder", NOW - timedelta(hours=5), read=["deploy-docs"])
    write_skill(root, "coder", "deploy-docs", "Deploy the docs", DEPLOY_BODY)
    return root


def skills_dir_snapshot(root):
    folder = root / "agents" / "coder" / "skills"
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def events_of(root, kind):
    path = root / "agents" / "coder" / "events.jsonl"
    if not path.exists():
        return []
    return [e for e in map(orjson.loads, path.read_bytes().splitlines()) if e["type"] == kind]


def test_good_answer_applied_at_once_with_history_events_usage_and_stages(coder, server):
    server.steps = [reply(GOOD)]
    ws = configure(coder, server, auto_apply=True)
    stages = []
    outcome = reflect(ws, "coder", NOW, on_progress=lambda p: stages.append((p.stage, p.message)))
    assert outcome.status == "applied", outcome.message
    assert [stage for stage, _ in stages] == ["bundle", "waiting", "validating", "applying", "done"]
    built = stages[0][1]  # each count names what it counts: the turns first, then the lines of recent activity
    assert re.search(r"triggering turns: \d+ of \d+ kept; recent activity: \d+ of \d+ lines from \d+ conversation", built)
    store = SkillStore(ws.agent("coder"), ws.settings)
    created = store.get("deploy-to-staging-first")
    assert created.body.startswith("When asked to deploy, always deploy to the staging cluster")
    patched = store.get("deploy-docs")
    assert "1. Run make docs-clean docs." in patched.body and patched.patch_count == 1
    profile = coder / "agents" / "coder" / "self" / "profile.md"
    assert profile.read_text() == GOOD["operations"][2]["content"]
    changes = list_changes(ws.agent("coder"))
    assert [c.action for c in changes] == ["create_skill", "patch_skill", "update_self"]
    assert changes[1].before and "1. Run make docs.\n" in changes[1].before and "docs-clean" in changes[1].after
    assert changes[0].before is None and changes[2].before is None
    assert outcome.changes == [c.id for c in changes]
    assert [len(events_of(coder, k)) for k in ("skill_created", "skill_patched", "self_updated", "reflection")] == [1, 1, 1, 1]
    event = events_of(coder, "reflection")[0]
    assert event["prompt_tokens"] == 1200 and event["completion_tokens"] == 80 and event["status"] == "applied"
    assert outcome.prompt_tokens == 1200 and outcome.completion_tokens == 80 and outcome.attempts == 1
    state = read_state(ws.agent("coder"))
    assert state["last_reflection_at"] == format_ts(NOW) and state["last_usage"]["prompt_tokens"] == 1200
    sent = server.requests[0]
    assert sent["model"] == "test-model"
    system, user = sent["messages"][0]["content"], sent["messages"][1]["content"]
    assert "never" in system and "transient" in system.lower() and '"operations": []' in system
    assert "That's wrong, I meant the staging cluster" in user and "1. Run make docs." in user
    assert "invocation rate" in user
    # the cooldown starts now
    decision = workspace_queue(ws, NOW + timedelta(minutes=1)).decision("coder")
    assert decision.reason == "no changes"


def test_default_is_a_proposal_and_approving_twice_applies_once(coder, server, capsys):
    server.steps = [reply(GOOD)]
    ws = configure(coder, server)
    before = skills_dir_snapshot(coder)
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "proposed" and outcome.proposal == "coder.p1"
    assert skills_dir_snapshot(coder) == before and not (coder / "agents" / "coder" / "self").exists()
    root = str(coder)
    code, out, err = run_cli(capsys, "proposals", "approve", "coder.p1", "--workspace", root, "--now", format_ts(NOW))
    assert code == 0, err
    assert out.count("applied coder.c") == 3
    code, out, _ = run_cli(capsys, "proposals", "approve", "coder.p1", "--workspace", root)
    assert code == 0 and "nothing pending" in out
    code, out, _ = run_cli(capsys, "proposals", "approve", "coder.p1", "--op", "1", "--workspace", root)
    assert code == 0 and "already applied" in out
    assert len(list_changes(ws.agent("coder"))) == 3
    assert SkillStore(ws.agent("coder"), ws.settings).get("deploy-docs").patch_count == 1


def test_concurrent_approvals_apply_each_operation_once(coder, server):
    from orkas_tui.core.store.changes import approve

    server.steps = [reply(GOOD)]
    ws = configure(coder, server)
    reflect(ws, "coder", NOW)
    results = []
    threads = [threading.Thread(target=lambda: results.append(approve(ws, "coder.p1", NOW)[1])) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(len(r.applied) for r in results) == 3
    assert len(list_changes(ws.agent("coder"))) == 3
    assert not any(r.failed for r in results)


def test_nothing_to_save_spends_the_cooldown_and_writes_no_proposal(coder, server):
    server.steps = [reply({"summary": "An ordinary day.", "operations": []})]
    ws = configure(coder, server, auto_apply=True)
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "nothing_to_save" and outcome.proposal is None
    assert list_proposals(ws.agent("coder")) == [] and list_changes(ws.agent("coder")) == []
    assert read_state(ws.agent("coder"))["last_reflection_at"] == format_ts(NOW)
    assert events_of(coder, "reflection")[0]["status"] == "nothing_to_save"


@pytest.mark.parametrize(
    "text",
    [
        "Sure! I would create a skill about staging.",
        '["not", "an", "object"]',
        '{"summary": "no ops key"}',
        '{"summary": "x", "operations": [',
        "",
    ],
)
def test_a_reply_that_is_not_the_json_object_writes_nothing_and_is_kept(coder, server, text):
    server.steps = [reply(text)]
    ws = configure(coder, server, auto_apply=True)
    before = skills_dir_snapshot(coder)
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "invalid_reply"
    assert skills_dir_snapshot(coder) == before
    assert list_proposals(ws.agent("coder")) == [] and list_changes(ws.agent("coder")) == []
    kept = coder / "agents" / "coder" / ".orkas" / "replies"
    assert [p.read_text() for p in kept.glob("*.txt")] == [text]
    state = read_state(ws.agent("coder"))
    assert state["last_reflection_at"] == format_ts(NOW - timedelta(days=2))  # no cooldown spent
    assert events_of(coder, "reflection_failed")[0]["status"] == "invalid_reply"


def test_a_fenced_json_reply_is_accepted(coder, server):
    server.steps = [reply("```json\n" + json.dumps({"summary": "s", "operations": []}) + "\n```")]
    assert reflect(configure(coder, server), "coder", NOW).status == "nothing_to_save"


def test_a_path_traversal_slug_is_refused_and_nothing_is_written(coder, server):
    server.steps = [
        reply(
            {
                "summary": "s",
                "operations": [
                    GOOD["operations"][0],
                    {"op": "patch_skill", "sources": ["$USER"], "skill": "../../../etc/passwd", "find": "root", "replace": "x"},
                    {"op": "delete_skill", "sources": ["$USER"], "skill": "../deploy-docs", "reason": "r"},
                    {"op": "delete_skill", "sources": ["$USER"], "skill": "sub/deploy-docs", "reason": "r"},
                ],
            }
        )
    ]
    ws = configure(coder, server, auto_apply=True)
    before = skills_dir_snapshot(coder)
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "proposed"
    assert [bad["index"] for bad in outcome.invalid] == [1, 2, 3]
    assert all("not a skill slug inside the agent's skills/ folder" in bad["reason"] for bad in outcome.invalid)
    assert skills_dir_snapshot(coder) == before and list_changes(ws.agent("coder")) == []
    assert outcome.reply_path and (coder / "agents" / "coder" / ".orkas" / "replies").is_dir()


def test_a_patch_whose_fragment_is_missing_is_refused_and_nothing_is_written(coder, server):
    server.steps = [
        reply(
            {
                "summary": "s",
                "operations": [
                    GOOD["operations"][2],
                    {"op": "patch_skill", "sources": ["$USER"], "skill": "deploy-docs", "find": "Run make html.", "replace": "x"},
                ],
            }
        )
    ]
    ws = configure(coder, server, auto_apply=True)
    outcome = reflect(ws, "coder", NOW)
    assert outcome.invalid == [
        {"index": 1, "reason": "patch_skill: the fragment to find occurs 0 times in deploy-docs (it must occur exactly once)"}
    ]
    assert not (coder / "agents" / "coder" / "self").exists() and list_changes(ws.agent("coder")) == []


def test_a_time_out_and_a_429_then_success(coder, server):
    server.steps = [reply(GOOD, delay_s=1.5), error(429), reply(GOOD)]
    ws = configure(coder, server, auto_apply=True, timeout_s=0.4)
    stages = []
    outcome = reflect(ws, "coder", NOW, on_progress=lambda p: stages.append((p.stage, p.message)))
    assert outcome.status == "applied" and outcome.attempts == 3
    retries = [m for s, m in stages if s == "retrying"]
    assert len(retries) == 2 and "Timeout" in retries[0] and "429" in retries[1]
    assert len(list_changes(ws.agent("coder"))) == 3


def test_a_model_that_keeps_failing_changes_nothing_and_spends_no_cooldown(coder, server, capsys):
    server.steps = [error(503)]
    ws = configure(coder, server, auto_apply=True)
    before = skills_dir_snapshot(coder)
    code, out, err = run_cli(capsys, "reflect", "coder", "--workspace", str(coder), "--now", format_ts(NOW))
    assert code == 3 and out == ""
    assert err.strip().splitlines()[-1].startswith("orkas-tui: coder: transient_failure: model call failed after 3 attempt(s)")
    assert len(server.requests) == 3
    assert skills_dir_snapshot(coder) == before and list_proposals(ws.agent("coder")) == []
    state = read_state(ws.agent("coder"))
    assert state["last_reflection_at"] == format_ts(NOW - timedelta(days=2))
    assert state["last_failure_transient"] is True
    failure = events_of(coder, "reflection_failed")[0]
    assert failure["transient"] is True and failure["status"] == "transient_failure"
    assert workspace_queue(ws, NOW + timedelta(minutes=1)).decision("coder").selected


def test_a_refused_key_is_a_real_failure_without_retries(coder, server):
    server.steps = [error(401)]
    outcome = reflect(configure(coder, server), "coder", NOW)
    assert outcome.status == "failed" and outcome.attempts == 1 and len(server.requests) == 1
    assert read_state(configure(coder, server).agent("coder"))["last_failure_transient"] is False


def test_no_model_configured_is_not_a_failure_and_says_what_to_set(coder, monkeypatch):
    """Issue 30: nothing was tried, so no back-off and no failure count; the message says what to set, where."""
    before = read_state(configure(coder).agent("coder")).get("last_reflection_at")
    outcome = reflect(configure(coder), "coder", NOW)
    assert outcome.status == "not_configured" and "[model] name in orkas.toml" in outcome.message
    state = read_state(configure(coder).agent("coder"))
    assert "backoff" not in state and "last_failure" not in state and state.get("last_reflection_at") == before
    (coder / "orkas.toml").write_text('[model]\nname = "openai/gpt-4o-mini"\napi_key_env = "ORKAS_TEST_NO_SUCH_KEY"\n')
    monkeypatch.delenv("ORKAS_TEST_NO_SUCH_KEY", raising=False)
    outcome = reflect(Workspace(coder), "coder", NOW)
    assert outcome.status == "not_configured" and "$ORKAS_TEST_NO_SUCH_KEY is not set" in outcome.message
    assert "backoff" not in read_state(Workspace(coder).agent("coder"))
    plan = workspace_queue(Workspace(coder), NOW)  # the queue says it too, for every agent it would select
    assert "$ORKAS_TEST_NO_SUCH_KEY is not set" in (plan.not_configured or "")
    assert plan.to_json()["not_configured"] == plan.not_configured


def test_cancel_while_waiting_returns_quickly_and_writes_nothing(coder, server):
    server.steps = [Step(content=json.dumps(GOOD), delay_s=30.0)]
    ws = configure(coder, server, auto_apply=True, timeout_s=60)
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    outcome = reflect(ws, "coder", NOW, cancel=cancel)
    assert outcome.status == "cancelled" and time.monotonic() - started < 20  # not the 30 s the model would take
    assert list_changes(ws.agent("coder")) == [] and list_proposals(ws.agent("coder")) == []
    assert read_state(ws.agent("coder"))["last_reflection_at"] == format_ts(NOW - timedelta(days=2))


def test_two_reflections_of_one_agent_never_run_at_once(coder, server):
    ws = configure(coder, server)
    with file_lock(ws.agent("coder").private / "reflect.lock"):
        outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "busy" and server.requests == []


def test_reflect_cli_json_and_dry_run(coder, server, capsys):
    server.steps = [reply(GOOD)]
    configure(coder, server)
    code, out, _ = run_cli(capsys, "reflect", "coder", "--dry-run", "--json", "--workspace", str(coder))
    dry = json.loads(out)
    assert code == 0 and server.requests == []
    assert dry["bundle"]["tokens"] <= 12_000 and dry["redactions"] == 0 and len(dry["messages"]) == 2
    code, out, _ = run_cli(capsys, "reflect", "coder", "--json", "--workspace", str(coder), "--now", format_ts(NOW))
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "proposed" and doc["proposal"] == "coder.p1"
    assert server.requests[0]["messages"] == dry["messages"]  # the dry run shows exactly what is sent


def test_cycle_reflects_on_the_selected_agents_and_records_the_cycle(coder, server, capsys):
    server.steps = [reply({"summary": "s", "operations": []})]
    set_reflected(coder, "other", NOW - timedelta(days=2))
    trigger_turn(coder, "other", NOW - timedelta(hours=3))
    set_reflected(coder, "idle", NOW - timedelta(hours=1))
    configure(coder, server)
    code, out, err = run_cli(capsys, "cycle", "--json", "--workspace", str(coder), "--now", format_ts(NOW))
    doc = json.loads(out)
    assert code == 0, err
    assert [o["agent"] for o in doc["outcomes"]] == ["coder", "other"]
    assert all(o["status"] == "nothing_to_save" for o in doc["outcomes"])
    queue = json.loads(run_cli(capsys, "queue", "--json", "--workspace", str(coder), "--now", format_ts(NOW))[1])
    assert queue["last_cycle_at"] == format_ts(NOW)
    assert queue["cycle_due_at"] == "2026-11-30T21:30:00Z"


def test_daemon_runs_a_cycle_and_logs_each_decision(root, server, capsys):
    from orkas_tui.core.read.timefmt import utc_now

    now = utc_now()
    set_reflected(root, "coder", now - timedelta(days=2))
    trigger_turn(root, "coder", now - timedelta(hours=2))
    server.steps = [reply({"summary": "s", "operations": []})]
    configure(root, server)
    handler = signal.getsignal(signal.SIGINT)
    code, out, _ = run_cli(capsys, "daemon", "--workspace", str(root), "--cycles", "1")
    assert code == 0 and signal.getsignal(signal.SIGINT) is handler
    assert "coder: selected #1" in out and "nothing_to_save" in out and "daemon: stopped" in out


def test_a_second_reflection_while_one_waits_on_the_model_is_busy(coder, server):
    server.steps = [reply({"summary": "s", "operations": []}, delay_s=1.0)]
    ws = configure(coder, server)
    results = []
    first = threading.Thread(target=lambda: results.append(reflect(ws, "coder", NOW)))
    first.start()
    deadline = time.monotonic() + 10
    while not server.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    second = reflect(ws, "coder", NOW)
    first.join()
    assert second.status == "busy" and results[0].status == "nothing_to_save"
    assert len(server.requests) == 1


def test_auto_apply_removes_at_most_one_skill_per_answer(coder, server):
    for slug in ("old-a", "old-b", "old-c"):
        write_skill(coder, "coder", slug, slug, "Never used.\n")
    server.steps = [
        reply(
            {
                "summary": "prune",
                "operations": [
                    {"op": "delete_skill", "sources": ["$USER"], "skill": slug, "reason": "unused"}
                    for slug in ("old-a", "old-b", "deploy-docs")
                ]
                + [GOOD["operations"][0], {"op": "delete_skill", "sources": ["$USER"], "skill": "old-c", "reason": "unused"}],
            }
        )
    ]
    ws = configure(coder, server, auto_apply=True, extra="[skills]\nmax_skills = 3\n")
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "applied"
    assert "4 operation(s) wait for approval" in outcome.message and "at most one skill" in outcome.message
    changes = list_changes(ws.agent("coder"))
    assert [c.action for c in changes] == ["delete_skill"]  # the create would evict (3 skills left, the cap): held too
    assert sorted(SkillStore(ws.agent("coder"), ws.settings).slugs()) == ["deploy-docs", "old-b", "old-c"]
    (proposal,) = list_proposals(ws.agent("coder"))
    assert [o.status for o in proposal.operations] == ["applied", "pending", "pending", "pending", "pending"]
    assert all("auto_apply deletes or evicts at most one skill" in o.reason for o in proposal.operations[1:])
    _, result = approve(ws, proposal.id, NOW)  # a person may approve the rest
    assert not result.failed and len(result.applied) == 4


def test_auto_apply_applies_creates_and_patches_beside_one_removal(coder, server):
    write_skill(coder, "coder", "old-a", "old-a", "Never used.\n")
    server.steps = [
        reply(
            {
                "summary": "s",
                "operations": [
                    {"op": "delete_skill", "sources": ["$USER"], "skill": "old-a", "reason": "unused"},
                    *GOOD["operations"],
                ],
            }
        )
    ]
    outcome = reflect(configure(coder, server, auto_apply=True), "coder", NOW)
    assert outcome.status == "applied" and len(outcome.changes) == 4 and "wait for approval" not in outcome.message
