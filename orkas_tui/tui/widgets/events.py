"""The Events tab: the agent's ``events.jsonl`` and its hook log, newest first, live (rows keyed by byte offset;
a hook log line's key starts with ``hook-``). A row's details are cut to the width; ``enter`` shows the
whole event."""

from __future__ import annotations

from datetime import datetime

import orjson
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable

from orkas_tui.core.picture import EVENTS_KEPT, AgentView
from orkas_tui.core.reflect.spend import USAGE_FIELDS, usage_of
from orkas_tui.tui.cells import clock_time
from orkas_tui.tui.messages import ShowText
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

COLUMNS = [("time", "Time"), ("type", "Event"), ("source", "Source"), ("details", "Details")]
HIDDEN = ("ts", "type", "source")


def event_cells(offset: int, event: dict, now: datetime, log: int = 0) -> list[Cell]:
    """``log``: 0 for ``events.jsonl``, 1 for the hook log; rows sort by time, then file, then offset.
    A reflection's details open with its cost and tokens (``price unknown`` when litellm has no price)."""
    usage = usage_of("", event) if log == 0 else None
    hidden = (*HIDDEN, *USAGE_FIELDS) if usage is not None else HIDDEN
    details = {k: v for k, v in event.items() if k not in hidden}
    text = " ".join(f"{k}={v if isinstance(v, str) else orjson.dumps(v).decode()}" for k, v in details.items())
    if usage is not None:
        text = f"{usage.text()} · {text}"
    kind = str(event.get("type"))
    return [
        Cell(clock_time(event.get("ts"), now), sort=(str(event.get("ts") or ""), log, offset)),
        Cell(kind, sort=kind, style="bold" if kind.startswith(("reflection", "proposal")) else ""),
        Cell(str(event.get("source", "runtime")), sort=str(event.get("source", ""))),
        Cell(text, sort=text),
    ]


class EventsPane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.agent: str | None = None
        self.by_key: dict[str, dict] = {}  # each row's event, whole

    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, sort=("time", True), id="events-table", flex="details", drop=["source", "type"])

    def show(self, view: AgentView, now: datetime) -> None:
        table = self.query_one(KeyedTable)
        if self.agent != view.id:
            table.clear()
            self.agent = view.id
        table.border_subtitle = f"last {EVENTS_KEPT:,} kept" if len(view.events) >= EVENTS_KEPT else ""
        self.by_key, rows = {}, {}
        for log, (prefix, entries) in enumerate((("", view.events), ("hook-", view.hook_log))):
            for offset, event in entries:
                key = f"{prefix}{offset}"
                self.by_key[key] = event
                rows[key] = event_cells(offset, event, now, log)
        table.sync(rows)

    @on(DataTable.RowSelected, "#events-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        """``enter``: the whole event, every field, as the file holds it."""
        key = event.row_key.value
        shown = self.by_key.get(key) if key is not None else None
        if key is None or shown is None:
            return
        where = "hooks.log" if key.startswith("hook-") else "events.jsonl"
        title = f"{shown.get('type')} at {shown.get('ts')} ({where} of {self.agent}; esc to go back)"
        self.post_message(ShowText(title, orjson.dumps(shown, option=orjson.OPT_INDENT_2).decode()))
