"""What a skill's rates say, and over which turns: the one reading the Skills tab, its detail line
and ``status --json`` give, on the figures its history (``F2``) shows.

A skill that a reflection or a person changed is judged on the turns after its latest change,
the window the history measures that change on: until the window is full it is "too new to
judge (3 of 20 turns since c12)", never "never used" or "often ineffective" on turns that saw
an older text. A skill with no recorded change (imported, or older than the history) is judged
on every turn that showed it, once ``judge_after`` turns have. Each verdict names its turns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from orkas_tui.core.observe.skill_metrics import NO_USE, SkillMetrics
from orkas_tui.core.reflect.effects import Effect, measure_effects
from orkas_tui.core.store.history import Change
from orkas_tui.core.summary.scan import AgentScan

TOO_NEW = "too new to judge"
NEVER_USED = "never used"
RARELY = "rarely invoked"
EDITED = "output often edited"
INEFFECTIVE = "often ineffective"
MIN_INVOCATIONS = 3  # an edit or ineffective rate over fewer invocations says nothing yet
LOW_INVOCATION = 0.1
HIGH_RATE = 0.5


@dataclass(frozen=True)
class Verdict:
    flags: tuple[str, ...]  # why the skill looks useless, or that it is too new to say
    over: str  # the turns behind the rates: "the 20 turns after c7", "all 34 turns that showed it"
    counts: SkillMetrics  # over those turns: what the rates divide

    def to_json(self) -> dict:
        m = self.counts
        return {
            "flags": list(self.flags),
            "over": self.over,
            "impressions": m.impressions,
            "invocations": m.invocations,
            "invocation_rate": m.invocation_rate,
            "edit_rate": m.edit_rate,
            "ineffective_rate": m.ineffective_rate,
        }


def latest_changes(changes: Iterable[Change]) -> dict[str, Change]:
    """Each skill's latest change still in force (a reverted one no longer speaks for the text)."""
    latest: dict[str, Change] = {}
    for change in sorted((c for c in changes if c.kind == "skill" and not c.reverted_at), key=lambda c: c.at):
        latest[change.target] = change
    return latest


def judged(scan: AgentScan, changes: Iterable[Change]) -> dict[str, Effect]:
    """Each skill's latest change in force, with its effect over the scan's turns: what a verdict reads."""
    latest = latest_changes(changes)
    effects = measure_effects(scan, list(latest.values())) if latest else {}
    return {slug: effects[c.id] for slug, c in latest.items() if c.id in effects}


def verdict(last_used_at: str | None, metrics: SkillMetrics, effect: Effect | None, judge_after: int) -> Verdict:
    """``last_used_at``: the skill's; ``metrics``: its counts over every turn; ``effect``: its latest
    change's (``None``: none recorded)."""
    on_skill = effect.skill if effect is not None else None
    if on_skill is not None and not on_skill.removed and effect is not None:
        change, after = effect.change.id, on_skill.after
        if after is None:
            return Verdict((TOO_NEW,), f"{on_skill.window.turns_after} of {on_skill.window.size} turns since {change}", NO_USE)
        return Verdict(_flags(after.counts, last_used_at), f"the {after.turns} turns after {change}", after.counts)
    if metrics.impressions < judge_after and metrics.invocations < MIN_INVOCATIONS:
        return Verdict((TOO_NEW,), f"{metrics.impressions} of {judge_after} turns shown", metrics)
    return Verdict(_flags(metrics, last_used_at), f"all {metrics.impressions} turns that showed it", metrics)


def _flags(m: SkillMetrics, last_used_at: str | None) -> tuple[str, ...]:
    reasons = []
    if m.invocations == 0 and last_used_at is None:
        reasons.append(NEVER_USED)
    elif (m.invocation_rate or 0) < LOW_INVOCATION:
        reasons.append(RARELY)
    if m.invocations >= MIN_INVOCATIONS and (m.edit_rate or 0) >= HIGH_RATE:
        reasons.append(EDITED)
    if m.effective_base >= MIN_INVOCATIONS and (m.ineffective_rate or 0) >= HIGH_RATE:
        reasons.append(INEFFECTIVE)
    return tuple(reasons)
