"""A skill's measured benefit: what its latest measured change did to the agent (one figure, one place).

Corrections plus real errors per turn over the ``effect_window`` real turns before the change,
less the same over the turns after (:mod:`orkas_tui.core.reflect.effects`): above zero the
change helped. ``None`` while the "after" is not full (too new to judge, or reverted early).
"""

from __future__ import annotations

import contextlib

from orkas_tui.core.reflect.effects import MEASURED, Effect, measure_effects
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.standing import Standing, save
from orkas_tui.core.summary.scan import AgentScan


def benefit(effect: Effect) -> float | None:
    agent = effect.agent
    if agent.window.status != MEASURED or agent.after is None:
        return None
    before = (agent.before.corrections_per_turn or 0.0) + (agent.before.errors_per_turn or 0.0)
    after = (agent.after.corrections_per_turn or 0.0) + (agent.after.errors_per_turn or 0.0)
    return round(before - after, 4)


def standings(scan: AgentScan) -> dict[str, Standing]:
    """Every skill the agent's history or turns name, with its benefit and invocation rate."""
    changes = [c for c in list_changes(scan.paths) if c.kind == "skill"]
    effects = measure_effects(scan, changes) if changes else {}
    latest: dict[str, float] = {}
    for change in sorted(changes, key=lambda c: c.at):  # the latest measured change decides
        if change.id in effects and (value := benefit(effects[change.id])) is not None:
            latest[change.target] = value
    uses = scan.skill_use()
    return {
        slug: Standing(latest.get(slug), uses[slug].invocation_rate if slug in uses else None) for slug in set(latest) | set(uses)
    }


def refresh_standings(scan: AgentScan) -> dict[str, Standing]:
    """The standings, saved for the exports that run without a scan (after each applied change)."""
    found = standings(scan)
    with contextlib.suppress(OSError):  # a ranking only: those exports then rank by the standings saved before
        save(scan.paths, found)
    return found
