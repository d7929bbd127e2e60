"""A newcomer's path, driven as a person would: no workspace, create it, import a Claude Code
history while the app is open, set a local model in the settings screen, reflect with
progress, approve. Once as a Pilot run with every step checked, and as snapshots of what
the person sees at 120x40 and 80x24 (the same steps were recorded by hand in tmux)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_tui import cli
from orkas_tui.commands.app import open_or_create
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.settings import SettingsEditor, SettingsScreen
from tests.importers.conftest import samples  # noqa: F401 - the vendored transcripts, unpacked
from tests.modelserver import ModelServer, reply
from tests.tui.conftest import settle
from tests.tui.test_snapshots import SIZES

ANSWER = {
    "summary": "Read the spotter's config first",
    "operations": [
        {
            "op": "create_skill",
            "sources": ["$USER"],
            "name": "Check the spotter config",
            "description": "Before changing marot-spotter, read its config and run its tests.",
            "body": "1. Read the config.\n2. Run the tests.\n",
        },
        {
            "op": "update_self",
            "sources": ["$USER"],
            "note": "strategies",
            "content": "- Read a project's config before editing it.\n",
        },
    ],
}


def _new_workspace(tmp_path: Path) -> Path:
    """What `orkas-tui` with no workspace does when the person answers yes."""
    root = tmp_path / "home" / ".orkas"  # shown as ~/.orkas: the same picture on every machine
    asked = []
    open_or_create(str(root), create=False, ask=lambda r: asked.append(r) or True)
    assert asked == [root]
    return root


def _import(samples_dir: Path, root: Path) -> None:
    """The marot-spotter sessions (the screens were drawn with those; the other samples test the importer)."""
    sessions = [str(path) for path in sorted((samples_dir / "claude-code").glob("marot-spotter__*"))]
    code = cli.main(["import", "claude-code", *sessions, "--agent", "claude", "--workspace", str(root)])
    assert code == 0


async def _wait(pilot, predicate, rounds: int = 2400) -> None:
    """Poll without waiting for workers (a reflection worker is meant to be running); the
    bound only stops a hung test: the first model call imports litellm, slow on a busy machine."""
    for _ in range(rounds):
        if predicate():
            return
        await pilot.pause(0.05)
    app = pilot.app
    said = [n.message for n in app._notifications] + [line.plain for line in getattr(app, "progress_lines", [])]
    raise AssertionError(f"the condition never held; the app said: {said}")


async def _send(pilot) -> None:
    """`r` asked; press Send once the dialog is laid out (a click before that lands elsewhere)."""
    app = pilot.app

    def ready() -> bool:
        return isinstance(app.screen, Choose) and any(b.region.width for b in app.screen.query("#answer-send"))

    await _wait(pilot, ready)
    await pilot.pause()
    await pilot.click("#answer-send")
    await _wait(pilot, lambda: not isinstance(app.screen, Choose))


async def _set_model(pilot, toml: str) -> None:
    """`,` then `e`: write [model] in the inline editor, ctrl+s, and back to the app."""
    app = pilot.app
    await pilot.press("comma")
    await _wait(pilot, lambda: isinstance(app.screen, SettingsScreen))
    await pilot.press("e")
    await _wait(pilot, lambda: isinstance(app.screen, SettingsEditor))
    area = app.screen.query_one("#settings-text")
    area.load_text(area.text.replace("[model]\n", f"[model]\n{toml}", 1))
    await pilot.press("ctrl+s")
    await settle(pilot)
    await pilot.press("escape")  # back to the settings screen, which now shows the model
    await _wait(pilot, lambda: isinstance(app.screen, SettingsScreen))


async def _reflect_and_approve_one(pilot) -> None:
    app = pilot.app
    await pilot.press("r")
    await _send(pilot)
    await _wait(pilot, lambda: bool(app.views.get("claude") and app.views["claude"].proposals))
    await settle(pilot)
    await pilot.press("4")
    await settle(pilot)
    await pilot.press("a")
    await _wait(pilot, lambda: app.views["claude"].skills != [])
    await settle(pilot)


async def test_a_newcomer_goes_from_no_workspace_to_an_approved_skill(app_factory, samples, tmp_path: Path) -> None:  # noqa: F811
    root = _new_workspace(tmp_path)
    with ModelServer([reply(ANSWER, delay_s=0.5)]) as server:
        app = app_factory(root, watch=True)
        async with app.run_test(size=SIZES["120x40"]) as pilot:
            await settle(pilot)
            assert "orkas-tui import claude-code" in str(app.query_one("#empty-state").render())
            _import(samples, root)  # in another terminal: the open app picks the agent up by itself
            await _wait(pilot, lambda: "claude" in app.views and app.agent == "claude")
            await settle(pilot)
            assert app.query_one("#turns-table").row_count == len(app.views["claude"].turns) > 0
            await _set_model(pilot, f'name = "openai/local"\napi_base = "{server.url}"\n')
            assert app.settings.model.name == "openai/local" and app.settings_problem is None
            await pilot.press("escape")
            await pilot.press("r")
            await _wait(pilot, lambda: isinstance(app.screen, Choose))
            assert "openai/local" in app.screen.question
            await _send(pilot)
            await _wait(pilot, lambda: bool(app.views["claude"].proposals))
            log = " ".join(line.plain for line in app.progress_lines)
            assert "bundle built" in log and "waiting for openai/local" in log and "validating" in log
            await settle(pilot)
            await pilot.press("4")
            await settle(pilot)
            await pilot.press("a")
            await _wait(pilot, lambda: app.views["claude"].skills != [])
    skills = Workspace.open(root).agent("claude").skills
    assert [p.name for p in skills.glob("*.md")] == ["check-the-spotter-config.md"]
    assert len(server.requests) == 1


@pytest.mark.parametrize("size", ["120x40", "80x24"])
@pytest.mark.parametrize("stage", ["imported", "settings", "approved"])
def test_newcomer_snapshot(snap_compare, app_factory, samples, tmp_path: Path, stage: str, size: str) -> None:  # noqa: F811
    root = _new_workspace(tmp_path)
    _import(samples, root)
    with ModelServer([reply(ANSWER)]) as server:

        async def run_before(pilot) -> None:
            await settle(pilot)
            if stage == "settings":  # a fixed address: the picture must not show the server's port
                await _set_model(pilot, 'name = "openai/llama3"\napi_base = "http://127.0.0.1:11434/v1"\n')
            elif stage == "approved":
                (root / "orkas.toml").write_text(f'[model]\nname = "openai/llama3"\napi_base = "{server.url}"\n')
                await pilot.press("f5")
                await settle(pilot)
                await _reflect_and_approve_one(pilot)
            pilot.app.clear_notifications()  # a toast times out: the picture must not depend on how long this took
            await pilot.pause()

        assert snap_compare(app_factory(root), terminal_size=SIZES[size], run_before=run_before)
