"""The Turns tab: every turn newest first, live, and the selected turn's reasons and transcript.

Thousands of turns must not hold up the first paint or a live update: a screenful is
put in the table at once, the rest follows in chunks between frames, and a refresh
touches only the rows whose shown values changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from orkas_tui.core.picture import AgentView
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.summary.turn import Turn
from orkas_tui.tui.cells import clock_time, score_bar, signals_text
from orkas_tui.tui.turn_detail import detail
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp

COLUMNS = [
    ("time", "Time"),
    ("score", "Score │ threshold"),
    ("trigger", "T"),
    ("signals", "Signals"),
    ("errors", "Err r/t"),
    ("tools", "Tools"),
    ("conversation", "Conversation"),
]


FIRST_ROWS = 100  # more than a screenful, shown with the view itself
CHUNK_ROWS = 200  # the rest, one chunk per turn of the event loop


def turn_key(row: Turn) -> str:
    return _key(row.key)


def _key(turn: tuple[str, int]) -> str:
    return f"{turn[0]}#{turn[1]}"


def turn_state(row: Turn, day: date) -> tuple:
    """Everything :func:`turn_cells` shows: a row whose state is unchanged keeps its cells."""
    t = row.summary
    return (
        t.ended_at,
        t.started_at,
        t.status,
        t.tool_calls,
        t.real_errors,
        t.transient_errors,
        t.score,
        t.triggers,
        tuple(t.signals.items()),
        day,
    )


def turn_cells(row: Turn, settings: Settings, now: datetime) -> list[Cell]:
    t = row.summary
    when = t.sort_key
    real, transient = t.real_errors, t.transient_errors
    errors = Cell(f"{real}/{transient}", sort=(real, transient), style="red" if real else ("dim" if not transient else ""))
    return [
        Cell(clock_time(when, now), sort=(when, t.conversation, row.seq)),
        Cell.of(score_bar(t.score, settings.threshold, running=not t.ended), sort=t.score),
        Cell("▲" if t.triggers else ("…" if not t.ended else ""), sort=t.triggers, style="bold red"),
        Cell("running" if not t.ended else signals_text(t.signals), sort=len(t.signals)),
        errors,
        Cell(str(t.tool_calls), sort=t.tool_calls, justify="right"),
        Cell(t.conversation, sort=t.conversation),
    ]


class TurnsPane(Vertical):
    """Turns table above, the selected turn's explanation and transcript below."""

    app: OrkasApp  # the app it lives in, for the type checker

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: dict[str, Turn] = {}
        self.view: AgentView | None = None
        self._shown: dict[str, tuple] = {}  # key -> turn_state of the row in the table
        self._day: date | None = None  # the day _shown's clock cells were made for
        self._settings: Settings | None = None
        self._now: datetime | None = None
        self._table = KeyedTable(
            COLUMNS,
            sort=("time", True),
            id="turns-table",
            flex=["signals", "conversation"],  # a long conversation id (Claude Code's) shrinks too
            drop=["conversation", "tools", "errors", "trigger", "score"],
        )

    def compose(self) -> ComposeResult:
        yield self._table
        with VerticalScroll(id="turn-detail"):
            yield Static("Select a turn to see why it scored what it did.", id="turn-detail-body")

    @property
    def table(self) -> KeyedTable:
        return self._table

    def show(self, view: AgentView, settings: Settings, now: datetime) -> int:
        """Apply a fresh view; return the number of turns put in the table now (more may follow)."""
        fresh = self.view is None or self.view.id != view.id
        self.view, self._settings, self._now = view, settings, now
        self.rows = {turn_key(row): row for row in view.turns}
        if fresh:
            self.table.clear()
            self.table.sort_spec = ("time", True)
            self._shown = {}
        day = now.date()
        if fresh or view.touched is None or day != self._day:  # compare every row
            candidates: Iterable[str] = self.rows
        else:  # only the turns this load changed can show something new
            candidates = [key for key in map(_key, view.touched) if key in self.rows]
        self._day = day
        changed = [
            key for key in candidates if (shown := self._shown.get(key)) is not None and shown != turn_state(self.rows[key], day)
        ]
        missing = [key for key in self.rows if key not in self._shown]  # newest first
        gone = [key for key in self._shown if key not in self.rows]
        for key in gone:
            del self._shown[key]
        added = self._put(changed + missing[:FIRST_ROWS], gone)
        if fresh:
            self.table.move_cursor(row=0)
        self._fill(missing[FIRST_ROWS:])
        self._explain_current()
        return added

    def _put(self, keys: list[str], gone: Iterable[str] = ()) -> int:
        """Put these turns' rows in the table (added or updated in place) and drop ``gone``."""
        assert self._settings is not None and self._now is not None
        day = self._now.date()
        cells = {}
        for key in keys:
            row = self.rows.get(key)
            if row is not None:
                self._shown[key] = turn_state(row, day)
                cells[key] = turn_cells(row, self._settings, self._now)
        return self.table.patch(cells, gone)

    @work(exclusive=True, group="turn-rows")
    async def _fill(self, keys: list[str]) -> None:
        """Add the rows below the first screenful, a chunk at a time, so the UI stays live."""
        for start in range(0, len(keys), CHUNK_ROWS):
            if not self._table.is_attached:  # the app is closing
                return
            await self._table.wait_for_refresh()  # a frame between chunks: scrolling and keys stay live
            self._put([key for key in keys[start : start + CHUNK_ROWS] if key not in self._shown])

    @on(DataTable.RowHighlighted, "#turns-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._explain_current()

    @on(DataTable.HeaderSelected, "#turns-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        if (column := event.column_key.value) is not None:  # every column here has a key
            self.table.sort_by(column)

    def _explain_current(self) -> None:
        key = self.table.current_key()
        row = self.rows.get(key) if key else None
        if row is not None and self.view is not None:
            self._load_detail(row)

    @work(thread=True, exclusive=True, group="turn-detail")
    def _load_detail(self, row: Turn) -> None:
        app = self.app
        view = self.view
        data = app.data.agents.get(view.id) if view is not None else None
        if data is None:
            return
        body = detail(data.paths, row, app.settings, app.clock())
        app.call_from_thread(self._set_detail, row, body)

    def _set_detail(self, row: Turn, body) -> None:
        """Show a finished explanation only if its turn is still the selected one."""
        key = self.table.current_key()
        if key is not None and self.rows.get(key) is row:
            self.query_one("#turn-detail-body", Static).update(body)
