"""A person's edits in the app: refused when invalid, recorded in history, revertable; broken skills fixable."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, TextArea

from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.history import list_changes
from orkas_tui.tui.screens.skill_editor import SkillEditor
from orkas_tui.tui.screens.skill_history import SkillHistory
from orkas_tui.tui.widgets.self_notes import SelfPane
from orkas_tui.tui.widgets.skills import SkillsPane
from tests.tui.conftest import SIZE, open_agent, settle
from tests.tui.test_editing import _open_first_skill


def _messages(app) -> str:
    return " | ".join(n.message for n in app._notifications)


async def test_an_empty_description_is_refused_with_the_reason(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        editor, slug = await _open_first_skill(pilot)
        path = demo_ws / "agents" / "coder" / "skills" / f"{slug}.md"
        before = path.read_bytes()
        editor.query_one("#skill-description", Input).value = "   "
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "the description is empty" in _messages(app) and editor.dirty
    assert path.read_bytes() == before


async def test_a_skill_edit_is_in_its_history_and_reverts_there(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        editor, slug = await _open_first_skill(pilot)
        path = demo_ws / "agents" / "coder" / "skills" / f"{slug}.md"
        before = path.read_text()
        editor.query_one("#skill-body", TextArea).load_text("A new body.\n")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "A new body." in path.read_text()
        await pilot.press("f2")
        await settle(pilot)
        history = app.screen
        assert isinstance(history, SkillHistory)
        mine = [c for c in history.changes.values() if c.by == "user"]
        assert len(mine) == 1 and mine[0].action == "edit_skill"
        history.query_one("#history-table").move_cursor(row=history.query_one("#history-table").get_row_index(mine[0].id))
        await pilot.press("v")
        await pilot.pause()
        await pilot.click("#answer-revert")
        await settle(pilot)
    assert path.read_text() == before


async def test_a_note_edit_is_recorded_in_history(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("5")
        area = app.query_one(SelfPane).editor("strategies").area
        area.load_text("- Ask before deleting branches.\n")
        area.focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
    changes = [c for c in list_changes(AgentPaths(demo_ws / "agents" / "coder")) if c.by == "user"]
    assert [(c.action, c.kind, c.target, c.after) for c in changes] == [
        ("update_self", "note", "strategies", "- Ask before deleting branches.\n")
    ]


async def test_a_skill_with_broken_yaml_is_listed_and_opens_to_be_fixed(app_factory, demo_ws: Path) -> None:
    path = demo_ws / "agents" / "coder" / "skills" / "zz-broken.md"
    path.write_text("---\nname: [never closed\ndescription: oops\n---\n\nThe body survives.\n")
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("3")
        pane = app.query_one(SkillsPane)
        assert "zz-broken" in pane.table.rows
        assert "broken" in str(pane.table.get_row("zz-broken")[1])
        pane.table.focus()
        pane.table.move_cursor(row=pane.table.get_row_index("zz-broken"))
        await pilot.press("o")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, SkillEditor) and editor.broken and "The body survives." in editor.body
        area = editor.query_one("#skill-body", TextArea)
        area.load_text("---\nname: [still broken\n---\nx\n")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "not valid YAML" in _messages(app)
        assert "never closed" in path.read_text()  # refused: nothing written
        area.load_text('---\nname: "Fixed"\ndescription: "when it was broken"\n---\n\nThe body survives.\n')
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "fixed and saved" in _messages(app)
        await pilot.press("escape")
        await settle(pilot)
        assert "broken" not in str(pane.table.get_row("zz-broken")[1])
    assert path.read_text().startswith('---\nname: "Fixed"')
