"""Edit one skill inline: description and Markdown body. Saving and deleting are intents
(:mod:`~orkas_tui.tui.intents`) the app carries out through the core's
:mod:`~orkas_tui.core.store.user_edits` (checked, recorded in history, revertable) with the
version read at open, so an edit made on disk meanwhile is never overwritten silently;
delete asks first; closing with unsaved edits asks first. The editor learns the result
as any change on disk (:meth:`SkillEditor.disk_changed`), and knows its own save there.

A skill whose file does not parse opens as its whole text (front matter and body), so
the front matter can be fixed; it is saved only once it parses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static, TextArea

from orkas_tui.core.disk.confine import version_of
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.skills import BrokenSkill, Skill, SkillStore
from orkas_tui.tui.intents import DeleteSkill, SaveSkill
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.skill_history import SkillHistory

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp


class SkillEditor(Screen[None]):
    app: OrkasApp  # the app it lives in, for the type checker

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="skill_save"),
        Binding("f8", "delete", "Delete", id="skill_delete"),
        Binding("f2", "history", "History", id="skill_history"),
        Binding("escape", "close", "Close", id="skill_close"),
    ]

    def __init__(self, agent: str, store: SkillStore, opened: Skill | BrokenSkill, text: str, version: str | None) -> None:
        """``opened``: the skill, or its file that does not parse; then ``text`` is the whole file, edited as it is."""
        super().__init__()
        self.agent = agent
        self.store = store
        self.slug = opened.slug
        self.skill = opened if isinstance(opened, Skill) else None
        self.broken = opened.problem if isinstance(opened, BrokenSkill) else None
        self.text = text  # the body (or whole text) as read
        self.version = version  # of the file as read: a save is refused if it changed since
        self.changed_on_disk = False
        self.saving: tuple[str, str] | None = None  # (description, body) asked to be saved, until it is seen on disk

    def compose(self) -> ComposeResult:
        with Vertical(id="skill-editor"):
            title = f"{self.agent} / skills/{self.slug}.md · {self.skill.name if self.skill else ''}"
            if self.broken:
                title = f"{self.agent} / skills/{self.slug}.md · BROKEN: {self.broken}"
            yield Label(title, classes="editor-title", markup=False)
            yield Static("", id="skill-status")
            yield Label("Description", classes="-parsed")
            yield Input(self.skill.description if self.skill else "", id="skill-description", classes="-parsed")
            yield Label("Whole file: fix the front matter (name, description), then ctrl+s" if self.broken else "Body (Markdown)")
            yield TextArea(self.text, language="markdown", soft_wrap=True, id="skill-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#skill-description", Input).cursor_blink = self.app.blink
        for widget in self.query(".-parsed"):
            widget.display = not self.broken
        body = self.query_one("#skill-body", TextArea)
        body.cursor_blink = self.app.blink
        body.focus()
        self._update_status()

    @property
    def description(self) -> str:
        return self.query_one("#skill-description", Input).value

    @property
    def body(self) -> str:
        return self.query_one("#skill-body", TextArea).text

    @property
    def dirty(self) -> bool:
        return not self._holds(self.skill, (self.description, self.body))

    def _holds(self, skill: Skill | None, edit: tuple[str, str]) -> bool:
        """Whether saving ``edit`` would leave ``skill`` as it is (the store trims the description
        and the body's ends); while the file does not parse, whether the text is unchanged."""
        description, body = edit
        if self.broken or skill is None:
            return body == self.text
        return description.strip() == skill.description and body.strip() == skill.body.strip()

    def _update_status(self) -> None:
        parts = [f"{len(self.body):,} chars", "saved only once the front matter parses"]
        if self.skill is not None and not self.broken:
            parts = [f"patches {self.skill.patch_count}", f"updated {self.skill.updated_at}", f"{len(self.body):,} chars"]
        if self.dirty:
            parts.append("modified")
        if self.changed_on_disk:
            parts.append("CHANGED ON DISK: saving will ask")
        self.query_one("#skill-status", Static).update(" · ".join(parts))

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _edited(self) -> None:
        self._update_status()

    def disk_changed(self, on_disk: Skill | None) -> None:
        """The app read this skill's file again (``None``: gone or not parsed): take our own save,
        reload if clean, else announce and keep the edits."""
        if on_disk is not None and on_disk.version == self.version:
            return
        if on_disk is not None and self.saving is not None and self._is_saved(on_disk, self.saving):
            self.saving = None
            self._take(on_disk, keep_edits=not self.broken)
            return
        if self.changed_on_disk:
            return
        if not self.dirty and on_disk is not None:
            self._take(on_disk)
            self.notify(f"{self.slug}.md changed on disk; reloaded", title="Skill")
            return
        if on_disk is None and self.broken:  # still does not parse: whether it changed is not known here
            return
        self.changed_on_disk = True
        self._update_status()
        self.notify(
            f"{self.slug}.md changed on disk. Your edits are kept; saving will ask before overwriting.",
            title="Skill changed on disk",
            severity="warning",
            timeout=8,
        )

    def _is_saved(self, on_disk: Skill, saving: tuple[str, str]) -> bool:
        if self.broken:  # the whole text was written as it was
            return on_disk.version == version_of(saving[1].encode("utf-8"))
        return self._holds(on_disk, saving)

    def _take(self, skill: Skill, keep_edits: bool = False) -> None:
        """Edit ``skill`` from now on; ``keep_edits``: it is what was just saved, leave the text (and cursor) be."""
        self.skill, self.broken, self.text, self.version = skill, None, skill.body, skill.version
        self.changed_on_disk = False
        for widget in self.query(".-parsed"):
            widget.display = True
        if not keep_edits:
            self.query_one("#skill-description", Input).value = skill.description
            self.query_one("#skill-body", TextArea).load_text(skill.body)
        self._update_status()

    def discard(self) -> None:
        """Drop the edits: the next version read from disk is taken as it is."""
        self.changed_on_disk = False
        self.saving = None
        self.version = None
        if self.skill is not None:
            self.query_one("#skill-description", Input).value = self.skill.description
        self.query_one("#skill-body", TextArea).load_text(self.skill.body if self.skill else self.text)
        self._update_status()

    def action_save(self) -> None:
        self.saving = (self.description, self.body)
        self.post_message(
            SaveSkill(self.agent, self.slug, self.description, self.body, self.version, whole_file=bool(self.broken))
        )

    def action_history(self) -> None:
        self._open_history()

    @work(thread=True, group="skill-io")
    def _open_history(self) -> None:
        history = SkillHistory(self.agent, self.slug, list_changes(self.store.paths))
        self.app.call_from_thread(self.app.push_screen, history)

    def action_delete(self) -> None:
        def answer(choice: str | None) -> None:
            if choice == "delete":
                self.post_message(DeleteSkill(self.agent, self.slug, self.version))

        self.app.push_screen(
            Choose(
                f"Delete the skill {self.slug!r}? Its file is removed; the history keeps its text (F2 there reverts it).",
                [("cancel", "Cancel"), ("delete", "Delete")],
                danger="delete",
            ),
            answer,
        )

    def action_close(self) -> None:
        if not self.dirty:
            self.dismiss(None)
            return

        def answer(choice: str | None) -> None:
            if choice == "discard":
                self.dismiss(None)
            elif choice == "save":
                self.action_save()

        self.app.push_screen(
            Choose(
                "This skill has unsaved edits.",
                [("keep", "Keep editing"), ("save", "Save"), ("discard", "Discard")],
                danger="discard",
            ),
            answer,
        )
