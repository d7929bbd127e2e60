"""From a fresh machine: no workspace yet, then an empty one."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_tui import cli
from orkas_tui.commands.app import open_or_create
from orkas_tui.core.read.settings import load_settings
from orkas_tui.core.read.workspace import WorkspaceError
from orkas_tui.core.store.first_run import create_workspace
from tests.tui.conftest import SIZE, settle


def test_no_workspace_without_a_terminal_is_one_line_naming_init(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nope"
    assert cli.main(["--workspace", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--init" in err and str(missing) in err
    assert not missing.exists()


def test_yes_creates_the_workspace_with_a_commented_settings_file(tmp_path: Path) -> None:
    root = tmp_path / "home" / ".orkas"
    asked = []
    workspace = open_or_create(str(root), create=False, ask=lambda r: asked.append(r) or True)
    assert asked == [root] and workspace.root == root
    assert (root / "agents").is_dir() and workspace.agent_ids() == []
    assert "# name = " in (root / "orkas.toml").read_text() and load_settings(root).model.name is None


def test_no_creates_nothing_and_init_creates_without_asking(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="--init"):
        open_or_create(str(tmp_path / "a"), create=False, ask=lambda r: False)
    assert not (tmp_path / "a").exists()
    workspace = open_or_create(str(tmp_path / "b"), create=True, ask=lambda r: pytest.fail("--init must not ask"))
    assert (workspace.root / "agents").is_dir()


def test_an_existing_settings_file_is_kept(tmp_path: Path) -> None:
    (tmp_path / "orkas.toml").write_text('[model]\nname = "openai/mine"\n')
    create_workspace(tmp_path)
    assert load_settings(tmp_path).model.name == "openai/mine"


async def test_an_empty_workspace_says_what_to_do_next_and_r_b_say_why_not(app_factory, tmp_path: Path) -> None:
    root = create_workspace(tmp_path / "ws")
    app = app_factory(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        header = str(app.query_one("#agent-header").render())
        assert "Reading" not in header and "No agents in" in header
        empty = str(app.query_one("#empty-state").render())
        assert f"orkas-tui import claude-code --agent claude --workspace {root}" in empty
        assert f"orkas-tui import codex --agent codex --workspace {root}" in empty and "orkas-tui --demo" in empty
        assert f"orkas-tui hooks install claude-code --agent claude --workspace {root}" in empty
        assert not app.query_one("#tabs").display or not app.query_one("#tabs").region.area
        for key in ("r", "b"):
            await pilot.press(key)
            await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert messages.count("No agent to act on yet: import one first (the commands are on the screen).") == 2
