"""The agents sidebar: one row per agent with its queue badge, last reflection age,
skill count and a malformed-line warning."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable

from orkas_tui.tui.cells import age
from orkas_tui.tui.data import AgentView
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

COLUMNS = [("agent", "Agent"), ("status", "Status"), ("reflected", "Refl"), ("skills", "Sk"), ("warn", "!")]


def agent_cells(view: AgentView, badge: Text, now: datetime) -> list[Cell]:
    warn = Cell(f"⚠{view.malformed}" if view.malformed else "", sort=view.malformed, style="yellow")
    return [
        Cell(view.id, sort=view.id, style="bold"),
        Cell.of(badge, sort=badge.plain),
        Cell(age(view.last_reflection, now), sort=view.last_reflection.isoformat() if view.last_reflection else ""),
        Cell(str(len(view.skills)), sort=len(view.skills), justify="right"),
        warn,
    ]


class Sidebar(KeyedTable):
    """Highlighting a row selects that agent."""

    class AgentSelected(Message):
        def __init__(self, agent: str) -> None:
            super().__init__()
            self.agent = agent

    def __init__(self, **kwargs) -> None:
        super().__init__(COLUMNS, sort=("agent", False), **kwargs)
        self.show_cursor = True

    def show(self, views: dict[str, AgentView], badges: dict[str, Text], now: datetime) -> None:
        self.sync({aid: agent_cells(view, badges.get(aid, Text("")), now) for aid, view in views.items()})

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.post_message(self.AgentSelected(event.row_key.value))
