"""Every sidebar badge fits its column at 120x40 (issue 33: cut badges read as a broken app)."""

from __future__ import annotations

import time
from datetime import timedelta

from rich.cells import cell_len

from orkas_tui.core.reflect.queue import NO_CHANGES, NO_TRIGGER, OVER_CAP, Backoff, QueueDecision, cooling_reason
from orkas_tui.tui.reflections import RUNNING, Activity
from orkas_tui.tui.widgets.queue import BADGE_WIDTH, badge
from tests.conftest import NOW


def decision(reason: str | None, **kw) -> QueueDecision:
    fields = {"selected": reason is None, "forced": False, "trigger_score": 1.0, "pending_changes": True}
    fields |= {"cooldown_until": None, "last_reflection_at": None, "rank": 1 if reason is None else None}
    return QueueDecision("coder", reason=reason, **(fields | kw))


def test_every_queue_badge_fits_the_status_column() -> None:
    backoff = Backoff(3, NOW + timedelta(hours=2), "model call failed after 3 attempt(s): HTTP 503").reason()
    decisions = [
        decision(None),
        decision(None, forced=True),
        decision(NO_CHANGES),
        decision(NO_TRIGGER),
        decision(OVER_CAP),
        decision(cooling_reason(NOW + timedelta(hours=3)), cooldown_until=NOW + timedelta(hours=3)),
        decision(cooling_reason(NOW + timedelta(days=2)), cooldown_until=NOW + timedelta(days=2)),
        decision(backoff),
    ]
    shown = {d.reason: badge(d, NOW).plain for d in decisions}
    assert all(0 < cell_len(text) <= BADGE_WIDTH for text in shown.values()), shown
    assert shown[backoff] == "backoff"


def test_the_running_reflections_badge_fits_at_every_stage_and_any_wait() -> None:
    for stage in RUNNING:
        for waited in (0, 9, 99, 100, 3_599):
            text = Activity("coder", stage, time.monotonic() - waited).badge().plain
            assert cell_len(text) <= BADGE_WIDTH, (stage, waited, text)
