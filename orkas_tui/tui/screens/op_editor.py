"""Edit one proposed operation as JSON before approving it; the core validates the result."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp


class OpEditor(ModalScreen[dict | None]):
    app: OrkasApp  # the app it lives in, for the type checker

    BINDINGS = [
        Binding("ctrl+s", "save", "Save operation", id="op_save"),
        Binding("escape", "dismiss(None)", "Cancel", id="op_cancel"),
    ]

    def __init__(self, title: str, op: dict) -> None:
        super().__init__(classes="viewer")
        self.title_text = title
        self.op = op

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, classes="viewer-title", markup=False)
        yield TextArea(json.dumps(self.op, indent=2, ensure_ascii=False), language="json", id="viewer-text")
        yield Footer()

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.cursor_blink = self.app.blink
        area.focus()

    def action_save(self) -> None:
        try:
            value = json.loads(self.query_one(TextArea).text)
        except json.JSONDecodeError as exc:
            self.notify(f"not valid JSON: {exc}", severity="error")
            return
        if not isinstance(value, dict):
            self.notify("an operation is a JSON object", severity="error")
            return
        self.dismiss(value)
