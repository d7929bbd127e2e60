"""The effect of each applied change: the agent's rates, and its skill's, over the turns before and after it.

**The agent** (every change, skill or self-note): corrections per turn and real errors
per turn over the ``effect_window`` (N) *real* turns of the agent that ended before the
change and the N that ended after it. A real turn is one that ended ``ok`` or ``error``
and did not end with a transient error: an aborted turn, or one the environment ended
(a 503, a time-out), says nothing about the change, as the spec's ineffectiveness rate
leaves them out of its denominator. Corrections are the real turns where the
``user_correction`` signal fired (the correction in the turn's trace); real errors
are the real tool errors and real error ends the observer classified (the summary's
``real_errors``); a transient error inside a real turn counts for nothing.
Each figure carries the number of turns behind it, so 3 turns reads as 3 turns.

**The skill** (skill changes only): its three rates over the N turns that showed it (it
was in the turn's index or read in it), not over every turn of the agent: a skill
indexed in one turn of a hundred would otherwise have no rate at all. A change that
removed the skill has no "after".

For both, until N turns have ended after the change its effect is "too few turns yet
(k of N after)". Turns after a revert of the change do not count for it: a change
reverted before N turns ended after it is final at "reverted after k of N turns", its
"after" over those k turns. Only ended turns count, as for the rates themselves
(:mod:`orkas_tui.core.observe.skill_metrics`). Every view (``history``, the app's skill
history, the reflection bundle) reads :func:`measure_effects` on the scan it holds.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from orkas_tui.core.observe.skill_metrics import NO_USE, SkillMetrics, count_uses
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.store.history import Change
from orkas_tui.core.store.journal import REMOVALS
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.turn import Turn, counted
from orkas_tui.core.textfmt import rate

MEASURED, TOO_FEW, REVERTED, REMOVED = "measured", "too few turns yet", "reverted early", "skill removed"


def is_real(turn: Turn) -> bool:
    """A turn whose outcome is the agent's: ended ok or in a real error (not aborted, not ended transient)."""
    return turn.summary.status in ("ok", "error") and turn.end_transient is not True


def _per_turn(count: int, turns: int) -> float | None:
    return None if turns == 0 else round(count / turns, 4)


def _figure(value: float | None, turns: int) -> str:
    return f"{'n/a' if value is None else f'{value:.2f}'} ({turns} turn{'' if turns == 1 else 's'})"


@dataclass(frozen=True)
class AgentRates:
    """The agent's corrections and real errors over a window of real turns (per turn ``None``: no turns)."""

    turns: int
    corrections: int
    real_errors: int

    @classmethod
    def over(cls, turns: list[Turn]) -> AgentRates:
        return cls(len(turns), sum(bool(t.trace.corrections) for t in turns), sum(t.summary.real_errors for t in turns))

    @property
    def corrections_per_turn(self) -> float | None:
        return _per_turn(self.corrections, self.turns)

    @property
    def errors_per_turn(self) -> float | None:
        return _per_turn(self.real_errors, self.turns)

    def to_json(self) -> dict:
        return {
            "turns": self.turns,
            "corrections": self.corrections,
            "real_errors": self.real_errors,
            "corrections_per_turn": self.corrections_per_turn,
            "real_errors_per_turn": self.errors_per_turn,
        }


@dataclass(frozen=True)
class Rates:
    """A skill's three rates over a window of turns (``None``: a zero denominator)."""

    turns: int
    invocation_rate: float | None
    edit_rate: float | None
    ineffective_rate: float | None
    counts: SkillMetrics = field(default=NO_USE, compare=False, repr=False)  # what the rates divide

    @classmethod
    def over(cls, slug: str, turns: list[Turn]) -> Rates:
        table: dict[str, SkillMetrics] = {}
        count_uses(table, (counted(t.summary, t.trace) for t in turns))
        m = table.get(slug, NO_USE)
        return cls(len(turns), m.invocation_rate, m.edit_rate, m.ineffective_rate, m)

    def to_json(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key != "counts"}


@dataclass(frozen=True)
class Window:
    """Where the turns after a change stand: how many of the N, and when the N-th ended."""

    size: int
    turns_after: int
    reverted: bool  # a revert cut the "after" short (final)
    completed_at: datetime | None  # when the N-th turn after the change ended

    @property
    def status(self) -> str:
        if self.turns_after >= self.size:
            return MEASURED
        return REVERTED if self.reverted else TOO_FEW

    def waiting(self) -> str:
        """Why there is no full "after" ("" when there is one)."""
        if self.status == TOO_FEW:
            return f"too few turns yet ({self.turns_after} of {self.size} after)"
        if self.status == REVERTED:
            return f"reverted after {self.turns_after} of {self.size} turns"
        return ""

    def to_json(self) -> dict:
        return {
            "window": self.size,
            "status": self.status,
            "turns_after": self.turns_after,
            "completed_at": format_ts(self.completed_at) if self.completed_at else None,
        }


@dataclass(frozen=True)
class AgentEffect:
    window: Window
    before: AgentRates
    after: AgentRates | None  # None while too few turns ended after; over k turns once reverted early

    def phrase(self) -> str:
        """One line: both figures before → after, each with its turns, or why there is no "after" yet."""
        b, a = self.before, self.after
        if a is None:
            return (
                f"corrections/turn {_figure(b.corrections_per_turn, b.turns)}, "
                f"real errors/turn {_figure(b.errors_per_turn, b.turns)} before; {self.window.waiting()}"
            )
        return (
            f"corrections/turn {_figure(b.corrections_per_turn, b.turns)} → {_figure(a.corrections_per_turn, a.turns)}; "
            f"real errors/turn {_figure(b.errors_per_turn, b.turns)} → {_figure(a.errors_per_turn, a.turns)}"
            + (f" ({self.window.waiting()})" if self.window.status == REVERTED else "")
        )

    def to_json(self) -> dict:
        return {
            **self.window.to_json(),
            "before": self.before.to_json(),
            "after": self.after.to_json() if self.after else None,
        }


@dataclass(frozen=True)
class SkillEffect:
    skill: str
    window: Window
    before: Rates
    after: Rates | None  # None while too few turns ended after, and when the skill was removed
    removed: bool = False

    @property
    def status(self) -> str:
        return REMOVED if self.removed else self.window.status

    def phrase(self) -> str:
        """One line: each rate before → after, or why there is no "after" yet."""
        b = self.before
        if self.removed:
            return f"skill removed; before ({b.turns} turns): invocation {rate(b.invocation_rate)}, edit {rate(b.edit_rate)}, ineffective {rate(b.ineffective_rate)}"
        if self.after is None:
            return self.window.waiting()
        a = self.after
        text = (
            f"invocation {rate(b.invocation_rate)} → {rate(a.invocation_rate)}, "
            f"edit {rate(b.edit_rate)} → {rate(a.edit_rate)}, "
            f"ineffective {rate(b.ineffective_rate)} → {rate(a.ineffective_rate)} "
            f"({b.turns} turns before, {a.turns} after)"
        )
        return text + (f" ({self.window.waiting()})" if self.window.status == REVERTED else "")

    def to_json(self) -> dict:
        return {
            "skill": self.skill,
            **self.window.to_json(),
            "status": self.status,
            "before": self.before.to_json(),
            "after": self.after.to_json() if self.after else None,
        }


@dataclass(frozen=True)
class Effect:
    """A change's effect on the agent as a whole, and on its skill (``None`` for a note change)."""

    change: Change
    agent: AgentEffect
    skill: SkillEffect | None

    def completed_at(self) -> datetime | None:
        """When the later of the two "after" windows filled (``None`` while one has not)."""
        windows = [self.agent.window] + ([self.skill.window] if self.skill and not self.skill.removed else [])
        moments = [w.completed_at for w in windows]
        return None if None in moments else max(m for m in moments if m is not None)

    def to_json(self) -> dict:
        return {
            "change": self.change.id,
            "agent": self.agent.to_json(),
            "skill": self.skill.to_json() if self.skill else None,
        }


class _Timeline:
    """Ended turns in the order they ended, with their end times, for cutting windows around a moment."""

    def __init__(self, pairs: list[tuple[datetime, Turn]]) -> None:
        self.moments = [at for at, _ in pairs]
        self.turns = [t for _, t in pairs]

    def around(self, at: datetime, until: datetime | None, size: int) -> tuple[list[Turn], list[Turn], Window]:
        """The ``size`` turns ended at or before ``at``, and up to ``size`` ended after it (and not after ``until``)."""
        cut = bisect_right(self.moments, at)
        stop = len(self.turns) if until is None else max(cut, bisect_right(self.moments, until))
        end = min(stop, cut + size)
        after = self.turns[cut:end]
        completed = self.moments[end - 1] if len(after) >= size else None
        window = Window(size, len(after), until is not None and len(after) < size, completed)
        return self.turns[max(0, cut - size) : cut], after, window


def change_effects(changes: Iterable[Change], turns: Iterable[Turn], window: int) -> dict[str, Effect]:
    """The effect of every change in ``changes`` (with a readable time), by change id."""
    changes = list(changes)
    ended = sorted(
        ((at, t) for t in turns if t.summary.ended and (at := parse_ts(t.summary.ended_at)) is not None),
        key=lambda pair: (pair[0], *pair[1].key),
    )
    real = _Timeline([(at, t) for at, t in ended if is_real(t)])
    showing = {
        slug: _Timeline(pairs) for slug, pairs in _showing(ended, {c.target for c in changes if c.kind == "skill"}).items()
    }
    effects: dict[str, Effect] = {}
    for change in changes:
        at = parse_ts(change.at)
        if at is None:
            continue
        until = parse_ts(change.reverted_at)
        before, after, agent_window = real.around(at, until, window)
        agent = AgentEffect(
            agent_window,
            AgentRates.over(before),
            AgentRates.over(after) if agent_window.status != TOO_FEW else None,
        )
        skill = _skill_effect(change, showing[change.target].around(at, until, window)) if change.kind == "skill" else None
        effects[change.id] = Effect(change, agent, skill)
    return effects


def _showing(ended: list[tuple[datetime, Turn]], slugs: set[str]) -> dict[str, list[tuple[datetime, Turn]]]:
    """For each of ``slugs``, the ended turns that showed it (indexed or read), in one pass: consecutive
    turns share one index list, so each list is searched once."""
    out: dict[str, list[tuple[datetime, Turn]]] = {slug: [] for slug in slugs}
    found: dict[int, tuple[str, ...]] = {}
    for pair in ended:
        turn = pair[1].summary
        index = turn.skills_indexed
        hits = found.get(id(index))
        if hits is None:
            hits = found[id(index)] = tuple(slug for slug in dict.fromkeys(index) if slug in slugs)
        for slug in hits:
            out[slug].append(pair)
        if turn.skills_read:
            for slug in dict.fromkeys(turn.skills_read):
                if slug in slugs and slug not in hits:
                    out[slug].append(pair)
    return out


def _skill_effect(change: Change, windows: tuple[list[Turn], list[Turn], Window]) -> SkillEffect:
    before, after, window = windows
    slug = change.target
    removed = change.action in REMOVALS
    return SkillEffect(
        skill=slug,
        window=window,
        before=Rates.over(slug, before),
        after=Rates.over(slug, after) if window.status != TOO_FEW and not removed else None,
        removed=removed,
    )


def measure_effects(scan: AgentScan, changes: list[Change]) -> dict[str, Effect]:
    """The effects of ``changes`` over the turns ``scan`` holds (refreshed by its owner)."""
    return change_effects(changes, scan.turns(), scan.settings.effect_window)
