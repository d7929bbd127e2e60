"""The app on a private copy of the demo workspace, with a fixed clock and no watcher
unless a test turns it on, so snapshots are the same on every run."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_tui.tui.app import OrkasApp, make_app
from tests.conftest import NOW

SIZE = (120, 40)


def fixed_clock():
    return NOW


@pytest.fixture
def app_factory(demo_ws: Path):
    def build(root: Path | None = None, watch: bool = False, preload: bool = False) -> OrkasApp:
        return make_app(root or demo_ws, clock=fixed_clock, watch=watch, blink=False, preload=preload)

    return build


async def settle(pilot) -> None:
    """Wait until every load worker has run and the UI has painted its result."""
    app = pilot.app
    for _ in range(50):
        await pilot.pause()
        busy = [w for w in app.workers if w.group not in ("watch", "preload")]
        if busy:  # an empty list would mean "wait for every worker", the endless watcher too
            await app.workers.wait_for_complete(busy)
        await pilot.pause()
        if app.loaded and not any(w.is_running for w in app.workers if w.group not in ("watch", "preload")):
            return
    raise AssertionError("the app never finished loading")


async def open_agent(pilot, agent: str) -> None:
    """Let the app load, show ``agent``, and let that agent's views load too."""
    await settle(pilot)
    pilot.app.select_agent_from_palette(agent)
    await settle(pilot)
    assert pilot.app.agent == agent


async def wait_until(pilot, predicate, rounds: int = 200) -> None:
    """Settle until ``predicate()`` holds (a worker's result, a notification), failing after ``rounds`` tries."""
    for _ in range(rounds):
        await settle(pilot)
        if predicate():
            return
        await pilot.pause(0.05)
    raise AssertionError("the condition never held")
