"""A scheduled cycle: plan the queue, reflect on the selected agents in order, record the cycle."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime

from orkas_tui.core.queue import QueuePlan, record_cycle, workspace_queue
from orkas_tui.core.reflect import Outcome, ProgressFn, reflect
from orkas_tui.core.workspace import Workspace


@dataclass(frozen=True)
class CycleReport:
    plan: QueuePlan
    outcomes: list[Outcome]

    def to_json(self) -> dict:
        return {**self.plan.to_json(), "outcomes": [o.to_json() for o in self.outcomes]}


def run_cycle(workspace: Workspace, now: datetime, on_progress: ProgressFn | None = None,
              cancel: threading.Event | None = None) -> CycleReport:
    """One cycle at ``now``; a cancel stops before the next agent (the cycle still counts)."""
    plan = workspace_queue(workspace, now)
    outcomes = []
    for decision in plan.selected:
        if cancel is not None and cancel.is_set():
            break
        outcomes.append(reflect(workspace, decision.id, now, on_progress, cancel))
    record_cycle(workspace, now)
    return CycleReport(plan, outcomes)
