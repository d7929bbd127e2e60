"""Self notes and skills edited in the app go through the core stores: caps, conflicts, no lost edits."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, TextArea

from orkas_tui.core.read.workspace import Area
from orkas_tui.core.store.skills import parse_skill
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.skill_editor import SkillEditor
from orkas_tui.tui.widgets.self_notes import SelfPane
from orkas_tui.tui.widgets.skills import SkillsPane
from tests.tui.conftest import SIZE, open_agent, settle


async def test_over_cap_self_note_is_refused_and_says_by_how_much(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    profile = demo_ws / "agents" / "coder" / "self" / "profile.md"
    before = profile.read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("5")
        pane = app.query_one(SelfPane)
        area = pane.editor("profile").area
        area.focus()
        area.load_text("x" * 2_050)
        await pilot.pause()
        assert "50 over the cap" in str(pane.editor("profile").query_one(".note-count").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("2,050 characters, 50 over its 2,000-character cap; not saved" in m for m in messages), messages
    assert profile.read_bytes() == before


async def test_saving_a_note_under_the_cap_writes_it_and_logs_the_event(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    agent = demo_ws / "agents" / "coder"
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("5")
        area = app.query_one(SelfPane).editor("strategies").area
        area.focus()
        area.load_text("- Always run `pnpm test` before saying it works.\n")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not app.query_one(SelfPane).dirty_notes()
    assert (agent / "self" / "strategies.md").read_text() == "- Always run `pnpm test` before saying it works.\n"
    assert b'"type":"self_updated"' in (agent / "events.jsonl").read_bytes()


async def test_a_saved_note_comes_back_from_disk_without_losing_what_was_typed_since(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("5")
        editor = app.query_one(SelfPane).editor("strategies")
        editor.area.focus()
        editor.area.load_text("- first\n")
        await pilot.press("ctrl+s")
        editor.area.insert("- typed while saving\n")  # before the save comes back through the load path
        await settle(pilot)
        assert editor.loaded.text == "- first\n" and editor.loaded.version
        assert editor.dirty and not editor.changed_on_disk  # its own save is not someone else's change
        assert editor.area.text == "- typed while saving\n- first\n"
    assert (demo_ws / "agents" / "coder" / "self" / "strategies.md").read_text() == "- first\n"


async def _open_first_skill(pilot) -> tuple[SkillEditor, str]:
    app = pilot.app
    await pilot.press("3")
    pane = app.query_one(SkillsPane)
    pane.table.focus()
    slug = pane.table.current_key()
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, SkillEditor)
    return app.screen, slug


async def test_editing_and_saving_a_skill(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        editor, slug = await _open_first_skill(pilot)
        editor.query_one("#skill-description", Input).value = "When building, always use pnpm"
        editor.query_one("#skill-body", TextArea).load_text("Always run `pnpm install` first.\n")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not editor.dirty
    path = demo_ws / "agents" / "coder" / "skills" / f"{slug}.md"
    skill = parse_skill(slug, path.read_bytes())
    assert skill.description == "When building, always use pnpm"
    assert skill.body == "Always run `pnpm install` first.\n"
    assert b'"type":"skill_edited"' in (demo_ws / "agents" / "coder" / "events.jsonl").read_bytes()


async def test_a_skill_editor_takes_its_own_save_back_from_disk(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        editor, slug = await _open_first_skill(pilot)
        editor.query_one("#skill-body", TextArea).load_text("  No trailing newline, leading spaces.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        on_disk = parse_skill(slug, (demo_ws / "agents" / "coder" / "skills" / f"{slug}.md").read_bytes())
        assert editor.skill == on_disk and editor.version == on_disk.version  # the store trims the body's ends
        assert not editor.dirty and not editor.changed_on_disk
        assert editor.body == "  No trailing newline, leading spaces."  # the text (and cursor) stay as typed


async def test_an_external_edit_is_announced_and_never_overwritten_silently(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        editor, slug = await _open_first_skill(pilot)
        editor.query_one("#skill-body", TextArea).load_text("My local edit.\n")
        path = demo_ws / "agents" / "coder" / "skills" / f"{slug}.md"
        external = path.read_text().replace("---\n\n", "---\n\nEdited by hand in vim.\n", 1)
        path.write_text(external)
        app.reload_agent("coder", Area.SKILLS)  # what the watcher does when the file changes
        await settle(pilot)
        assert editor.changed_on_disk
        assert any("changed on disk" in n.message for n in app._notifications)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, Choose)  # asks: keep editing / reload / overwrite
        assert path.read_text() == external
        await pilot.click("#answer-keep")
        await settle(pilot)
        assert app.screen is editor
        assert editor.body == "My local edit.\n"
    assert path.read_text() == external


async def test_quit_with_unsaved_edits_asks_first(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("5")
        area = app.query_one(SelfPane).editor("profile").area
        area.load_text("unsaved thoughts")
        app.query_one("#skills-table").focus()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, Choose)
        assert "self/profile.md" in app.screen.question
        await pilot.click("#answer-stay")
        await pilot.pause()
        assert app.is_running and area.text == "unsaved thoughts"


async def test_a_note_changed_on_disk_under_unsaved_edits_is_announced_and_kept(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    profile = demo_ws / "agents" / "coder" / "self" / "profile.md"
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("5")
        editor = app.query_one(SelfPane).editor("profile")
        editor.area.load_text("my unsaved words")
        profile.write_text("written by hand in another editor")
        app.reload_agent("coder", Area.SELF)
        await settle(pilot)
        assert editor.changed_on_disk and editor.area.text == "my unsaved words"
        assert any("changed on disk" in n.message for n in app._notifications)
        editor.area.focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, Choose)
        assert profile.read_text() == "written by hand in another editor"
        await pilot.click("#answer-overwrite")
        await settle(pilot)
    assert profile.read_text() == "my unsaved words"


async def test_deleting_a_skill_asks_first(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        _editor, slug = await _open_first_skill(pilot)
        path = demo_ws / "agents" / "coder" / "skills" / f"{slug}.md"
        await pilot.press("f8")
        await pilot.pause()
        assert isinstance(app.screen, Choose) and path.exists()
        await pilot.click("#answer-delete")
        await settle(pilot)
        assert not path.exists()
        assert not isinstance(app.screen, SkillEditor)
        assert slug not in app.query_one(SkillsPane).table.rows
    assert b'"type":"skill_deleted"' in (demo_ws / "agents" / "coder" / "events.jsonl").read_bytes()
