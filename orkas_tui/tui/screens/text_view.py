"""A read-only, scrollable text, e.g. the exact bundle that would leave the machine."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea


class TextView(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close", id="view_close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__(classes="viewer")
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, classes="viewer-title", markup=False)
        yield TextArea(self.text, read_only=True, soft_wrap=True, id="viewer-text")
        yield Footer()
