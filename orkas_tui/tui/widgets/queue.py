"""The Queue tab: the next cycle's countdown and schedule, every agent's decision with its
one reason, and the stages of a reflection in progress."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_age, format_duration
from orkas_tui.core.reflect.queue import BACKING_OFF, COOLING, OVER_CAP, QueueDecision, QueuePlan
from orkas_tui.core.reflect.spend import OVER_BUDGET
from orkas_tui.tui.cells import age, clock_time
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

COLUMNS = [
    ("agent", "Agent"),
    ("decision", "Next cycle"),
    ("pending", "Pending"),
    ("score", "Trigger"),
    ("forced", "Forced"),
    ("cooldown", "Cooldown until"),
    ("reflected", "Reflected"),
]


BADGE_WIDTH = 10  # the sidebar's Status column: "no changes", "cool 10:36"
SHORT_REASONS = {OVER_CAP: "over cap"}


def badge(decision: QueueDecision | None, now: datetime) -> Text:
    """The sidebar's one-word status for an agent, at most :data:`BADGE_WIDTH` cells
    (the Queue tab says the same in full)."""
    if decision is None:
        return Text("")
    if decision.selected:
        return Text(
            "forced" if decision.forced else f"due #{decision.rank}", style="bold red" if decision.forced else "bold yellow"
        )
    if decision.reason and decision.reason.startswith(COOLING) and decision.cooldown_until:
        until = decision.cooldown_until
        when = until.strftime("%H:%M") if until.date() == now.date() else format_age(now, until)  # 10:36, or 1d4h
        return Text(f"cool {when}", style="cyan")
    if decision.reason and decision.reason.startswith(BACKING_OFF):  # after failures: the Queue tab says why, till when
        return Text("backoff", style="red")
    if decision.reason and decision.reason.startswith(OVER_BUDGET):  # due, but today's budget is spent
        return Text("budget", style="red")
    return Text(SHORT_REASONS.get(decision.reason or "", decision.reason or ""), style="dim")


def decision_cells(d: QueueDecision, now: datetime) -> list[Cell]:
    verdict = f"selected #{d.rank}" if d.selected else (d.reason or "")
    return [
        Cell(d.id, sort=d.id, style="bold"),
        Cell(verdict, sort=(not d.selected, d.rank or 0, verdict), style="bold yellow" if d.selected else "dim"),
        Cell("yes" if d.pending_changes else "no", sort=d.pending_changes, style="" if d.pending_changes else "dim"),
        Cell(f"{d.trigger_score:.2f}", sort=d.trigger_score, justify="right"),
        Cell("forced" if d.forced else "", sort=d.forced, style="bold red"),
        Cell(
            clock_time(d.cooldown_until.isoformat(), now) if d.cooldown_until else "—",
            sort=d.cooldown_until.isoformat() if d.cooldown_until else "",
        ),
        Cell(age(d.last_reflection_at, now), sort=d.last_reflection_at.isoformat() if d.last_reflection_at else ""),
    ]


def schedule_text(plan: QueuePlan, settings: Settings, now: datetime) -> Text:
    s = settings.schedule
    wait = plan.cycle_due_at - now
    due = "now (due)" if wait.total_seconds() <= 0 else f"in {format_duration(wait)}"
    text = Text()
    if plan.next_cycle_at is None:  # nothing will run it: say what to install, promise no time
        text.append("No next cycle: ", style="bold red")
        text.append(plan.why_no_cycle, style="red")
        text.append(f"\nBy the schedule a cycle is due {due.removesuffix(' (due)')}", style="dim")
    else:
        text.append("Next cycle ", style="bold")
        text.append(due, style="bold yellow")
        if plan.keepers is not None:
            text.append(f", run by {plan.keepers.text()}", style="dim")
    text.append(f"  ·  last cycle {age(plan.last_cycle_at, now)} ago" if plan.last_cycle_at else "  ·  no cycle has run yet")
    if plan.spent is not None:
        text.append("\nReflections cost ", style="bold")
        text.append(plan.spent.text())
        if over := plan.spent.over_reason():
            text.append(f"\n{over[0].upper()}{over[1:]}: the agents that are due wait for tomorrow", style="bold red")
    text.append(
        f"\nEvery {format_duration(s.cycle_interval)} · cooldown {format_duration(s.cooldown)} · "
        f"forced after {format_duration(s.force_after)} · at most {s.max_agents_per_cycle} agents a cycle · "
        f"threshold {settings.threshold:.2f}",
        style="dim",
    )
    text.append(
        "\nPending-change filter: an agent is considered only when it has a turn no reflection has read yet "
        "(read marks), however old.",
        style="dim",
    )
    if plan.not_configured:
        text.append(f"\nReflection is not configured: {plan.not_configured}", style="bold red")
    return text


class QueuePane(Vertical):
    def compose(self) -> ComposeResult:
        yield Static("", id="queue-schedule")
        yield KeyedTable(
            COLUMNS,
            sort=("decision", False),
            id="queue-table",
            flex="decision",
            drop=["reflected", "forced", "pending", "cooldown", "score"],
        )
        yield Static("Reflection", classes="note-title")
        with VerticalScroll(id="reflection-log"):
            yield Static(
                "No reflection running. r: reflect the selected agent now · c: run a cycle now · "
                "b: show the bundle that would be sent.",
                id="reflection-body",
            )

    def show(self, plan: QueuePlan, settings: Settings, now: datetime) -> None:
        self.query_one("#queue-schedule", Static).update(schedule_text(plan, settings, now))
        self.query_one(KeyedTable).sync({d.id: decision_cells(d, now) for d in plan.decisions})

    def show_progress(self, lines: list[Text]) -> None:
        body = Text()
        for line in lines:
            body.append_text(line)
            body.append("\n")
        self.query_one("#reflection-body", Static).update(body)
