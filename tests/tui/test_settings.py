"""Keys are rebound from ``[keys]`` in orkas.toml by binding id; the theme comes from settings."""

from __future__ import annotations

from pathlib import Path

from orkas_tui.tui.screens.help import HelpScreen
from tests.tui.conftest import SIZE, settle


async def test_keys_rebound_and_theme_applied_from_orkas_toml(app_factory, demo_ws: Path) -> None:
    toml = demo_ws / "orkas.toml"
    toml.write_text('theme = "gruvbox"\n' + toml.read_text() + '\n[keys]\nhelp = "h"\ntab_skills = "k"\n')
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "gruvbox"
        await pilot.press("k")
        assert app.query_one("#tabs").active == "skills"
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("question_mark")  # the old key no longer opens help
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_unknown_binding_id_and_theme_are_reported_not_fatal(app_factory, demo_ws: Path) -> None:
    toml = demo_ws / "orkas.toml"
    toml.write_text('theme = "no-such-theme"\n' + toml.read_text() + '\n[keys]\nfly = "f"\n')
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        messages = " ".join(n.message for n in app._notifications)
        assert "unknown binding id(s) fly" in messages
        assert "no theme 'no-such-theme'" in messages
