"""Every key the app answers to, with the binding id to rebind it under ``[keys]`` in orkas.toml."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def key_table(sections: list[tuple[str, list[Binding]]], keymap: Mapping[str, str], display) -> Table:
    table = Table(box=None, expand=True, padding=(0, 2))
    table.add_column("Key", style="bold", no_wrap=True)
    table.add_column("Action")
    table.add_column("Binding id (orkas.toml \\[keys])", style="dim", no_wrap=True)
    for title, bindings in sections:
        table.add_row(f"[b u]{title}[/]", "", "")
        for binding in bindings:
            keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
            shown = ", ".join(display(k) for k in keys.split(","))
            table.add_row(shown, binding.description or binding.action, binding.id or "")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss(None)", "Close", id="help_close")]

    def __init__(self, sections: list[tuple[str, list[Binding]]]) -> None:
        super().__init__(classes="viewer")
        self.sections = sections

    def compose(self) -> ComposeResult:
        intro = (
            "orkas-tui shows what your agent is learning and lets you steer it.\n"
            "Everything here is also in the command palette (ctrl+p). Rebind a key in orkas.toml, e.g.\n"
            '  [keys]\n  reflect_now = "ctrl+r"\n'
        )
        with VerticalScroll(id="help-body"):
            yield Static(intro, markup=False)

            def display(key: str) -> str:
                return self.app.get_key_display(Binding(key.strip(), ""))

            yield Static(key_table(self.sections, self.app._keymap, display), id="help-keys")
