"""In the app: each reflection's cost in the Events tab, the totals in the header, the budget
on ``r``, and a Queue that promises a next cycle only when something will run it."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from textual.widgets import Button, Static

from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.settings import settings_table
from orkas_tui.tui.widgets.keyed_table import KeyedTable
from tests.modelserver import ModelServer, reply
from tests.tui.conftest import SIZE, open_agent, settle, wait_until

NOTHING_TO_SAVE = {"summary": "nothing", "operations": []}


def use_model(ws: Path, server: ModelServer, model: str, budget: float | None = None) -> None:
    cap = f"daily_budget_usd = {budget}\n" if budget is not None else ""
    (ws / "orkas.toml").write_text(f'[model]\nname = "{model}"\napi_base = "{server.url}"\n{cap}')


def schedule(app) -> str:
    return str(app.query_one("#queue-schedule", Static).render())


def header(app) -> str:
    return str(app.query_one("#agent-header", Static).render())


def event_details(app) -> list[str]:
    table = app.query_one("#events-table", KeyedTable)
    return [str(table.get_row_at(i)[-1]) for i in range(table.row_count)]


async def reflect_now(app, pilot) -> None:
    await pilot.press("2", "r")
    await wait_until(pilot, lambda: isinstance(app.screen, Choose))
    await pilot.click("#answer-send")


async def test_the_queue_promises_a_next_cycle_only_once_hooks_are_installed(app_factory, demo_ws: Path) -> None:
    (demo_ws / "orkas.toml").write_text('[model]\nname = "openai/test-model"\napi_base = "http://127.0.0.1:9/v1"\n')
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("2")
        assert "No next cycle: nothing runs the schedule: install the hooks" in schedule(app)
        assert app.plan is not None and app.plan.next_cycle_at is None
        settings = Path.home() / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        command = f"/usr/local/bin/orkas-tui hook claude-code --agent coder --workspace {demo_ws}"
        settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}}))
        app.load({})
        await settle(pilot)
        assert "Next cycle now (due), run by claude-code hooks (~/.claude/settings.json)" in schedule(app)
        assert app.plan.next_cycle_at is not None


async def test_a_priced_reflection_shows_its_cost_in_events_and_the_header(app_factory, demo_ws: Path) -> None:
    with ModelServer([reply(NOTHING_TO_SAVE)]) as server:
        use_model(demo_ws, server, "openai/gpt-4o-mini")
        app = app_factory()
        async with app.run_test(size=SIZE) as pilot:
            await open_agent(pilot, "coder")
            await reflect_now(app, pilot)
            await wait_until(pilot, lambda: any("$0.000228" in d for d in event_details(app)))
            (row,) = [d for d in event_details(app) if "$0.000228" in d]
            assert row.startswith("$0.000228 · 1,200 in / 80 out tokens · ")
            await wait_until(pilot, lambda: "cost today $0.000228" in header(app))
            assert "Reflections cost today $0.000228" in schedule(app)


async def test_an_unknown_price_reads_price_unknown_in_the_events_tab(app_factory, demo_ws: Path) -> None:
    with ModelServer([reply(NOTHING_TO_SAVE)]) as server:
        use_model(demo_ws, server, "openai/test-model")
        app = app_factory()
        async with app.run_test(size=SIZE) as pilot:
            await open_agent(pilot, "coder")
            await reflect_now(app, pilot)
            await wait_until(pilot, lambda: any("1,200 in" in d for d in event_details(app)))
            (row,) = [d for d in event_details(app) if "1,200 in" in d]
            assert row.startswith("price unknown · 1,200 in / 80 out tokens") and "$0" not in row
            # the header and the queue say it once, in one wording: no "$0" for a reflection of unknown price
            await wait_until(pilot, lambda: "cost price unknown (1 reflection today, 1 this month)" in header(app))
            assert "Reflections cost price unknown (1 reflection today, 1 this month)" in schedule(app)


async def test_reflect_now_over_the_budget_asks_to_send_anyway(app_factory, demo_ws: Path) -> None:
    with ModelServer([reply(NOTHING_TO_SAVE)]) as server:
        use_model(demo_ws, server, "openai/gpt-4o-mini", budget=0)
        app = app_factory()
        async with app.run_test(size=SIZE) as pilot:
            await open_agent(pilot, "coder")
            assert "Over today's budget" in schedule(app)
            await pilot.press("2", "r")
            await wait_until(pilot, lambda: isinstance(app.screen, Choose))
            assert "over today's budget" in app.screen.question
            assert str(app.screen.query_one("#answer-send", Button).label) == "Send anyway"
            await pilot.click("#answer-send")
            await wait_until(pilot, lambda: len(server.requests) == 1)


async def test_the_settings_screen_shows_the_daily_budget(app_factory, demo_ws: Path) -> None:
    (demo_ws / "orkas.toml").write_text('[model]\nname = "openai/gpt-4o-mini"\ndaily_budget_usd = 0.5\n')
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        console = Console(width=300, record=True, file=io.StringIO())
        console.print(settings_table(app, app.settings, app.settings_problem))
        shown = console.export_text()
        assert "Daily budget" in shown and "$0.5 a day (your local day)" in shown
