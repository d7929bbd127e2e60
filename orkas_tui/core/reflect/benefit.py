"""A skill's measured benefit: what its latest change in force did to the agent (one figure, one place).

Corrections plus real errors per turn over the ``effect_window`` real turns before the change,
less the same over the turns after (:mod:`orkas_tui.core.reflect.effects`): above zero the
change helped. ``None`` while the "after" is not full (too new to judge, or reverted early).
"""

from __future__ import annotations

import contextlib

from orkas_tui.core.reflect.effects import MEASURED, Effect
from orkas_tui.core.reflect.verdict import judged
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.standing import SkillStanding, save
from orkas_tui.core.summary.scan import AgentScan


def benefit(effect: Effect) -> float | None:
    agent = effect.agent
    if agent.window.status != MEASURED or agent.after is None:
        return None
    before = (agent.before.corrections_per_turn or 0.0) + (agent.before.errors_per_turn or 0.0)
    after = (agent.after.corrections_per_turn or 0.0) + (agent.after.errors_per_turn or 0.0)
    return round(before - after, 4)


def standings(scan: AgentScan) -> dict[str, SkillStanding]:
    """Every skill the agent's history or turns name, with the benefit of its latest change in force
    (:func:`~orkas_tui.core.reflect.verdict.judged`, as its verdict) and its invocation rate."""
    measured = {slug: benefit(effect) for slug, effect in judged(scan, list_changes(scan.paths)).items()}
    uses = scan.skill_use()
    return {
        slug: SkillStanding(measured.get(slug), uses[slug].invocation_rate if slug in uses else None)
        for slug in set(measured) | set(uses)
    }


def refresh_standings(scan: AgentScan) -> dict[str, SkillStanding]:
    """The standings, saved for the exports that run without a scan (after each applied change)."""
    found = standings(scan)
    with contextlib.suppress(OSError):  # a ranking only: those exports then rank by the standings saved before
        save(scan.paths, found)
    return found
