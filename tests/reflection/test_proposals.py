"""Proposals reviewed by a person: per-operation approval, rejection, edits, history and revert."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.changes import approve, edit_operation, reject, revert_change
from orkas_tui.core.store.history import HistoryError, list_changes
from orkas_tui.core.store.operations import check_operations
from orkas_tui.core.store.proposals import ProposalError, create_proposal, load_proposal
from orkas_tui.core.store.skills import SkillError, SkillStore
from tests.reflection.conftest import NOW, configure, run_cli, write_skill

BODY = "When deploying the docs:\n\n1. Run make docs.\n2. Upload the site folder.\n"
OPS = [
    {
        "op": "create_skill",
        "name": "Check the kube context",
        "description": "Before any kubectl command",
        "body": "Always run `kubectl config current-context` before a kubectl command.",
    },
    {
        "op": "patch_skill",
        "skill": "deploy-docs",
        "find": "2. Upload the site folder.",
        "replace": "2. Upload the site folder with rsync.",
    },
    {"op": "delete_skill", "skill": "stale", "reason": "never read in 40 turns"},
    {"op": "update_self", "note": "strategies", "content": "When the user says 'ship it', deploy to staging only."},
]


@pytest.fixture
def ws(root):
    write_skill(root, "coder", "deploy-docs", "Deploy the docs", BODY)
    write_skill(root, "coder", "stale", "Stale", "Never used.\n")
    workspace = configure(root)
    create_proposal(workspace.agent("coder"), workspace.settings, "four things", OPS, NOW, {"model": "m"})
    return workspace


def skill_file(ws, slug):
    return ws.root / "agents" / "coder" / "skills" / f"{slug}.md"


def test_approve_one_operation_then_the_rest(ws):
    proposal, result = approve(ws, "coder.p1", NOW, index=1)
    assert [c.action for c in result.applied] == ["patch_skill"]
    assert [o.status for o in proposal.operations] == ["pending", "applied", "pending", "pending"]
    assert proposal.status == "pending"
    proposal, result = approve(ws, "coder.p1", NOW)
    assert [c.action for c in result.applied] == ["create_skill", "delete_skill", "update_self"]
    assert proposal.status == "applied" and not skill_file(ws, "stale").exists()


def test_reject_whole_or_per_operation(ws, capsys):
    proposal = reject(ws, "coder.p1", NOW, index=2)
    assert proposal.operations[2].status == "rejected"
    approve(ws, "coder.p1", NOW)
    assert skill_file(ws, "stale").exists()
    with pytest.raises(ProposalError, match="already applied"):
        reject(ws, "coder.p1", NOW, index=0)
    create_proposal(ws.agent("coder"), ws.settings, "again", OPS[3:], NOW, {})
    code, out, _ = run_cli(capsys, "proposals", "reject", "coder.p2", "--workspace", str(ws.root))
    assert code == 0 and "rejected" in out
    assert load_proposal(ws, "coder.p2")[1].status == "rejected"


def test_edit_an_operation_before_approving(ws, capsys):
    code, _out, err = run_cli(
        capsys,
        "proposals",
        "edit",
        "coder.p1",
        "--op",
        "3",
        "--set",
        "content=When the user says 'ship it', deploy to staging, then ask.",
        "--workspace",
        str(ws.root),
    )
    assert code == 0, err
    approve(ws, "coder.p1", NOW, index=3)
    note = ws.root / "agents" / "coder" / "self" / "strategies.md"
    assert note.read_text() == "When the user says 'ship it', deploy to staging, then ask."


def test_an_edit_that_would_be_invalid_is_refused_and_not_saved(ws, capsys):
    with pytest.raises(ProposalError, match="occurs 0 times"):
        edit_operation(ws, "coder.p1", 1, {"find": "no such text"})
    assert load_proposal(ws, "coder.p1")[1].operations[1].op["find"] == "2. Upload the site folder."
    code, out, err = run_cli(
        capsys, "proposals", "edit", "coder.p1", "--op", "0", "--set", "body=" + "x" * 20_001, "--workspace", str(ws.root)
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "over the 20,000 limit" in err


def test_an_invalid_operation_can_be_fixed_by_an_edit(root):
    write_skill(root, "coder", "deploy-docs", "Deploy the docs", BODY)
    ws = configure(root)
    bad = {"op": "patch_skill", "skill": "deploy-docs", "find": "make html", "replace": "make docs"}
    proposal = create_proposal(ws.agent("coder"), ws.settings, "s", [bad], NOW, {})
    assert proposal.operations[0].status == "invalid"
    _, result = approve(ws, "coder.p1", NOW, index=0)
    assert result.applied == [] and "invalid" in result.failed[0]
    edit_operation(ws, "coder.p1", 0, {"find": "1. Run make docs."})
    _, result = approve(ws, "coder.p1", NOW)
    assert len(result.applied) == 1


def test_history_keeps_before_and_after_and_revert_undoes_one_change(ws, capsys):
    approve(ws, "coder.p1", NOW)
    original = BODY
    doc = json.loads(run_cli(capsys, "history", "coder", "--json", "--workspace", str(ws.root))[1])
    assert [c["action"] for c in doc] == ["create_skill", "patch_skill", "delete_skill", "update_self"]
    patch = doc[1]
    assert original in patch["before"] and "with rsync" in patch["after"]
    code, _out, err = run_cli(capsys, "revert", patch["id"], "--workspace", str(ws.root), "--now", "2026-11-30T10:00:00Z")
    assert code == 0, err
    assert skill_file(ws, "deploy-docs").read_text() == patch["before"]
    # undo a deletion and a creation too
    revert_change(ws, doc[2]["id"], NOW)
    assert skill_file(ws, "stale").read_text() == doc[2]["before"]
    revert_change(ws, doc[0]["id"], NOW)
    assert not skill_file(ws, "check-the-kube-context").exists()
    events = (ws.root / "agents" / "coder" / "events.jsonl").read_text()
    assert events.count('"change_reverted"') == 3
    assert [c.reverted_at is not None for c in list_changes(ws.agent("coder"))] == [True, True, True, False]
    code, _, err = run_cli(capsys, "revert", patch["id"], "--workspace", str(ws.root))
    assert code == 2 and "already reverted" in err and err.count("\n") == 1


def test_revert_is_refused_when_the_file_changed_since(ws, capsys):
    _, result = approve(ws, "coder.p1", NOW, index=1)
    path = skill_file(ws, "deploy-docs")
    edited = path.read_text() + "3. A person's own line.\n"
    path.write_text(edited)
    code, out, err = run_cli(capsys, "revert", result.applied[0].id, "--workspace", str(ws.root))
    assert code == 2 and out == "" and "changed since change coder.c1; not reverted" in err
    assert path.read_text() == edited


def test_a_skill_only_read_since_its_change_still_reverts(ws):
    """Reading a skill (an import's Skill call, a runtime's read) sets lastUsedAt: no edit to undo first."""
    store = SkillStore(ws.agent("coder"), ws.settings)
    before = skill_file(ws, "deploy-docs").read_text()
    _, result = approve(ws, "coder.p1", NOW, index=1)
    read_at = NOW + timedelta(minutes=5)
    store.read("deploy-docs", read_at)
    revert_change(ws, result.applied[0].id, NOW + timedelta(minutes=6))
    restored = skill_file(ws, "deploy-docs").read_text()
    assert "2. Upload the site folder.\n" in restored and "with rsync" not in restored
    assert store.get("deploy-docs").last_used_at == format_ts(read_at)  # the read is kept: still used
    assert restored.replace(f'lastUsedAt: "{format_ts(read_at)}"', "") == re.sub(r"lastUsedAt: .*", "", before)
    _, created = approve(ws, "coder.p1", NOW, index=0)
    store.read("check-the-kube-context", read_at)
    revert_change(ws, created.applied[0].id, NOW + timedelta(minutes=6))
    assert not skill_file(ws, "check-the-kube-context").exists()


def test_a_read_does_not_hide_an_edit_from_revert(ws):
    _, result = approve(ws, "coder.p1", NOW, index=1)
    path = skill_file(ws, "deploy-docs")
    SkillStore(ws.agent("coder"), ws.settings).read("deploy-docs", NOW + timedelta(minutes=5))
    path.write_text(path.read_text() + "3. A person's own line.\n")
    with pytest.raises(HistoryError, match="changed since change"):
        revert_change(ws, result.applied[0].id, NOW + timedelta(minutes=6))


def test_revert_of_a_note_restores_the_earlier_text(root):
    ws = configure(root)
    notes = root / "agents" / "coder" / "self"
    notes.mkdir(parents=True)
    (notes / "profile.md").write_text("I am careful with `rm`.")
    create_proposal(ws.agent("coder"), ws.settings, "s", [{"op": "update_self", "note": "profile", "content": "New."}], NOW, {})
    _, result = approve(ws, "coder.p1", NOW)
    assert (notes / "profile.md").read_text() == "New."
    revert_change(ws, result.applied[0].id, NOW + timedelta(minutes=1))
    assert (notes / "profile.md").read_text() == "I am careful with `rm`."


def test_unknown_ids_are_one_line_errors(ws, capsys):
    for argv in (
        ("proposals", "show", "coder.p9"),
        ("proposals", "approve", "nobody.p1"),
        ("revert", "coder.c9"),
        ("revert", "../x"),
        ("proposals", "approve", "coder.p1", "--op", "7"),
    ):
        code, out, err = run_cli(capsys, *argv, "--workspace", str(ws.root))
        assert code == 2 and out == "" and err.startswith("orkas-tui: ") and err.count("\n") == 1, argv


def test_proposals_list_and_show(ws, capsys):
    listed = json.loads(run_cli(capsys, "proposals", "list", "--json", "--workspace", str(ws.root))[1])
    assert [p["id"] for p in listed] == ["coder.p1"] and listed[0]["status"] == "pending"
    code, out, _ = run_cli(capsys, "proposals", "show", "coder.p1", "--workspace", str(ws.root))
    assert code == 0 and "[2] pending" in out and "delete_skill" in out


@pytest.mark.parametrize(
    "op, reason",
    [
        ({"op": "rename_skill", "skill": "a"}, "unknown op 'rename_skill'"),
        ({"skill": "a"}, "unknown op None"),
        ("create a skill", "an operation must be a JSON object"),
        ({"op": "create_skill", "name": "x", "body": "y"}, "missing or non-string field(s): description"),
        ({"op": "patch_skill", "skill": "deploy-docs", "find": "1", "replace": 2}, "missing or non-string field(s): replace"),
        ({"op": "create_skill", "name": "x", "description": "d", "body": "b" * 20_001}, "over the 20,000 limit"),
        ({"op": "create_skill", "name": "Deploy docs", "description": "d", "body": "b"}, "already exists"),
        ({"op": "patch_skill", "skill": "deploy-docs", "find": ".", "replace": "!"}, "occurs 4 times"),
        ({"op": "patch_skill", "skill": "nope", "find": "a", "replace": "b"}, "no skill 'nope'"),
        ({"op": "delete_skill", "skill": "/etc/passwd", "reason": "r"}, "not a skill slug"),
        ({"op": "update_self", "note": "diary", "content": "x"}, "unknown note 'diary'"),
        ({"op": "update_self", "note": "profile", "content": "x" * 2_001}, "over its 2,000-character cap"),
    ],
)
def test_every_operation_is_validated_with_a_reason(root, op, reason):
    write_skill(root, "coder", "deploy-docs", "Deploy the docs", BODY)
    ws = configure(root)
    problem = check_operations([op], ws.agent("coder"), ws.settings)[0]
    assert problem is not None and reason in problem


def test_operations_are_checked_in_order_against_the_view_after_earlier_ones(root):
    write_skill(root, "coder", "deploy-docs", "Deploy the docs", BODY)
    ws = Workspace(root)
    ops = [
        {"op": "create_skill", "name": "New one", "description": "d", "body": "Always do X.\n"},
        {"op": "patch_skill", "skill": "new-one", "find": "do X", "replace": "do Y"},
        {"op": "delete_skill", "skill": "deploy-docs", "reason": "r"},
        {"op": "patch_skill", "skill": "deploy-docs", "find": "make docs", "replace": "z"},
    ]
    assert check_operations(ops, ws.agent("coder"), ws.settings) == [None, None, None, "patch_skill: no skill 'deploy-docs'"]


def test_an_eviction_at_the_cap_is_its_own_change_and_can_be_reverted(root):
    write_skill(root, "coder", "deploy-docs", "Deploy the docs", BODY)
    ws = configure(root, extra="[skills]\nmax_skills = 1\n")
    original = (root / "agents" / "coder" / "skills" / "deploy-docs.md").read_text()
    create_proposal(ws.agent("coder"), ws.settings, "s", OPS[:1], NOW, {})
    _, result = approve(ws, "coder.p1", NOW)
    assert [(c.action, c.target) for c in result.applied] == [
        ("evict_skill", "deploy-docs"),
        ("create_skill", "check-the-kube-context"),
    ]
    assert result.applied[0].before == original and result.applied[0].after is None
    revert_change(ws, result.applied[1].id, NOW)
    revert_change(ws, result.applied[0].id, NOW)
    assert (root / "agents" / "coder" / "skills" / "deploy-docs.md").read_text() == original
    assert not (root / "agents" / "coder" / "skills" / "check-the-kube-context.md").exists()
    with pytest.raises(HistoryError, match="already reverted"):
        revert_change(ws, result.applied[0].id, NOW)


@pytest.mark.parametrize("field, length, limit", [("name", 65, 64), ("description", 1_025, 1_024)])
def test_skill_names_and_descriptions_are_capped_with_the_reason(root, field, length, limit):
    (root / "agents" / "coder").mkdir()
    ws = configure(root)
    paths = ws.agent("coder")
    op = {"op": "create_skill", "name": "Fine", "description": "d", "body": "Always check."}
    assert check_operations([op], paths, ws.settings) == [None]
    at_limit = {**op, field: "x" * limit}
    assert check_operations([at_limit], paths, ws.settings) == [None]
    over = {**op, field: "x" * length}
    reason = f"create_skill: the {field} is {length:,} characters, over the {limit:,}-character limit"
    assert check_operations([over], paths, ws.settings) == [reason]
    store = SkillStore(paths, ws.settings)
    with pytest.raises(SkillError, match=f"the {field} is {length:,} characters"):
        store.create(over["name"], over["description"], over["body"], NOW)
    assert not (root / "agents" / "coder" / "skills").exists()
    if field == "description":
        skill, _ = store.create("Fine", "d", "Always check.", NOW)
        with pytest.raises(SkillError, match="over the 1,024-character limit"):
            store.edit(skill.slug, over["description"], "Always check.", skill.version, NOW)
        assert store.get(skill.slug).description == "d"
