"""The effective settings (where they come from, which model, whether its key is set) and
``orkas.toml`` in an inline editor: saved with the version read at open, then reloaded;
a file that does not load is kept as written, and the previous settings stay in effect.
Opening and saving the file are intents (:mod:`~orkas_tui.tui.intents`): the core reads and
writes it, never this screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Label, Static, TextArea

from orkas_tui.core.read.settings import AgentLink, Settings
from orkas_tui.core.store.export import memory_path
from orkas_tui.core.store.first_run import display_path
from orkas_tui.tui.intents import OpenSettings, SaveSettings
from orkas_tui.tui.screens.confirm import Choose

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp


def settings_table(app, settings: Settings, problem: str | None) -> Table:
    from orkas_tui.core.reflect.llm import model_summary  # start-up time: the first paint needs no model client

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    path = app.workspace.settings_path
    table.add_row("Workspace", display_path(app.workspace.root) + ("  (the demo: removed when you quit)" if app.demo else ""))
    table.add_row("Settings file", display_path(path) + ("" if path.exists() else "  (not created yet: every default applies)"))
    if problem:
        table.add_row(
            Text("Not applied", style="bold red"),
            Text(f"{problem}\nThe settings below are the previous ones, still in effect.", style="red"),
        )
    for label, value in model_summary(settings):
        table.add_row(label, Text(value, style="red" if "NOT set" in value or value.startswith("not set") else ""))
    table.add_row(
        "Auto-apply",
        "on: a valid reflection is applied at once" if settings.auto_apply else "off: every change waits in Proposals",
    )
    table.add_row("Trigger threshold", f"{settings.threshold:g}")
    table.add_row("Theme", settings.theme or "the default")
    table.add_row("Rebound keys", ", ".join(f"{k} = {v!r}" for k, v in sorted(settings.keys.items())) or "none")
    table.add_row("Exports", "\n".join(link_line(a, link) for a, link in sorted(settings.agents.items())) or "no agent linked")
    return table


def link_line(agent: str, link: AgentLink) -> str:
    """Where an applied change of ``agent`` goes at once ([agents.<id>] in orkas.toml)."""
    if link.export_skills is None:
        return f"{agent}: {link.format}, no export_skills: nothing exported on approve"
    memory = link.export_memory or memory_path(link.format, link.export_skills)
    return f"{agent}: {link.format} skills to {display_path(link.export_skills)}, notes to {display_path(memory)}"


class SettingsScreen(ModalScreen[None]):
    app: OrkasApp  # the app it lives in, for the type checker

    BINDINGS = [
        Binding("e", "edit", "Edit orkas.toml", id="settings_edit"),
        Binding("escape,q", "dismiss(None)", "Close", id="settings_close"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="viewer")

    def compose(self) -> ComposeResult:
        yield Static(
            "Settings: what is in effect now (e edits orkas.toml; it is reloaded on save, on F5 and when it changes)",
            classes="viewer-title",
            markup=False,
        )
        with VerticalScroll(id="settings-body"):
            yield Static("", id="settings-table")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_settings()

    def refresh_settings(self) -> None:
        self.query_one("#settings-table", Static).update(settings_table(self.app, self.app.settings, self.app.settings_problem))

    def action_edit(self) -> None:
        self.post_message(OpenSettings(self.app.workspace.settings_path))


class SettingsEditor(Screen[None]):
    app: OrkasApp  # the app it lives in, for the type checker

    BINDINGS = [
        Binding("ctrl+s", "save", "Save and reload", id="settings_save"),
        Binding("escape", "close", "Close", id="settings_editor_close"),
    ]

    def __init__(self, text: str, version: str | None) -> None:
        super().__init__()
        self.loaded = text
        self.version = version

    def compose(self) -> ComposeResult:
        with Vertical(id="settings-editor"):
            yield Label(
                f"{display_path(self.app.workspace.root / 'orkas.toml')} · ctrl+s saves and reloads · esc closes",
                classes="editor-title",
                markup=False,
            )
            yield Static("", id="settings-status")
            yield TextArea(self.loaded, language="toml", id="settings-text")
        yield Footer()

    def on_mount(self) -> None:
        area = self.query_one("#settings-text", TextArea)
        area.cursor_blink = self.app.blink
        area.focus()

    @property
    def text(self) -> str:
        return self.query_one("#settings-text", TextArea).text

    def action_save(self) -> None:
        self.post_message(SaveSettings(self.app.workspace.settings_path, self.text, self.version))

    def saved(self, text: str, version: str | None, problem: str | None) -> None:
        """``text`` is on disk now at ``version``; ``problem``: why it was not applied, if it was not."""
        self.loaded, self.version = text, version
        status = self.query_one("#settings-status", Static)
        if problem:
            status.update(
                Text(
                    f"Saved, not applied: {problem}. The previous settings stay in effect until this is fixed.", style="bold red"
                )
            )
            self.notify(problem, title="orkas.toml saved, not applied", severity="error", timeout=10)
        else:
            status.update(Text("Saved and applied.", style="green"))
            self.notify("orkas.toml saved and applied", title="Settings")

    def action_close(self) -> None:
        if self.text == self.loaded:
            self.dismiss(None)
            return

        def answer(choice: str | None) -> None:
            if choice == "discard":
                self.dismiss(None)

        self.app.push_screen(
            Choose("orkas.toml has unsaved edits.", [("keep", "Keep editing"), ("discard", "Discard")], danger="discard"),
            answer,
        )
