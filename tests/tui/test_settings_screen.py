"""Model setup inside the app: the settings screen, editing orkas.toml, reloads, refused key bindings."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from orkas_tui.tui.keymap import check_keymap
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.settings import SettingsEditor, SettingsScreen, settings_table
from tests.tui.conftest import SIZE, settle


def _messages(app) -> str:
    return " | ".join(n.message for n in app._notifications)


async def _open_editor(pilot, app) -> SettingsEditor:
    """``orkas.toml`` open in the app's editor (``,`` then ``e``)."""
    await settle(pilot)
    await pilot.press("comma", "e")
    await settle(pilot)
    assert isinstance(app.screen, SettingsEditor)
    return app.screen


async def test_settings_screen_shows_the_effective_model_and_whether_its_key_is_set(
    app_factory, demo_ws: Path, monkeypatch
) -> None:
    monkeypatch.delenv("ORKAS_MODEL", raising=False)
    monkeypatch.delenv("ORKAS_TEST_KEY", raising=False)
    (demo_ws / "orkas.toml").write_text('[model]\nname = "openai/gpt-4o-mini"\napi_key_env = "ORKAS_TEST_KEY"\n')
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("comma")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        console = Console(width=300, record=True, file=io.StringIO())
        console.print(settings_table(app, app.settings, app.settings_problem))
        rendered = console.export_text()
        assert str(demo_ws / "orkas.toml") in rendered and "openai/gpt-4o-mini" in rendered
        assert "$ORKAS_TEST_KEY is NOT set" in rendered


async def test_saving_orkas_toml_in_the_editor_reloads_it_and_a_bad_one_keeps_the_old_settings(
    app_factory, demo_ws: Path
) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, app)
        area = editor.query_one("#settings-text")
        area.load_text('[model]\nname = "openai/local"\napi_base = "http://127.0.0.1:9/v1"\n')
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.settings.model.name == "openai/local" and app.workspace.settings.model.api_base == "http://127.0.0.1:9/v1"
        assert app.settings_problem is None
        area.load_text('[model]\nname = "openai/other"\ntimeout_s = "soon"\n')
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "timeout_s" in (app.settings_problem or "")
        assert app.settings.model.name == "openai/local"  # the old settings stay in effect
        assert 'timeout_s = "soon"' in (demo_ws / "orkas.toml").read_text()  # the person's text is never lost
        assert "Saved, not applied: " in str(editor.query_one("#settings-status").render())


async def test_orkas_toml_changed_on_disk_while_edited_is_overwritten_only_when_asked(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    path = demo_ws / "orkas.toml"
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, app)
        editor.query_one("#settings-text").load_text('[model]\nname = "openai/mine"\n')
        path.write_text('[model]\nname = "openai/theirs"\n')  # saved in another editor meanwhile
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, Choose) and "orkas.toml changed on disk" in str(app.screen.question)
        assert "openai/theirs" in path.read_text()  # nothing written yet
        await pilot.click("#answer-overwrite")
        await settle(pilot)
        assert app.screen is editor and "openai/mine" in path.read_text()
        assert app.settings.model.name == "openai/mine" and "Saved and applied." in str(
            editor.query_one("#settings-status").render()
        )
        editor.query_one("#settings-text").load_text('[model]\nname = "openai/again"\n')
        await pilot.press("ctrl+s")  # the editor holds the version it wrote: no question this time
        await settle(pilot)
        assert app.screen is editor and app.settings.model.name == "openai/again"


async def test_f5_reloads_orkas_toml_changed_on_disk(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        (demo_ws / "orkas.toml").write_text('[model]\nname = "openai/from-disk"\n')
        await pilot.press("f5")
        await settle(pilot)
        assert app.settings.model.name == "openai/from-disk"
        assert app.workspace.settings.model.name == "openai/from-disk"


async def test_a_change_on_disk_is_reloaded_by_the_watcher(app_factory, demo_ws: Path) -> None:
    app = app_factory(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)  # let the watcher start
        (demo_ws / "orkas.toml").write_text('[model]\nname = "openai/watched"\n')
        for _ in range(200):
            await pilot.pause(0.05)
            if app.settings.model.name == "openai/watched":
                break
        assert app.settings.model.name == "openai/watched"


async def test_a_binding_that_shadows_another_action_or_quit_is_refused(app_factory, demo_ws: Path) -> None:
    (demo_ws / "orkas.toml").write_text('[keys]\nreflect_now = "q"\nshow_bundle = "o"\nhelp = "h"\n')
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        messages = _messages(app)
        assert 'reflect_now = "q" refused: q is already Quit (quit) and would leave no key to quit' in messages
        assert 'show_bundle = "o" refused: o is already' in messages  # the Skills tab's open
        assert 'help = "h"' not in messages
        await pilot.press("h")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "HelpScreen"


def test_check_keymap_lets_two_actions_swap_keys_and_refuses_an_empty_quit() -> None:
    from textual.binding import Binding

    from orkas_tui.tui.app import OrkasApp

    sections = [("Everywhere", list(OrkasApp.BINDINGS)), ("Skills tab", [Binding("s", "sort", "Sort", id="skills_sort")])]
    accepted, refused = check_keymap(sections, {"reflect_now": "b", "show_bundle": "r", "quit": ""})
    assert accepted == {"reflect_now": "b", "show_bundle": "r"}
    assert refused == ['quit = "" refused: it would leave no key to quit']


async def test_a_load_that_ends_after_the_app_quit_is_dropped_quietly(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        views, plan = dict(app.views), app.plan
    app.apply_views(views, [], [])  # what a load worker finishing during shutdown does
    app.apply_plan(plan)


async def test_settings_screen_lists_where_each_linked_agent_is_exported(app_factory, demo_ws: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    (demo_ws / "orkas.toml").write_text(
        '[agents.coder]\nformat = "claude-code"\nexport_skills = "~/.claude/skills"\n'
        '[agents.cx]\nformat = "codex"\nexport_skills = "/srv/skills"\nexport_memory = "/srv/AGENTS.md"\n'
        '[agents.plain]\nformat = "codex"\n'
    )
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("comma")
        await pilot.pause()
        console = Console(width=300, record=True, file=io.StringIO())
        console.print(settings_table(app, app.settings, app.settings_problem))
        rendered = console.export_text()
    assert "coder: claude-code skills to ~/.claude/skills, notes to ~/.claude/CLAUDE.md" in rendered
    assert "cx: codex skills to /srv/skills, notes to /srv/AGENTS.md" in rendered
    assert "plain: codex, no export_skills: nothing exported on approve" in rendered
