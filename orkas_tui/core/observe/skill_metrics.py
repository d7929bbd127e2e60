"""Per-skill metrics, exactly as the spec defines them.

Only ended turns count. A rate whose denominator is zero is ``None`` ("n/a"),
never 0, so an unused skill is not mistaken for a perfect or a useless one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from orkas_tui.core.observe.turns import TurnRecord


@dataclass(slots=True)
class SkillMetrics:
    impressions: int = 0
    invocations: int = 0
    edited: int = 0
    ineffective: int = 0
    effective_base: int = 0

    @property
    def invocation_rate(self) -> float | None:
        return _rate(self.invocations, self.impressions)

    @property
    def edit_rate(self) -> float | None:
        return _rate(self.edited, self.invocations)

    @property
    def ineffective_rate(self) -> float | None:
        return _rate(self.ineffective, self.effective_base)

    def add(self, turn: TurnRecord, indexed: bool, invoked: bool) -> None:
        self.impressions += indexed
        if not invoked:
            return
        self.invocations += 1
        self.edited += turn.edited
        if turn.status != "aborted" and not turn.ended_with_transient_error:
            self.effective_base += 1
            self.ineffective += turn.ended_with_real_error


def _rate(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else round(numerator / denominator, 4)


def skill_metrics(turns: Iterable[TurnRecord]) -> dict[str, SkillMetrics]:
    """Metrics for every slug seen in an index or a read, over ended turns.

    Turns usually share one index list (the observer reuses it while the index
    does not change), so impressions are counted once per distinct list.
    """
    table: dict[str, SkillMetrics] = {}
    indexes: dict[int, list] = {}
    for turn in turns:
        if not turn.ended:
            continue
        index = turn.skills_indexed
        seen = indexes.get(id(index))
        if seen is None:
            indexes[id(index)] = [index, 1]
        else:
            seen[1] += 1
        if turn.skills_read:
            for slug in dict.fromkeys(turn.skills_read):
                table.setdefault(slug, SkillMetrics()).add(turn, False, True)
    for index, count in indexes.values():
        for slug in dict.fromkeys(index):
            table.setdefault(slug, SkillMetrics()).impressions += count
    return table
