"""The effect of each applied skill change: the skill's rates over the turns before it and after it.

A change is judged on the turns that showed the skill (it was in the turn's index
or read in it), not on every turn of the agent: a skill indexed in one turn of a
hundred would otherwise have no rate at all. The window is ``effect_window`` (N)
such turns on each side; until N turns have ended after the change, its effect is
"too few turns yet". Turns after a revert do not count for the reverted change.
A change that removed the skill has no "after". Only ended turns count, as for the
rates themselves (:mod:`orkas_tui.core.observe.skill_metrics`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from orkas_tui.core.observe.skill_metrics import SkillMetrics, skill_metrics
from orkas_tui.core.observe.turns import TurnRecord
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.history import Change
from orkas_tui.core.store.journal import REMOVALS
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.textfmt import rate


@dataclass(frozen=True)
class Rates:
    """A skill's three rates over a window of turns (``None``: a zero denominator)."""

    turns: int
    invocation_rate: float | None
    edit_rate: float | None
    ineffective_rate: float | None

    @classmethod
    def over(cls, slug: str, turns: list[TurnRecord]) -> Rates:
        m = skill_metrics(turns).get(slug, SkillMetrics())
        return cls(len(turns), m.invocation_rate, m.edit_rate, m.ineffective_rate)

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Effect:
    change: str
    skill: str
    window: int
    before: Rates
    after: Rates | None  # None until ``window`` turns have passed, or when the skill was removed
    turns_after: int
    removed: bool = False

    @property
    def status(self) -> str:
        if self.removed:
            return "skill removed"
        return "measured" if self.after is not None else "too few turns yet"

    def to_json(self) -> dict:
        return {
            "change": self.change,
            "skill": self.skill,
            "window": self.window,
            "status": self.status,
            "before": self.before.to_json(),
            "after": self.after.to_json() if self.after else None,
            "turns_after": self.turns_after,
        }

    def phrase(self) -> str:
        """One line: each rate before → after, or why there is no "after" yet."""
        b = self.before
        if self.removed:
            return f"skill removed; before ({b.turns} turns): invocation {rate(b.invocation_rate)}, edit {rate(b.edit_rate)}, ineffective {rate(b.ineffective_rate)}"
        if self.after is None:
            return f"too few turns yet ({self.turns_after} of {self.window} after)"
        a = self.after
        return (
            f"invocation {rate(b.invocation_rate)} → {rate(a.invocation_rate)}, "
            f"edit {rate(b.edit_rate)} → {rate(a.edit_rate)}, "
            f"ineffective {rate(b.ineffective_rate)} → {rate(a.ineffective_rate)} "
            f"({b.turns} turns before, {a.turns} after)"
        )


def _showing(slug: str, turns: list[tuple[datetime, TurnRecord]]) -> list[tuple[datetime, TurnRecord]]:
    return [(at, t) for at, t in turns if slug in t.skills_indexed or slug in t.skills_read]


def change_effects(changes: Iterable[Change], turns: Iterable[TurnRecord], window: int) -> dict[str, Effect]:
    """The effect of every skill change in ``changes``, by change id (note changes have none)."""
    ended = sorted(
        ((at, t) for t in turns if t.ended and (at := parse_ts(t.ended_at)) is not None),
        key=lambda pair: (pair[0], pair[1].conversation, pair[1].seq),
    )
    by_skill: dict[str, list[tuple[datetime, TurnRecord]]] = {}
    effects: dict[str, Effect] = {}
    for change in changes:
        at = parse_ts(change.at)
        if change.kind != "skill" or at is None:
            continue
        showing = by_skill.get(change.target)
        if showing is None:
            showing = by_skill[change.target] = _showing(change.target, ended)
        until = parse_ts(change.reverted_at)
        before = [t for moment, t in showing if moment <= at][-window:]
        after = [t for moment, t in showing if moment > at and (until is None or moment <= until)][:window]
        removed = change.action in REMOVALS
        effects[change.id] = Effect(
            change=change.id,
            skill=change.target,
            window=window,
            before=Rates.over(change.target, before),
            after=Rates.over(change.target, after) if len(after) >= window and not removed else None,
            turns_after=len(after),
            removed=removed,
        )
    return effects


def measure_effects(paths: AgentPaths, settings: Settings, changes: list[Change]) -> dict[str, Effect]:
    """The effects of ``changes`` over the agent's turns as they are on disk now (for ``history`` and the app)."""
    scan = AgentScan(paths, settings, autosave=False)
    scan.refresh()
    return change_effects(changes, scan.turns(), settings.effect_window)
