"""The Self tab: both notes side by side with a live count against the cap, and the
system-prompt block they make. Saving goes through :class:`SelfNotes`, which refuses
a note over its cap (the message says by how much) or one changed on disk since read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, Static, TextArea

from orkas_tui.core.picture import AgentView
from orkas_tui.core.store.notes import NOTES, TITLES, Note
from orkas_tui.tui.intents import SaveNote, ask_discard_note

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp


class NoteEditor(Vertical):
    """One note: title, live count against the cap, editor. Remembers the version it read."""

    app: OrkasApp  # the app it lives in, for the type checker

    def __init__(self, note: str, cap: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.note = note
        self.cap = cap
        self.loaded = Note(note, "", None)
        self.changed_on_disk = False
        self.saving: str | None = None  # the text asked to be saved, until it is seen on disk

    def compose(self) -> ComposeResult:
        yield Label(f"{self.note}.md · {TITLES[self.note]}", classes="note-title")
        yield Static("", classes="note-count", id=f"count-{self.note}")
        yield TextArea("", language="markdown", soft_wrap=True, id=f"note-{self.note}", classes="note-text")

    def on_mount(self) -> None:
        self.area.cursor_blink = self.app.blink

    @property
    def area(self) -> TextArea:
        return self.query_one(TextArea)

    @property
    def dirty(self) -> bool:
        return self.area.text != self.loaded.text

    def load(self, note: Note, keep_text: bool = False) -> None:
        """Edit ``note`` from now on; ``keep_text``: it is what was just saved, leave the text (and cursor) be."""
        self.loaded = note
        self.changed_on_disk = False
        self.saving = None
        if not keep_text:
            self.area.load_text(note.text)
        self.update_count()

    def discard(self) -> None:
        """Drop the edits: the next version read from disk is taken as it is."""
        self.area.load_text(self.loaded.text)
        self.loaded = Note(self.note, self.loaded.text, "")
        self.saving = None
        self.update_count()

    def update_count(self) -> None:
        length = len(self.area.text)
        over = length - self.cap
        text = f"{length:,} / {self.cap:,} characters"
        if over > 0:
            text += f" · {over:,} over the cap"
        if self.dirty:
            text += " · modified"
        if self.changed_on_disk:
            text += " · changed on disk"
        count = self.query_one(".note-count", Static)
        count.update(text)
        count.set_class(over > 0, "-over")


class SelfPane(Vertical):
    app: OrkasApp  # the app it lives in, for the type checker

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="self_save"),
        Binding("ctrl+r", "revert", "Reload", id="self_reload"),
        Binding("escape", "leave_editor", "Leave", id="self_leave"),
    ]

    def __init__(self, caps: dict[str, int], **kwargs) -> None:
        super().__init__(**kwargs)
        self.caps = caps
        self.agent: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="notes"):
            for note in NOTES:
                yield NoteEditor(note, self.caps[note], id=f"editor-{note}")
        yield Label("System-prompt block (what the runtime adds at the start of each conversation)", classes="note-title")
        with VerticalScroll(id="prompt-preview"):
            yield Static("", id="prompt-body", markup=False)

    def set_caps(self, caps: dict[str, int]) -> None:
        """New caps from reloaded settings: the counters follow at once."""
        self.caps = caps
        for note, cap in caps.items():
            editor = self.editor(note)
            editor.cap = cap
            editor.update_count()

    def editor(self, note: str) -> NoteEditor:
        return self.query_one(f"#editor-{note}", NoteEditor)

    def discard(self, note: str) -> None:
        self.editor(note).discard()

    def dirty_notes(self) -> list[str]:
        return [note for note in NOTES if self.editor(note).dirty]

    def show(self, view: AgentView) -> list[str]:
        """Apply a view; return the notes that changed on disk under unsaved edits."""
        fresh = self.agent != view.id
        self.agent = view.id
        clashes = []
        for note in NOTES:
            editor = self.editor(note)
            incoming = view.notes[note]
            if not fresh and incoming.version != editor.loaded.version and incoming.text == editor.saving:
                editor.load(incoming, keep_text=True)  # our own save, back from disk
            elif fresh or not editor.dirty:
                if fresh or incoming.version != editor.loaded.version:
                    editor.load(incoming)
            elif incoming.version != editor.loaded.version and not editor.changed_on_disk:
                editor.changed_on_disk = True
                editor.update_count()
                clashes.append(note)
        self.query_one("#prompt-body", Static).update(view.prompt or "(empty: no notes and no skills yet)")
        return clashes

    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        for note in NOTES:
            if event.text_area.id == f"note-{note}":
                self.editor(note).update_count()

    def focused_note(self) -> str:
        focused = self.app.focused
        for note in NOTES:
            if focused is self.editor(note).area:
                return note
        return NOTES[0]

    def action_save(self) -> None:
        if self.agent is None:
            return
        note = self.focused_note()
        editor = self.editor(note)
        editor.saving = editor.area.text
        self.post_message(SaveNote(self.agent, note, editor.saving, editor.loaded.version))

    def action_leave_editor(self) -> None:
        """Give the keys back to the app (tab numbers, actions) without losing the edits."""
        self.query_one("#prompt-preview").focus()

    def action_revert(self) -> None:
        """Drop the unsaved edits to the focused note and show it as it is on disk (asks first)."""
        note = self.focused_note()
        editor = self.editor(note)
        if self.agent is not None and (editor.dirty or editor.changed_on_disk):
            self.post_message(ask_discard_note(self.agent, note))
