"""A question with a few answers, dismissed with the answer's key (or ``None`` on escape)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class Choose(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="choose_cancel")]

    def __init__(self, question: str, answers: list[tuple[str, str]], danger: str | None = None) -> None:
        super().__init__(classes="dialog")
        self.question = question
        self.answers = answers
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question, id="question", markup=False)
            with Horizontal(id="answers"):
                for key, label in self.answers:
                    yield Button(label, id=f"answer-{key}", variant="error" if key == self.danger else "default")

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "").removeprefix("answer-"))
