"""``hooks uninstall --purge``: what orkas-tui exported and nobody changed since goes; changed files stay, listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orkas_tui import cli
from orkas_tui.core.store.export import export_agent
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.skills import SkillStore
from tests.conftest import NOW

MINE = "# My own notes\n\nKeep answers short.\n"


@pytest.fixture
def exported(tmp_path: Path, workspace, agent) -> Path:
    """Two skills and the notes block exported into a Claude Code folder that already had a CLAUDE.md of the person's."""
    store = SkillStore(agent, workspace.settings)
    store.create("Docs deploy", "Deploy the docs", "When deploying docs, always run `make publish`.\n", NOW)
    store.create("Fast tests", "Run a few tests first", "Never run the whole suite first; run `pytest -x`.\n", NOW)
    SelfNotes(agent, workspace.settings).write("profile", "I stumble on `make` targets.", None, NOW)
    dest = tmp_path / "home" / ".claude" / "skills"
    dest.parent.mkdir(parents=True)
    (dest.parent / "CLAUDE.md").write_text(MINE)
    result = export_agent(agent, workspace.settings, "claude-code", dest)
    assert len(result.written) == 2 and result.memory_status == "updated"
    return dest


def uninstall(capsys, workspace, *extra: str) -> str:
    code = cli.main(["hooks", "uninstall", "claude-code", "--purge", "--workspace", str(workspace.root), *extra])
    out = capsys.readouterr().out
    assert code == 0
    return out


def test_purge_removes_what_nobody_changed_and_lists_what_someone_did(capsys, workspace, agent, exported: Path) -> None:
    edited = exported / "fast-tests" / "SKILL.md"
    edited.write_text(edited.read_text() + "\nMy own addition.\n")
    out = uninstall(capsys, workspace)
    assert not (exported / "docs-deploy").exists()  # the file and its folder
    assert edited.exists() and "My own addition." in edited.read_text()
    assert f"coder: kept {edited}: edited since orkas-tui wrote it" in out
    assert f"coder: removed {exported / 'docs-deploy' / 'SKILL.md'}" in out
    assert (exported.parent / "CLAUDE.md").read_text() == MINE  # the person's file as it was before the export
    state = json.loads((agent.private / "exports" / "claude-code.json").read_text())
    assert list(state) == [str(edited)]  # the kept file is still known as exported, and edited since

    again = uninstall(capsys, workspace)
    assert f"kept {edited}" in again and "removed" not in again


def test_a_dry_run_removes_nothing(capsys, workspace, exported: Path) -> None:
    before = {p: p.read_bytes() for p in exported.parent.rglob("*") if p.is_file()}
    out = uninstall(capsys, workspace, "--dry-run")
    assert "coder: would remove" in out and "(notes block)" in out
    assert {p: p.read_bytes() for p in exported.parent.rglob("*") if p.is_file()} == before


def test_a_notes_block_that_says_something_else_is_kept(capsys, workspace, agent, exported: Path) -> None:
    memory = exported.parent / "CLAUDE.md"
    memory.write_text(memory.read_text().replace("I stumble on", "I (the person) stumble on"))
    out = uninstall(capsys, workspace)
    assert f"kept {memory} (notes block)" in out and "I (the person) stumble on" in memory.read_text()


def test_a_folder_holding_only_our_export_is_left_empty(capsys, workspace, agent, tmp_path: Path) -> None:
    SkillStore(agent, workspace.settings).create("Only one", "Just one", "Always check twice.\n", NOW)
    dest = tmp_path / "elsewhere" / "skills"
    export_agent(agent, workspace.settings, "claude-code", dest)
    assert (dest.parent / "CLAUDE.md").exists()
    uninstall(capsys, workspace)
    assert not (dest.parent / "CLAUDE.md").exists() and list(dest.iterdir()) == []
