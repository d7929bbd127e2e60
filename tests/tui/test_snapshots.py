"""Every tab and the help screen on the demo workspace (fixed clock, fixed size)."""

from __future__ import annotations

import pytest

from orkas_tui.tui.demo_proposal import add_demo_proposal
from tests.conftest import NOW
from tests.tui.conftest import SIZE, settle


async def _ready(pilot) -> None:
    await settle(pilot)


# 1 Turns, 2 Queue, 3 Skills, 4 Proposals, 5 Self, 6 Events, ? help
@pytest.mark.parametrize("key", ["1", "2", "3", "4", "5", "6", "question_mark"])
def test_tab_snapshot(snap_compare, app_factory, demo_ws, key) -> None:
    add_demo_proposal(demo_ws, NOW)

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("down")  # the coder agent: a running turn, a proposal, four skills
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)

    assert snap_compare(app_factory(), terminal_size=SIZE, run_before=run_before)


def test_narrow_terminal_snapshot(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(), terminal_size=(80, 24), run_before=_ready)
