"""The Turns tab: every turn newest first, live, and the selected turn's reasons and transcript."""

from __future__ import annotations

from datetime import datetime

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from orkas_tui.config import Settings
from orkas_tui.core.report import ScoredTurn
from orkas_tui.tui.cells import clock_time, score_bar, signals_text
from orkas_tui.tui.data import AgentView
from orkas_tui.tui.turn_detail import detail
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

COLUMNS = [
    ("time", "Time"),
    ("score", "Score │ threshold"),
    ("trigger", "T"),
    ("signals", "Signals"),
    ("errors", "Err r/t"),
    ("tools", "Tools"),
    ("conversation", "Conversation"),
]


def turn_key(row: ScoredTurn) -> str:
    return f"{row.record.conversation}#{row.record.seq}"


def turn_cells(row: ScoredTurn, settings: Settings, now: datetime) -> list[Cell]:
    r, s = row.record, row.score
    when = r.ended_at or r.started_at or ""
    real, transient = len(r.real_errors), len(r.transient_errors)
    errors = Cell(f"{real}/{transient}", sort=(real, transient), style="red" if real else ("dim" if not transient else ""))
    return [
        Cell(clock_time(when, now), sort=(when, r.conversation, r.seq)),
        Cell.of(score_bar(s.score, settings.threshold, running=not r.ended), sort=s.score),
        Cell("▲" if s.triggers else ("…" if not r.ended else ""), sort=s.triggers, style="bold red"),
        Cell("running" if not r.ended else signals_text(s.signals), sort=len(s.signals)),
        errors,
        Cell(str(r.tool_calls), sort=r.tool_calls, justify="right"),
        Cell(r.conversation, sort=r.conversation),
    ]


class TurnsPane(Vertical):
    """Turns table above, the selected turn's explanation and transcript below."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: dict[str, ScoredTurn] = {}
        self.view: AgentView | None = None

    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, sort=("time", True), id="turns-table")
        with VerticalScroll(id="turn-detail"):
            yield Static("Select a turn to see why it scored what it did.", id="turn-detail-body")

    @property
    def table(self) -> KeyedTable:
        return self.query_one("#turns-table", KeyedTable)

    def show(self, view: AgentView, settings: Settings, now: datetime) -> int:
        """Apply a fresh view; return the number of new turns."""
        fresh = self.view is None or self.view.id != view.id
        self.view = view
        self.rows = {turn_key(row): row for row in view.turns}
        if fresh:
            self.table.clear()
            self.table.sort_spec = ("time", True)
        added = self.table.sync({key: turn_cells(row, settings, now) for key, row in self.rows.items()})
        if fresh:
            self.table.move_cursor(row=0)
        self._explain_current()
        return added

    @on(DataTable.RowHighlighted, "#turns-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._explain_current()

    @on(DataTable.HeaderSelected, "#turns-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        self.table.sort_by(event.column_key.value)

    def _explain_current(self) -> None:
        key = self.table.current_key()
        row = self.rows.get(key) if key else None
        if row is not None and self.view is not None:
            self._load_detail(row)

    @work(thread=True, exclusive=True, group="turn-detail")
    def _load_detail(self, row: ScoredTurn) -> None:
        app = self.app
        view = self.view
        data = app.data.agents.get(view.id) if view is not None else None
        if data is None:
            return
        body = detail(data.paths, row, app.settings, app.now())
        app.call_from_thread(self._set_detail, row, body)

    def _set_detail(self, row: ScoredTurn, body) -> None:
        """Show a finished explanation only if its turn is still the selected one."""
        key = self.table.current_key()
        if key is not None and self.rows.get(key) is row:
            self.query_one("#turn-detail-body", Static).update(body)
