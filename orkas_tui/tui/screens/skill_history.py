"""A skill's change history (from the core's history), each change as a diff, with revert.

Each change shows its effect (the skill's rates over the turns before and after it, and
the agent's corrections and real errors per turn, :func:`measure_effects`), measured
in a worker on the app's own scan once the screen is up, so a change that made things
worse is seen right beside its revert. Reverting is an intent the app runs
(:class:`~orkas_tui.tui.intents.RevertChange`: refused when the file changed since); the
app reads the agent's history again and hands it to :meth:`SkillHistory.show_changes`, as
it does for a revert made anywhere else."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from orkas_tui.core.reflect.effects import REVERTED, Effect, SkillEffect, measure_effects
from orkas_tui.core.store.history import Change
from orkas_tui.core.textfmt import rate
from orkas_tui.tui.intents import RevertChange
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp

COLUMNS = [("id", "Change"), ("at", "When"), ("action", "Action"), ("by", "By"), ("state", "State"), ("effect", "Effect")]
MEASURING = "measuring…"


def effect_cell(effect: SkillEffect | None, measuring: bool = False) -> Cell:
    """The short form for the table: the ineffective rate before → after, or why there is none yet."""
    if effect is None:
        return Cell(MEASURING if measuring else "-", sort="", style="dim")
    window = effect.window
    if effect.removed or effect.after is None or window.status == REVERTED:
        text = effect.status if effect.removed else f"{window.turns_after}/{window.size} turns"
        return Cell(text, sort="", style="dim")
    before, after = effect.before.ineffective_rate, effect.after.ineffective_rate
    worse = before is not None and after is not None and after > before
    better = before is not None and after is not None and after < before
    text = f"inef. {rate(before)} → {rate(after)}"
    return Cell(text, sort=text, style="red" if worse else "green" if better else "")


def change_diff(change: Change) -> Text:
    lines = difflib.unified_diff(
        (change.before or "").splitlines(), (change.after or "").splitlines(), "before", "after", lineterm=""
    )
    out = Text()
    for line in lines:
        out.append(line + "\n", style="green" if line.startswith("+") else "red" if line.startswith("-") else "")
    return out


class SkillHistory(ModalScreen[None]):
    """One skill's changes, from an agent's whole history (:meth:`show_changes` keeps them current)."""

    app: OrkasApp  # the app it lives in, for the type checker

    BINDINGS = [
        Binding("v", "revert", "Revert change", id="history_revert"),
        Binding("escape", "close", "Close", id="history_close"),
    ]

    def __init__(self, agent: str, slug: str, changes: list[Change]) -> None:
        super().__init__(classes="viewer")
        self.agent, self.slug = agent, slug
        self.changes = self._of_skill(changes)
        self.effects: dict[str, Effect] | None = None  # None while being measured

    def _of_skill(self, changes: list[Change]) -> dict[str, Change]:
        return {c.id: c for c in changes if c.kind == "skill" and c.target == self.slug}

    def show_changes(self, changes: list[Change]) -> None:
        """The agent's history as read again (after a revert here or anywhere else): this skill's part shown."""
        self.changes = self._of_skill(changes)
        if self.is_mounted:
            self._fill()

    def compose(self) -> ComposeResult:
        yield Static(
            f"History of skills/{self.slug}.md ({len(self.changes)} change(s)); v reverts the selected one",
            classes="viewer-title",
            markup=False,
        )
        yield KeyedTable(COLUMNS, sort=("id", True), id="history-table", drop=["by", "action", "at"])
        yield Static("", id="history-effect", markup=False)
        with VerticalScroll(id="history-diff"):
            yield Static("", id="history-diff-body")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self._fill)
        if self.changes:
            self._measure()

    @work(thread=True, group="history-effects")
    def _measure(self) -> None:
        """On the app's scan of the agent, under the lock its loads hold (no file is read again)."""
        app = self.app
        with app.data.lock:
            data = app.data.agents.get(self.agent)
            effects = measure_effects(data.scan, list(self.changes.values())) if data is not None else {}
        app.call_from_thread(self._measured, effects)

    def _measured(self, effects: dict[str, Effect]) -> None:
        self.effects = effects
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(KeyedTable)
        table.sync(
            {
                cid: [
                    Cell(cid, sort=c.ref.number),
                    Cell(c.at, sort=c.at),
                    Cell(c.action, sort=c.action),
                    Cell(c.by, sort=c.by),
                    Cell(
                        f"reverted {c.reverted_at}" if c.reverted_at else "applied",
                        sort=bool(c.reverted_at),
                        style="dim" if c.reverted_at else "green",
                    ),
                    effect_cell(self.effects[cid].skill if self.effects and cid in self.effects else None, self.effects is None),
                ]
                for cid, c in self.changes.items()
            }
        )
        table.focus()
        self._show()
        if not self.changes:
            self.query_one("#history-diff-body", Static).update(
                "No recorded changes: this skill was never changed by a reflection or an edit here."
            )

    @on(DataTable.RowHighlighted)
    def _show(self) -> None:
        key = self.query_one(KeyedTable).current_key()
        if key in self.changes:
            self.query_one("#history-effect", Static).update(self._effect_line(key))
            self.query_one("#history-diff-body", Static).update(change_diff(self.changes[key]))

    def _effect_line(self, key: str) -> str:
        """Two lines: the skill's rates, then the agent's, each before → after with its turns."""
        if self.effects is None:
            return f"Effect of {key}: {MEASURING}"
        effect = self.effects.get(key)
        if effect is None or effect.skill is None:
            return f"Effect of {key}: none (the agent's turns are not loaded)"
        window = effect.skill.window.size
        return (
            f"Effect of {key} over the {window} turns showing the skill before and after it: {effect.skill.phrase()}"
            + ("; v reverts it" if not self.changes[key].reverted_at else "")
            + f"\nAgent over {window} real turns before → after: {effect.agent.phrase()}"
        )

    def action_revert(self) -> None:
        key = self.query_one(KeyedTable).current_key()
        if key not in self.changes:
            return

        def answer(choice: str | None) -> None:
            if choice == "revert":
                self.post_message(RevertChange(key))

        self.app.push_screen(
            Choose(
                f"Revert change {key} ({self.changes[key].action})? The file gets its text from before it.",
                [("cancel", "Cancel"), ("revert", "Revert")],
                danger="revert",
            ),
            answer,
        )

    def action_close(self) -> None:
        self.dismiss()
