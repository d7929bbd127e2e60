"""A scheduled cycle: plan the queue, reflect on the selected agents in order, record the cycle.

One agent never stops the cycle: :func:`reflect` turns every model and answer problem
into an outcome, and anything else it raises is recorded for that agent as a failed
reflection (so the queue backs off) and the cycle goes on to the next agent.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.queue import QueuePlan, record_cycle, refreshed_scans, workspace_queue
from orkas_tui.core.reflect.reflection import Outcome, ProgressFn, record_failure, reflect


@dataclass(frozen=True)
class CycleReport:
    plan: QueuePlan
    outcomes: list[Outcome]

    def to_json(self) -> dict:
        return {**self.plan.to_json(), "outcomes": [o.to_json() for o in self.outcomes]}


def run_cycle(
    workspace: Workspace, now: datetime, on_progress: ProgressFn | None = None, cancel: threading.Event | None = None
) -> CycleReport:
    """One cycle at ``now``; a cancel stops before the next agent (the cycle still counts)."""
    scans = {scan.id: scan for scan in refreshed_scans(workspace)}
    plan = workspace_queue(workspace, now, scans.values())
    outcomes = []
    for decision in plan.selected:
        if cancel is not None and cancel.is_set():
            break
        try:
            scan = scans[decision.id]
            scan.refresh()  # what was written while earlier agents waited on the model
            outcomes.append(reflect(workspace, decision.id, now, on_progress, cancel, scan))
        except Exception as exc:  # one agent's unexpected error must not stop the daemon
            outcome = Outcome(decision.id, "failed", f"reflection stopped by an unexpected error: {type(exc).__name__}: {exc}")
            outcomes.append(record_failure(workspace.agent(decision.id), now, outcome, transient=False))
    record_cycle(workspace, now)
    return CycleReport(plan, outcomes)
