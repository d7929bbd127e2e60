"""Edit one skill inline: description and Markdown body, saved through the core's
:mod:`~orkas_tui.core.store.user_edits` (checked, recorded in history, revertable) with the
version read at open, so an edit made on disk meanwhile is never overwritten silently;
delete asks first; closing with unsaved edits asks first.

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

from orkas_tui.core.read.files import ConflictError
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.skills import Skill, SkillError, SkillStore
from orkas_tui.core.store.user_edits import delete_skill, edit_skill, save_skill_text
from orkas_tui.tui.screens.confirm import Choose, changed_on_disk
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

    def __init__(self, agent: str, store: SkillStore, skill: Skill, broken: str | None = None) -> None:
        """``broken``: why the file does not parse; then ``skill.body`` is its whole text, edited as it is."""
        super().__init__()
        self.agent = agent
        self.store = store
        self.skill = skill
        self.broken = broken
        self.changed_on_disk = False

    def compose(self) -> ComposeResult:
        with Vertical(id="skill-editor"):
            title = f"{self.agent} / skills/{self.skill.slug}.md · {self.skill.name}"
            if self.broken:
                title = f"{self.agent} / skills/{self.skill.slug}.md · BROKEN: {self.broken}"
            yield Label(title, classes="editor-title", markup=False)
            yield Static("", id="skill-status")
            yield Label("Description", classes="-parsed")
            yield Input(self.skill.description, id="skill-description", classes="-parsed")
            yield Label("Whole file: fix the front matter (name, description), then ctrl+s" if self.broken else "Body (Markdown)")
            yield TextArea(self.skill.body, language="markdown", soft_wrap=True, id="skill-body")
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
        return self.description.strip() != self.skill.description or self.body != self.skill.body

    def _update_status(self) -> None:
        s = self.skill
        parts = [f"patches {s.patch_count}", f"updated {s.updated_at}", f"{len(self.body):,} chars"]
        if self.broken:
            parts = [f"{len(self.body):,} chars", "saved only once the front matter parses"]
        if self.dirty:
            parts.append("modified")
        if self.changed_on_disk:
            parts.append("CHANGED ON DISK: saving will ask")
        self.query_one("#skill-status", Static).update(" · ".join(parts))

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _edited(self) -> None:
        self._update_status()

    def disk_changed(self, version: str | None) -> None:
        """The app saw this skill's file change; reload if clean, else announce and keep the edits."""
        if version == self.skill.version or self.changed_on_disk:
            return
        if not self.dirty and version is not None:
            self._reload()
            self.notify(f"{self.skill.slug}.md changed on disk; reloaded", title="Skill")
            return
        self.changed_on_disk = True
        self._update_status()
        self.notify(
            f"{self.skill.slug}.md changed on disk. Your edits are kept; saving will ask before overwriting.",
            title="Skill changed on disk",
            severity="warning",
            timeout=8,
        )

    @work(thread=True, group="skill-io")
    def _reload(self) -> None:
        try:
            skill = self.store.get(self.skill.slug)
        except SkillError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        self.app.call_from_thread(self._apply, skill)

    def _apply(self, skill: Skill) -> None:
        self.skill = skill
        self.broken = None
        for widget in self.query(".-parsed"):
            widget.display = True
        self.changed_on_disk = False
        self.query_one("#skill-description", Input).value = skill.description
        self.query_one("#skill-body", TextArea).load_text(skill.body)
        self._update_status()

    def action_save(self) -> None:
        self._save(force=False)

    @work(thread=True, exclusive=True, group="skill-io")
    def _save(self, force: bool) -> None:
        app = self.app
        paths, settings, slug = self.store.paths, self.store.settings, self.skill.slug
        try:
            if self.broken:
                save_skill_text(paths, settings, slug, self.body, self.skill.version, app.now(), force=force)
                saved = self.store.get(slug)
            else:
                saved, _ = edit_skill(
                    paths, settings, slug, self.description, self.body, self.skill.version, app.now(), force=force
                )
        except ConflictError:
            app.call_from_thread(self._ask_conflict)
            return
        except (SkillError, OSError) as exc:
            app.call_from_thread(self.notify, str(exc), title="Not saved", severity="error", timeout=8)
            return
        app.call_from_thread(self._saved, saved)

    def _saved(self, skill: Skill) -> None:
        fixed = self.broken is not None
        self._apply(skill)
        self.notify(
            f"{skill.slug}.md {'fixed and saved' if fixed else 'saved'}; F2 shows it in the history (revertable)", title="Skill"
        )

    def _ask_conflict(self) -> None:
        def answer(choice: str | None) -> None:
            if choice == "overwrite":
                self._save(force=True)
            elif choice == "reload":
                self._reload()

        self.changed_on_disk = True
        self._update_status()
        self.app.push_screen(changed_on_disk(f"{self.skill.slug}.md", " (your edits are lost)"), answer)

    def action_history(self) -> None:
        self._open_history()

    @work(thread=True, group="skill-io")
    def _open_history(self) -> None:
        changes = [c for c in list_changes(self.store.paths) if c.kind == "skill" and c.target == self.skill.slug]
        self.app.call_from_thread(self.app.push_screen, SkillHistory(self.skill.slug, changes), self._after_history)

    def _after_history(self, reverted: bool | None) -> None:
        if reverted:
            self.app.reload_agent(self.agent, "skills", "private", "events")

    def action_delete(self) -> None:
        def answer(choice: str | None) -> None:
            if choice == "delete":
                self._delete()

        self.app.push_screen(
            Choose(
                f"Delete the skill {self.skill.slug!r}? Its file is removed; the history keeps its text (F2 there reverts it).",
                [("cancel", "Cancel"), ("delete", "Delete")],
                danger="delete",
            ),
            answer,
        )

    @work(thread=True, exclusive=True, group="skill-io")
    def _delete(self) -> None:
        app = self.app
        try:
            delete_skill(self.store.paths, self.store.settings, self.skill.slug, self.skill.version, app.now())
        except ConflictError:
            app.call_from_thread(
                self.notify, f"{self.skill.slug}.md changed on disk; not deleted. Reload it first.", severity="error", timeout=8
            )
            return
        except (SkillError, OSError) as exc:
            app.call_from_thread(self.notify, str(exc), severity="error")
            return
        app.call_from_thread(self._deleted)

    def _deleted(self) -> None:
        self.notify(f"{self.skill.slug} deleted", title="Skill")
        self.dismiss(None)

    def action_close(self) -> None:
        if not self.dirty:
            self.dismiss(None)
            return

        def answer(choice: str | None) -> None:
            if choice == "discard":
                self.dismiss(None)
            elif choice == "save":
                self._save(force=False)

        self.app.push_screen(
            Choose(
                "This skill has unsaved edits.",
                [("keep", "Keep editing"), ("save", "Save"), ("discard", "Discard")],
                danger="discard",
            ),
            answer,
        )
