"""Every tab at 120x40, 80x24 and 60x20, the help and settings screens, and the empty workspace
(demo workspace, fixed clock, no blink, no watcher)."""

from __future__ import annotations

import shutil

import pytest

from orkas_tui.core.store.first_run import create_workspace
from orkas_tui.demo.proposal import add_demo_proposal
from tests.conftest import NOW
from tests.tui.conftest import settle

SIZES = {"120x40": (120, 40), "80x24": (80, 24), "60x20": (60, 20)}
TABS = ["1", "2", "3", "4", "5", "6"]


def _open_tab(key: str):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("down")  # the coder agent: a running turn, a proposal, four skills
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("key", TABS)
def test_tab_snapshot(snap_compare, app_factory, demo_ws, key, size) -> None:
    add_demo_proposal(demo_ws, NOW)
    if SIZES[size][0] < 70:  # the sidebar is hidden there: pick the coder agent with ]

        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("right_square_bracket")
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
    else:
        run_before = _open_tab(key)
    assert snap_compare(app_factory(), terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("key", ["question_mark", "comma"])
def test_screen_snapshot(snap_compare, app_factory, demo_ws, tmp_path, key) -> None:
    root = tmp_path / "home" / ".orkas"  # shown as ~/.orkas: the same picture on every machine
    shutil.copytree(demo_ws, root)
    (root / "orkas.toml").write_text('[model]\nname = "openai/test-model"\napi_base = "http://127.0.0.1:8000/v1"\n')
    assert snap_compare(app_factory(root), terminal_size=SIZES["120x40"], run_before=_open_tab(key))


@pytest.mark.parametrize("size", ["120x40", "80x24"])
def test_empty_workspace_snapshot(snap_compare, app_factory, tmp_path, size) -> None:
    root = create_workspace(tmp_path / "home" / ".orkas")

    async def run_before(pilot) -> None:
        await settle(pilot)

    assert snap_compare(app_factory(root), terminal_size=SIZES[size], run_before=run_before)
