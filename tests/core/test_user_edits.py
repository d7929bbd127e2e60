"""A person's edits of skills and notes: checked, written, recorded in history, revertable from the CLI."""

from __future__ import annotations

from datetime import timedelta

import pytest

from orkas_tui import cli
from orkas_tui.core.disk.confine import current_version
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.skills import SkillError, SkillStore
from orkas_tui.core.store.user_edits import delete_skill, edit_skill, save_note, save_skill_text
from tests.reflection.conftest import NOW, write_skill


@pytest.fixture
def paths(tmp_path):
    write_skill(tmp_path, "coder", "deploy-docs", "Deploy the docs", "Run make docs.\n")
    return AgentPaths(tmp_path / "agents" / "coder")


def test_a_skill_edit_is_recorded_and_the_cli_lists_and_reverts_it(paths, capsys):
    settings = Settings()
    path = paths.skill("deploy-docs")
    original = path.read_text()
    skill = SkillStore(paths, settings).get("deploy-docs")
    _saved, change = edit_skill(paths, settings, "deploy-docs", "when deploying", "Run make docs-html.\n", skill.version, NOW)
    assert "make docs-html" in path.read_text() and change.by == "user" and change.action == "edit_skill"
    assert change.before == original and change.after == path.read_text()
    root = str(paths.workspace_root)
    assert cli.main(["history", "coder", "--workspace", root]) == 0
    out = capsys.readouterr().out
    assert change.id in out and "edit_skill" in out
    assert cli.main(["revert", change.id, "--workspace", root, "--now", "2026-11-30T10:00:00Z"]) == 0
    assert path.read_text() == original


def test_an_empty_description_is_refused_with_nothing_written(paths):
    before = paths.skill("deploy-docs").read_bytes()
    version = current_version(paths.skill("deploy-docs"))
    with pytest.raises(SkillError, match="description is empty"):
        edit_skill(paths, Settings(), "deploy-docs", "  ", "new body\n", version, NOW)
    assert paths.skill("deploy-docs").read_bytes() == before and list_changes(paths) == []


@pytest.mark.parametrize(
    "text, reason",
    [
        ("---\nname: [unclosed\ndescription: x\n---\nbody\n", "not valid YAML"),
        ('---\nname: ""\ndescription: "x"\n---\nbody\n', "no name"),
        ('---\nname: "Deploy"\n---\nbody\n', "no description"),
    ],
)
def test_whole_file_saves_refuse_invalid_front_matter(paths, text, reason):
    before = paths.skill("deploy-docs").read_bytes()
    with pytest.raises(SkillError, match=reason):
        save_skill_text(paths, Settings(), "deploy-docs", text, current_version(paths.skill("deploy-docs")), NOW)
    assert paths.skill("deploy-docs").read_bytes() == before and list_changes(paths) == []


def test_a_broken_skill_fixed_as_a_whole_file_is_recorded(paths):
    path = paths.skill("deploy-docs")
    path.write_text("---\nname: [broken\n---\nbody\n")
    fixed = '---\nname: "Deploy the docs"\ndescription: "when deploying"\n---\n\nRun make docs.\n'
    skill, change = save_skill_text(paths, Settings(), "deploy-docs", fixed, current_version(path), NOW)
    assert skill.name == "Deploy the docs" and path.read_text() == fixed
    assert change.before == "---\nname: [broken\n---\nbody\n" and change.after == fixed


def test_a_note_edit_and_a_skill_delete_are_recorded_and_revert(paths, capsys):
    settings = Settings()
    _, first = save_note(paths, settings, "profile", "I am careful with deploys.\n", None, NOW)
    _version, second = save_note(
        paths, settings, "profile", "I rush deploys.\n", current_version(paths.note("profile")), NOW + timedelta(minutes=1)
    )
    assert first.before is None and second.before == "I am careful with deploys.\n"
    gone = delete_skill(paths, settings, "deploy-docs", current_version(paths.skill("deploy-docs")), NOW)
    assert not paths.skill("deploy-docs").exists()
    root = str(paths.workspace_root)
    for change in (second, gone):
        assert cli.main(["revert", change.id, "--workspace", root]) == 0
    assert paths.note("profile").read_text() == "I am careful with deploys.\n"
    assert paths.skill("deploy-docs").exists()
    assert [c.action for c in list_changes(paths)] == ["update_self", "update_self", "delete_skill"]


def test_saving_a_note_unchanged_records_nothing(paths):
    settings = Settings()
    save_note(paths, settings, "profile", "Same.\n", None, NOW)
    _, change = save_note(paths, settings, "profile", "Same.\n", current_version(paths.note("profile")), NOW)
    _, empty = save_note(paths, settings, "strategies", "", None, NOW)
    assert change is None and empty is None and len(list_changes(paths)) == 1
