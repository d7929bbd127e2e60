"""The Skills tab: every skill with its rates, sortable, filterable, suspects marked.

Every column fits at 120x40 next to the sidebar: the name is the column that shrinks
(ending in "…"), and the highlighted skill's full name, description and flags are
spelled out under the table.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Static

from orkas_tui.core.picture import AgentView
from orkas_tui.core.reflect.verdict import TOO_NEW
from orkas_tui.core.store.first_run import display_path
from orkas_tui.core.store.scopes import GLOBAL
from orkas_tui.core.summary.report import SkillRow
from orkas_tui.tui.cells import age, rate_text
from orkas_tui.tui.intents import OpenSkill, ResolveHandEdit, ask_scope
from orkas_tui.tui.skill_flags import SHORT, skill_flags, warns
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

COLUMNS = [
    ("name", "Skill"),
    ("flag", "Flag"),
    ("scope", "Scope"),
    ("impressions", "Impr"),
    ("invocations", "Inv"),
    ("invocation_rate", "Inv%"),
    ("edit_rate", "Edit%"),
    ("ineffective_rate", "Ineff%"),
    ("patches", "Patch"),
    ("last_used", "Used"),
    ("created", "Age"),
]
NAME_MIN = 16  # the name shrinks to this before columns drop (at 100 and 80 columns)
SORTABLE = [key for key, _ in COLUMNS]


def skill_cells(row: SkillRow, now: datetime, view: AgentView) -> list[Cell]:
    s, m = row.skill, row.metrics
    reasons = skill_flags(s.slug, view.verdicts.get(s.slug), view.hand_edited, view.unlisted)
    style = "yellow" if warns(reasons) else "dim"
    scope = view.scopes.get(s.slug)
    where = scope.label if scope is not None else GLOBAL

    def rate_cell(value: float | None) -> Cell:
        return Cell.of(rate_text(value), sort=value if value is not None else -1.0)

    return [
        Cell(s.slug, sort=s.slug, style="yellow" if warns(reasons) else ""),
        Cell(("⚑ " if warns(reasons) else "") + ", ".join(SHORT.get(r, r) for r in reasons), sort=len(reasons), style=style),
        Cell(where, sort=where, style="dim" if where == GLOBAL else "cyan"),
        Cell(str(m.impressions), sort=m.impressions, justify="right"),
        Cell(str(m.invocations), sort=m.invocations, justify="right"),
        rate_cell(m.invocation_rate),
        rate_cell(m.edit_rate),
        rate_cell(m.ineffective_rate),
        Cell(str(s.patch_count), sort=s.patch_count, justify="right"),
        Cell(age(s.last_used_at, now), sort=s.last_used_at or ""),
        Cell(age(s.created_at, now), sort=s.created_at),
    ]


def skill_detail(row: SkillRow, view: AgentView) -> Text:
    """The line under the table: what a narrow Skill or Flag cell leaves out, the turns the verdict was
    made on (the columns count every turn, as the spec's metrics do), the skill's scope, and the way out of a hand edit."""
    s, hand_edited, unlisted = row.skill, view.hand_edited, view.unlisted
    judged = view.verdicts.get(s.slug)
    scope = view.scopes.get(s.slug)
    text = Text()
    text.append(s.slug, style="bold")
    if s.name and s.name != s.slug:
        text.append(f" ({s.name})")
    if scope is not None and scope.root is not None:  # first: a third line would be cut
        text.append(f" · only in {display_path(scope.root)} ({scope.why}; g changes it)", style="cyan")
    if s.description:
        text.append(f" · {s.description}", style="dim")
    if judged is not None:
        m = judged.counts
        rates = f"invocation {rate_text(m.invocation_rate)}, edit {rate_text(m.edit_rate)}, ineffective {rate_text(m.ineffective_rate)}"
        if judged.flags == (TOO_NEW,):
            text.append(f" · too new to judge: {judged.over}", style="dim")
        elif judged.flags:
            text.append(f" · looks useless over {judged.over}: {', '.join(judged.flags)} ({rates})", style="yellow")
        else:
            text.append(f" · over {judged.over}: {rates}", style="dim")
    if s.slug in hand_edited:
        text.append(
            f"\n⚑ {display_path(Path(hand_edited[s.slug]))} was edited by hand since the last export, so exports leave it: e shows the diff, to adopt it or overwrite it; or {view.export_fix}",
            style="yellow",
        )
    if s.slug in unlisted:
        text.append(f"\n⚑ not exported: {unlisted[s.slug]}", style="yellow")
    return text


def broken_cells(slug: str) -> list[Cell]:
    """A skill whose file does not parse: listed all the same, so it can be opened (o) and fixed."""
    return [
        Cell(slug, sort=slug, style="bold red"),
        Cell("⚠ broken", sort=99, style="red"),
        Cell("", sort=""),
        *[Cell("", sort=-1) for _ in range(6)],
        Cell("", sort=""),
        Cell("", sort=""),
    ]


class SkillFilter(Input):
    """The Skills filter: ``enter`` keeps it and goes back to the table, ``esc`` clears it and goes back."""

    BINDINGS = [Binding("escape", "leave", "Leave the filter", id="skills_filter_leave")]

    def action_leave(self) -> None:
        self.value = ""
        self.query_ancestor(SkillsPane).table.focus()


class SkillsPane(Vertical):
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="skills_filter"),
        Binding("s", "cycle_sort", "Sort", id="skills_sort"),
        Binding("o", "open", "Open", id="skills_open"),
        Binding("g", "scope", "Scope", id="skills_scope"),
        Binding("e", "hand_edit", "Edited there", id="skills_hand_edit"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: AgentView | None = None
        self.now: datetime | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="skills-bar"):
            yield SkillFilter(placeholder="filter skills (name, description)…  /  (esc clears)", id="skills-filter")
            yield Static("", id="skills-summary")
        yield KeyedTable(
            COLUMNS,
            sort=("name", False),
            id="skills-table",
            flex="name",
            flex_min=NAME_MIN,
            drop=[
                "created",
                "patches",
                "impressions",
                "invocations",
                "edit_rate",
                "last_used",
                "ineffective_rate",
                "invocation_rate",
                "scope",
                "flag",
            ],
        )
        yield Static("", id="skill-detail")
        yield Static("", id="skills-problems")

    @property
    def table(self) -> KeyedTable:
        return self.query_one("#skills-table", KeyedTable)

    def show(self, view: AgentView, now: datetime) -> None:
        fresh = self.view is None or self.view.id != view.id
        self.view, self.now = view, now
        if fresh:
            self.table.clear()
        self._sync()
        problems = self.query_one("#skills-problems", Static)
        problems.update("\n".join(f"⚠ {b.problem}" for b in view.broken_skills.values()))
        problems.display = bool(view.broken_skills)

    def tick(self, now: datetime) -> None:
        """Redraw at ``now``: the ages (created, last used) move on between loads."""
        if self.view is not None:
            self.now = now
            self._sync()

    def _sync(self) -> None:
        if self.view is None or self.now is None:
            return
        needle = self.query_one("#skills-filter", Input).value.strip().lower()
        rows = {
            row.skill.slug: skill_cells(row, self.now, self.view)
            for row in self.view.skills
            if not needle or needle in f"{row.skill.slug} {row.skill.name} {row.skill.description}".lower()
        }
        rows.update({slug: broken_cells(slug) for slug in self.view.broken_skills if not needle or needle in slug})
        self.table.sync(rows)
        # "global" on every row tells nothing: the column shows once a lesson came from a repository
        self.table.conceal(() if any(s.root or s.learned for s in self.view.scopes.values()) else ("scope",))
        self._show_detail()
        flagged = sum(
            warns(skill_flags(row.skill.slug, self.view.verdicts.get(row.skill.slug), self.view.hand_edited, self.view.unlisted))
            for row in self.view.skills
        )
        column, reverse = self.table.sort_spec
        total = len(self.view.skills) + len(self.view.broken_skills)
        broken = f" · {len(self.view.broken_skills)} broken" if self.view.broken_skills else ""
        self.query_one("#skills-summary", Static).update(
            f"{len(rows)}/{total} skills · {flagged} flagged{broken} · sort: {column} {'↓' if reverse else '↑'}"
        )

    @on(Input.Changed, "#skills-filter")
    def _filter_changed(self) -> None:
        self._sync()

    @on(Input.Submitted, "#skills-filter")
    def _filter_done(self) -> None:
        self.table.focus()

    @on(DataTable.HeaderSelected, "#skills-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        if (column := event.column_key.value) is not None:  # every column here has a key
            self.table.sort_by(column)
        self._sync()

    @on(DataTable.RowHighlighted, "#skills-table")
    def _highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        key = self.table.current_key()
        detail = self.query_one("#skill-detail", Static)
        row = next((r for r in self.view.skills if r.skill.slug == key), None) if self.view and key else None
        marked = row is not None and self.view is not None and row.skill.slug in {**self.view.hand_edited, **self.view.unlisted}
        detail.set_class(marked, "hand-edited")
        if row is not None and self.view is not None:
            detail.update(skill_detail(row, self.view))
        elif self.view and key in self.view.broken_skills:
            problem = self.view.broken_skills[key].problem
            detail.update(Text.assemble((key, "bold red"), f" cannot be used: {problem} · o opens it to fix", style="red"))
        else:
            detail.update("")

    @on(DataTable.RowSelected, "#skills-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_filter(self) -> None:
        self.query_one("#skills-filter", Input).focus()

    def action_cycle_sort(self) -> None:
        column, _ = self.table.sort_spec
        self.table.sort_by(SORTABLE[(SORTABLE.index(column) + 1) % len(SORTABLE)])
        self._sync()

    def action_scope(self) -> None:
        key = self.table.current_key()
        if key and self.view is not None and key in self.view.scopes:
            self.post_message(ask_scope(self.view.id, key, self.view.scopes[key]))

    def action_hand_edit(self) -> None:
        """On a skill whose exported copy was edited by hand: its diff, then adopt or overwrite."""
        key = self.table.current_key()
        if key and self.view is not None and key in self.view.hand_edited:
            self.post_message(ResolveHandEdit(self.view.id, key))
        elif key:
            self.app.notify(f"{key}: its exported copy is not edited by hand", timeout=4)

    def action_open(self) -> None:
        key = self.table.current_key()
        if key and self.view is not None:
            self.post_message(OpenSkill(self.view.id, key))
