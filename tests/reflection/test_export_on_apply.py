"""An agent linked in orkas.toml ([agents.<id>] export_skills) gets every applied change at once."""

from __future__ import annotations

import json
from datetime import timedelta

import orjson

from orkas_tui.core.reflect.reflection import reflect
from orkas_tui.core.store.changes import approve, revert_change
from orkas_tui.core.store.export import EXPORTED, hand_edited, markers
from orkas_tui.core.store.proposals import create_proposal
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.store.user_edits import delete_skill, edit_skill
from tests.modelserver import reply
from tests.reflection.conftest import NOW, configure, run_cli, set_reflected, trigger_turn, write_skill

BODY = "When deploying the docs:\n\n1. Run make docs.\n2. Upload the site folder.\n"
OPS = [
    {
        "op": "create_skill",
        "sources": ["$USER"],
        "name": "Check the kube context",
        "description": "Before any kubectl command",
        "body": "Always run `kubectl config current-context` before a kubectl command.",
    },
    {
        "op": "patch_skill",
        "sources": ["$USER"],
        "skill": "deploy-docs",
        "find": "2. Upload the site folder.",
        "replace": "2. Upload with rsync.",
    },
    {
        "op": "update_self",
        "sources": ["$USER"],
        "note": "strategies",
        "content": "When the user says 'ship it', deploy to staging only.",
    },
]
LINK = '[agents.coder]\nformat = "claude-code"\nexport_skills = "~/.claude/skills"\n'


def linked(root, extra: str = LINK, server=None, auto_apply: bool = False):
    write_skill(root, "coder", "deploy-docs", "Deploy the docs", BODY)
    ws = configure(root, server, auto_apply=auto_apply, extra=extra)
    create_proposal(ws.agent("coder"), ws.settings, "three things", OPS, NOW, {"model": "m"})
    return ws


def exported(home, slug: str) -> str:
    return (home / ".claude" / "skills" / slug / "SKILL.md").read_text("utf-8")


def export_events(root) -> list[dict]:
    path = root / "agents" / "coder" / "events.jsonl"
    return [e for e in map(orjson.loads, path.read_bytes().splitlines()) if e["type"] == EXPORTED]


def test_approve_exports_the_skills_and_the_notes_block_at_once(root, home):
    ws = linked(root)
    _, result = approve(ws, "coder.p1", NOW)
    assert result.export is not None and len(result.export.written) == 2
    assert "2. Upload with rsync." in exported(home, "deploy-docs")
    assert "kubectl config current-context" in exported(home, "check-the-kube-context")
    memory = (home / ".claude" / "CLAUDE.md").read_text("utf-8")
    assert markers("coder")[0] in memory and "deploy to staging only" in memory
    state = orjson.loads((root / "agents" / "coder" / ".orkas" / "exports" / "claude-code.json").read_bytes())
    path = str(home / ".claude" / "skills" / "deploy-docs" / "SKILL.md")
    assert set(state[path]) == {"version", "at"} and state[path]["at"] == "2026-11-30T09:00:00Z"
    (event,) = export_events(root)
    assert event["written"] == ["check-the-kube-context", "deploy-docs"] and event["memory_status"] == "created"


def test_the_first_export_time_stays_when_a_skill_is_written_again(root, home):
    ws = linked(root)
    approve(ws, "coder.p1", NOW, index=0)
    approve(ws, "coder.p1", NOW + timedelta(days=1), index=1)  # deploy-docs written again
    state = orjson.loads((root / "agents" / "coder" / ".orkas" / "exports" / "claude-code.json").read_bytes())
    entry = state[str(home / ".claude" / "skills" / "deploy-docs" / "SKILL.md")]
    assert entry["at"] == "2026-11-30T09:00:00Z" and "rsync" in exported(home, "deploy-docs")


def test_an_older_state_file_with_plain_versions_is_read(root, home):
    ws = linked(root)
    approve(ws, "coder.p1", NOW, index=0)
    state_path = root / "agents" / "coder" / ".orkas" / "exports" / "claude-code.json"
    state = orjson.loads(state_path.read_bytes())
    state_path.write_bytes(orjson.dumps({path: entry["version"] for path, entry in state.items()}))
    _, result = approve(ws, "coder.p1", NOW, index=1)
    assert result.export is not None and not result.export.conflicts  # the recorded version was understood
    assert "rsync" in exported(home, "deploy-docs")


def test_a_skill_md_edited_by_hand_is_left_alone_reported_and_flagged(root, home, capsys):
    ws = linked(root)
    approve(ws, "coder.p1", NOW, index=0)
    target = home / ".claude" / "skills" / "deploy-docs" / "SKILL.md"
    target.write_text(target.read_text("utf-8") + "\nMy own line.\n", "utf-8")
    paths = ws.agent("coder")
    assert hand_edited(paths, ws.settings.agents["coder"], SkillStore(paths, ws.settings).load_all()[0]) == {
        "deploy-docs": str(target)
    }
    code, out, _ = run_cli(capsys, "proposals", "approve", "coder.p1", "--op", "1", "--workspace", str(root))
    assert code == 0 and "My own line." in target.read_text("utf-8") and "rsync" not in target.read_text("utf-8")
    assert f"! {target} was edited since the last export; left as is" in out
    assert "orkas-tui export claude-code coder" in out and "--force" in out
    assert export_events(root)[-1]["conflicts"] == ["deploy-docs"]


def test_cli_approve_and_revert_print_the_export_as_text_and_json(root, home, capsys):
    linked(root)
    code, out, _ = run_cli(capsys, "proposals", "approve", "coder.p1", "--op", "1", "--workspace", str(root), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["export"]["written"] == [str(home / ".claude" / "skills" / "deploy-docs" / "SKILL.md")]
    change = doc["proposal"]["operations"][1]["changes"][0]
    code, out, _ = run_cli(capsys, "revert", change, "--workspace", str(root))
    assert code == 0 and f"exported to {home / '.claude' / 'skills'}:" in out and "1 skills written" in out
    assert "2. Upload the site folder." in exported(home, "deploy-docs")


def test_revert_exports_the_reverted_content(root, home):
    ws = linked(root)
    _, result = approve(ws, "coder.p1", NOW, index=1)
    assert "rsync" in exported(home, "deploy-docs")
    _, export = revert_change(ws, result.applied[0].id, NOW + timedelta(minutes=1))
    assert export is not None and export.written and "2. Upload the site folder." in exported(home, "deploy-docs")


def test_a_persons_edit_and_delete_are_exported_and_the_deleted_skill_is_kept(root, home):
    ws = linked(root)
    approve(ws, "coder.p1", NOW, index=0)
    paths = ws.agent("coder")
    skill = SkillStore(paths, ws.settings).get("deploy-docs")
    edit_skill(paths, ws.settings, "deploy-docs", "when deploying", "Deploy with care.\n", skill.version, NOW)
    assert "Deploy with care." in exported(home, "deploy-docs")
    skill = SkillStore(paths, ws.settings).get("deploy-docs")
    delete_skill(paths, ws.settings, "deploy-docs", skill.version, NOW)
    assert "Deploy with care." in exported(home, "deploy-docs")  # never deleted from the destination
    assert export_events(root)[-1]["stale"] == 1


def test_an_agent_without_a_link_exports_nothing(root, home):
    ws = linked(root, extra='[agents.other]\nformat = "codex"\nexport_skills = "~/.codex/skills"\n')
    _, result = approve(ws, "coder.p1", NOW)
    assert result.export is None and not (home / ".claude").exists() and not (home / ".codex").exists()
    events = (root / "agents" / "coder" / "events.jsonl").read_bytes()
    assert EXPORTED.encode() not in events


def test_an_export_that_cannot_be_written_does_not_undo_the_approval(root, home):
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_bytes(b"\xff\xfe not UTF-8")
    ws = linked(root)
    _, result = approve(ws, "coder.p1", NOW)
    assert len(result.applied) == 3 and result.export is not None
    assert result.export.problems == [
        f"not exported to {home / '.claude' / 'skills'}: {home / '.claude' / 'CLAUDE.md'} is not UTF-8; not changed"
    ]
    assert export_events(root)[-1]["problems"] == result.export.problems


def test_auto_apply_exports_without_a_person(root, home, server):
    set_reflected(root, "coder", NOW - timedelta(days=2))
    trigger_turn(root, "coder", NOW - timedelta(hours=5), read=["deploy-docs"])
    ws = linked(root, server=server, auto_apply=True)
    server.steps = [reply({"summary": "rsync", "operations": [OPS[1]]})]
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "applied", outcome.message
    assert outcome.export is not None and outcome.export["written"] and "exported: 1 skills written" in outcome.message
    assert "rsync" in exported(home, "deploy-docs")


def test_approving_again_catches_up_an_export_that_did_not_happen(root, home):
    """As after a crash between the apply and the export: the change is applied, nothing exported yet."""
    ws = linked(root, extra="")
    approve(ws, "coder.p1", NOW, index=1)
    assert not (home / ".claude").exists()
    ws = configure(root, extra=LINK)
    _, result = approve(ws, "coder.p1", NOW, index=1)
    assert result.skipped == ["operation 1: already applied"] and result.export is not None
    assert "rsync" in exported(home, "deploy-docs")


def test_a_codex_link_with_its_own_memory_file(root, home):
    extra = '[agents.coder]\nformat = "codex"\nexport_skills = "~/.codex/skills"\nexport_memory = "~/work/AGENTS.md"\n'
    ws = linked(root, extra=extra)
    approve(ws, "coder.p1", NOW)
    assert "rsync" in (home / ".codex" / "skills" / "deploy-docs" / "SKILL.md").read_text("utf-8")
    assert "deploy to staging only" in (home / "work" / "AGENTS.md").read_text("utf-8")
    assert not (home / ".codex" / "AGENTS.md").exists()
    assert (root / "agents" / "coder" / ".orkas" / "exports" / "codex.json").exists()
