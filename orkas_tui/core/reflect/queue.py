"""The reflection schedule: which agents a cycle reflects on, and why the others wait.

:func:`plan_for` is the one planner: a pure function of each agent's standing (its
last reflection and its activity since), the moment ``now`` and the time of the last cycle. It
reads each agent's back-off state but writes nothing, so the CLI, the daemon and the
TUI all show the same decision. Every agent left out gets exactly one reason, the first that applies in
the spec's order: ``no changes``, ``cooling down (until ...)``, ``no trigger``,
``over the per-cycle cap``; a back-off after failures comes before ``no trigger``, and
``over today's budget`` (``[model] daily_budget_usd`` spent, ``spend.py``) before the cap:
every agent that would be selected waits with it.

The plan promises a next cycle (``next_cycle_at``) only when something will run it
(``keepers.py``: the daemon, or hooks) and a model is configured for it to reflect with;
otherwise it is ``None`` and the plan says why and what to do (``why_no_cycle``). The schedule's own clock stays in ``cycle_due_at``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import read_json_object
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts, later, parse_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace, read_state
from orkas_tui.core.reflect.keepers import Keepers, keepers
from orkas_tui.core.reflect.model_setup import not_configured
from orkas_tui.core.reflect.spend import Spending, spending
from orkas_tui.core.summary.report import Activity, last_reflection
from orkas_tui.core.summary.scan import AgentScan, refreshed

NO_CHANGES = "no changes"
NO_TRIGGER = "no trigger"
OVER_CAP = "over the per-cycle cap"
# an agent's paths, the time of its last reflection and its activity since then
Standing = tuple[AgentPaths, datetime | None, Activity]


COOLING = "cooling down"  # how a reason opens: what the sidebar's badge tells apart
BACKING_OFF = "backing off"


def cooling_reason(until: datetime) -> str:
    return f"{COOLING} (until {format_ts(until)})"


@dataclass(frozen=True)
class Backoff:
    """Failed reflections in a row since the last one that worked, and when the queue may try again."""

    failures: int
    until: datetime
    last_failure: str

    def reason(self) -> str:
        why = self.last_failure if len(self.last_failure) <= 160 else self.last_failure[:157] + "..."
        return f"{BACKING_OFF} after {self.failures} failed reflection(s) (until {format_ts(self.until)}): {why}"


def failure_backoff(paths: AgentPaths, settings: Settings) -> Backoff | None:
    """After n failed reflections in a row (bad answers, refused calls: not transient ones, which
    the model call already retried) the queue waits ``cooldown × 2^(n-1)`` from the last one, at
    most ``force_after``; a reflection that works ends the back-off."""
    backoff = read_state(paths).get("backoff")
    if not isinstance(backoff, dict):
        return None
    failures, since = backoff.get("failures"), parse_ts(backoff.get("since"))
    if type(failures) is not int or failures < 1 or since is None:
        return None
    schedule = settings.schedule
    wait = min(schedule.cooldown * 2 ** min(failures - 1, 20), schedule.force_after)
    return Backoff(failures, later(since, wait), str(backoff.get("reason") or "no reason recorded"))


@dataclass(frozen=True)
class QueueDecision:
    """One agent's place in the next cycle. ``reason`` is ``None`` when selected."""

    id: str
    selected: bool
    forced: bool
    reason: str | None
    trigger_score: float
    pending_changes: bool
    cooldown_until: datetime | None
    last_reflection_at: datetime | None
    rank: int | None = None

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "selected": self.selected,
            "forced": self.forced,
            "reason": self.reason,
            "trigger_score": self.trigger_score,
            "pending_changes": self.pending_changes,
            "cooldown_until": _ts(self.cooldown_until),
            "last_reflection_at": _ts(self.last_reflection_at),
            "rank": self.rank,
        }


@dataclass(frozen=True)
class QueuePlan:
    """Every agent's decision (selected ones first, in cycle order) and the cycle clock."""

    now: datetime
    last_cycle_at: datetime | None
    cycle_due_at: datetime  # what the schedule's clock says, whether or not anything will run it
    decisions: list[QueueDecision]
    not_configured: str | None = None  # what to set before any reflection can run (no model, or its key)
    keepers: Keepers | None = None  # what will run the next cycle; None: not looked at (a bare plan)
    spent: Spending | None = None  # today's and this month's reflections, and the daily budget

    @property
    def next_cycle_at(self) -> datetime | None:
        """When the next cycle runs: ``None`` when nothing will run it (no daemon, no hooks) or it would
        reflect on nothing (no model configured: the hooks then only import)."""
        if self.not_configured is not None or (self.keepers is not None and not self.keepers.any):
            return None
        return self.cycle_due_at

    @property
    def why_no_cycle(self) -> str:
        """Why :attr:`next_cycle_at` is ``None``, and what to do ("" when a cycle is promised)."""
        if self.next_cycle_at is not None:
            return ""
        reasons = []
        if self.keepers is not None and not self.keepers.any:
            reasons.append(self.keepers.text())
        if self.not_configured is not None:
            reasons.append(f"reflection is not configured: {self.not_configured}")
        return "; and ".join(reasons)

    @property
    def selected(self) -> list[QueueDecision]:
        return [d for d in self.decisions if d.selected]

    def decision(self, agent_id: str) -> QueueDecision | None:
        return next((d for d in self.decisions if d.id == agent_id), None)

    def to_json(self) -> dict:
        return {
            "now": format_ts(self.now),
            "last_cycle_at": _ts(self.last_cycle_at),
            "next_cycle_at": _ts(self.next_cycle_at),
            "cycle_due_at": format_ts(self.cycle_due_at),
            "run_by": self.keepers.to_json() if self.keepers is not None else None,
            "not_configured": self.not_configured,
            "spending": self.spent.to_json() if self.spent is not None else None,
            "agents": [d.to_json() for d in self.decisions],
        }


def _ts(moment: datetime | None) -> str | None:
    return format_ts(moment) if moment else None


@dataclass(frozen=True)
class Candidate:
    """One agent's standing for the next cycle, as :func:`plan_for` weighs it."""

    id: str
    last: datetime | None
    pending: bool
    trigger_score: float
    triggered: bool
    forced: bool
    cooldown_until: datetime | None
    backoff: Backoff | None = None


def _candidate(
    agent_id: str, last: datetime | None, activity: Activity, now: datetime, settings: Settings, backoff: Backoff | None
) -> Candidate:
    schedule = settings.schedule
    if last is None:
        first = parse_ts(activity.first_turn)
        forced = first is not None and now - first >= schedule.force_after
    else:
        forced = now - last >= schedule.force_after
    cooldown_until = later(last, schedule.cooldown) if last is not None else None
    return Candidate(
        agent_id, last, activity.pending, activity.trigger_score, activity.triggered, forced, cooldown_until, backoff
    )


def next_cycle_at(last_cycle_at: datetime | None, now: datetime, interval: timedelta) -> datetime:
    """The last cycle plus the interval; ``now`` when no cycle ran yet or one is overdue."""
    if last_cycle_at is None:
        return now
    return max(now, later(last_cycle_at, interval))


def standing(scan: AgentScan) -> Standing:
    """A refreshed scan's paths, last reflection and activity since it: what :func:`plan_for` takes."""
    last = last_reflection(scan.paths)
    return scan.paths, last, scan.activity()


def plan_queue(
    scans: Iterable[AgentScan],
    now: datetime,
    settings: Settings,
    last_cycle_at: datetime | None = None,
    spent: Spending | None = None,
    run_by: Keepers | None = None,
) -> QueuePlan:
    """Decide the next cycle for one workspace's refreshed scans under its ``settings``."""
    return plan_for([standing(scan) for scan in scans], now, settings, last_cycle_at, spent, run_by)


def plan_for(
    agents: Iterable[Standing],
    now: datetime,
    settings: Settings,
    last_cycle_at: datetime | None = None,
    spent: Spending | None = None,
    run_by: Keepers | None = None,
) -> QueuePlan:
    """The next cycle from each agent's standing: the one plan the CLI's ``status`` and ``queue``,
    the daemon and the app all show (each reads the activity its own way, then calls this).
    ``spent`` holds the agents that are due to the daily budget; ``run_by`` says whether a next
    cycle will come at all (see :class:`QueuePlan`)."""
    schedule = settings.schedule
    candidates = sorted(
        (_candidate(p.id, last, activity, now, settings, failure_backoff(p, settings)) for p, last, activity in agents),
        key=lambda f: f.id,
    )
    eligible: list[Candidate] = []
    reasons: dict[str, str] = {}
    for f in candidates:
        if not f.pending:
            reasons[f.id] = NO_CHANGES
        elif f.cooldown_until is not None and now < f.cooldown_until:
            reasons[f.id] = cooling_reason(f.cooldown_until)
        elif f.backoff is not None and now < f.backoff.until:
            reasons[f.id] = f.backoff.reason()
        elif not (f.triggered or f.forced):
            reasons[f.id] = NO_TRIGGER
        else:
            eligible.append(f)
    never = datetime.min.replace(tzinfo=now.tzinfo)
    eligible.sort(key=lambda f: (not f.forced, -f.trigger_score, f.last or never, f.id))
    over = spent.over_reason() if spent is not None else None
    if over is not None:  # every agent that is due waits for tomorrow's budget
        reasons.update((f.id, over) for f in eligible)
        eligible = []
    chosen = eligible[: schedule.max_agents_per_cycle]
    for f in eligible[schedule.max_agents_per_cycle :]:
        reasons[f.id] = OVER_CAP
    ranks = {f.id: i + 1 for i, f in enumerate(chosen)}
    decisions = [
        QueueDecision(
            id=f.id,
            selected=f.id in ranks,
            forced=f.forced,
            reason=reasons.get(f.id),
            trigger_score=f.trigger_score,
            pending_changes=f.pending,
            cooldown_until=f.cooldown_until,
            last_reflection_at=f.last,
            rank=ranks.get(f.id),
        )
        for f in candidates
    ]
    decisions.sort(key=lambda d: (d.rank is None, d.rank or 0, d.id))
    return QueuePlan(
        now,
        last_cycle_at,
        next_cycle_at(last_cycle_at, now, schedule.cycle_interval),
        decisions,
        not_configured(settings),
        run_by,
        spent,
    )


def workspace_state_path(workspace: Workspace) -> Path:
    return workspace.private / "state.json"


def read_workspace_state(workspace: Workspace) -> dict:
    """The workspace's own state (``<root>/.orkas/state.json``); missing or corrupt reads as empty."""
    return read_json_object(workspace_state_path(workspace))


def last_cycle_at(workspace: Workspace) -> datetime | None:
    return parse_ts(read_workspace_state(workspace).get("last_cycle_at"))


def record_cycle(workspace: Workspace, now: datetime) -> None:
    state = read_workspace_state(workspace)
    state["last_cycle_at"] = format_ts(now)
    atomic_write(workspace_state_path(workspace), orjson.dumps(state, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")


def refreshed_scans(workspace: Workspace) -> list[AgentScan]:
    """One freshly read scan per agent (the CLI's path; the TUI keeps its own scans)."""
    return refreshed([(workspace.agent(agent_id), None, None) for agent_id in workspace.agent_ids()], workspace.settings)


def workspace_queue(workspace: Workspace, now: datetime, scans: Iterable[AgentScan] | None = None) -> QueuePlan:
    """:func:`plan_queue` with the workspace's last cycle, today's spend and what runs the schedule;
    reads the agents when no scans are given."""
    chosen = refreshed_scans(workspace) if scans is None else scans
    return plan_queue(chosen, now, workspace.settings, last_cycle_at(workspace), spending(workspace, now), keepers(workspace))
