"""The agents sidebar: one row per agent with its queue badge, last reflection age,
skill count, the hook problems not looked at yet and a malformed-line warning."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable

from orkas_tui.core.picture import AgentView
from orkas_tui.tui.cells import age
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable
from orkas_tui.tui.widgets.queue import BADGE_WIDTH

COLUMNS = [("agent", "Agent"), ("status", "Status"), ("reflected", "Refl"), ("skills", "Sk")]
WIDTHS = {"status": BADGE_WIDTH, "reflected": 6, "skills": 3}  # "10d23h"
DROP = ["skills", "reflected"]  # a narrow sidebar keeps the agent and its status


def agent_cells(view: AgentView, badge: Text, now: datetime) -> list[Cell]:
    agent = Cell(sort=view.id)
    if view.hook_problems:  # hooks failed since the Events tab was last looked at: first, as a narrow sidebar cuts the name
        agent.append(f"✗{view.hook_problems} ", style="bold red")
    if view.malformed:  # malformed lines skipped: first, so a narrow sidebar cuts the name, not the warning
        agent.append(f"⚠{view.malformed} ", style="yellow")
    agent.append(view.id, style="bold")
    return [
        agent,
        Cell.of(badge, sort=badge.plain),
        Cell(age(view.last_reflection, now), sort=view.last_reflection.isoformat() if view.last_reflection else ""),
        Cell(str(len(view.skills)), sort=len(view.skills), justify="right"),
    ]


def pending_cells(agent_id: str) -> list[Cell]:
    return [
        Cell(agent_id, sort=agent_id, style="bold"),
        Cell("reading…", sort="", style="dim italic"),
        Cell("", sort=""),
        Cell("", sort=-1),
    ]


class Sidebar(KeyedTable):
    """Highlighting a row selects that agent."""

    class AgentSelected(Message):
        def __init__(self, agent: str) -> None:
            super().__init__()
            self.agent = agent

    def __init__(self, **kwargs) -> None:
        super().__init__(
            COLUMNS, sort=("agent", False), widths=WIDTHS, flex="agent", drop=DROP, **kwargs
        )  # badges come after the rows
        self.show_cursor = True

    def show(self, views: dict[str, AgentView], badges: dict[str, Text], now: datetime, pending: list[str]) -> None:
        """One row per agent; the ``pending`` ones, not read yet, say so."""
        rows = {aid: agent_cells(view, badges.get(aid, Text("")), now) for aid, view in views.items()}
        rows.update({aid: pending_cells(aid) for aid in pending})
        self.sync(rows)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.post_message(self.AgentSelected(event.row_key.value))
