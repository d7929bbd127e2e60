"""Per-skill metrics, exactly as the spec defines them, and the one function that counts them.

Only ended turns count. A rate whose denominator is zero is ``None`` ("n/a"),
never 0, so an unused skill is not mistaken for a perfect or a useless one.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from orkas_tui.core.observe.turns import TurnRecord

# What one turn adds to the counts: (status, skills indexed, skills read, edited, how it ended in
# error: None if it did not end in an error, else whether that error was transient)
Counted = tuple[str, list[str], list[str], bool, bool | None]


class SkillMetrics(msgspec.Struct, array_like=True, gc=False):
    """One skill's use counts (five numbers in the summary cache) and the rates they give."""

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


NO_USE = SkillMetrics()  # a skill no turn indexed or read


def _rate(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else round(numerator / denominator, 4)


def count_uses(table: dict[str, SkillMetrics], turns: Iterable[Counted], sign: int = 1) -> None:
    """Add (``sign`` 1) or take back (-1) what ``turns`` add to ``table``: every slug seen in an
    index or a read, over ended turns. The full fold and the fold of one changed turn both count here.

    Turns usually share one index list (the observer reuses it while the index does not
    change), so impressions are counted once per distinct list.
    """
    indexes: dict[int, list] = {}
    for status, index, read, edited, end_transient in turns:
        if status == "running":
            continue
        seen = indexes.get(id(index))
        if seen is None:
            indexes[id(index)] = [index, sign]
        else:
            seen[1] += sign
        if read:
            effective = status != "aborted" and end_transient is not True
            real = end_transient is False
            for slug in dict.fromkeys(read):
                metrics = table.get(slug)
                if metrics is None:
                    metrics = table[slug] = SkillMetrics()
                metrics.invocations += sign
                metrics.edited += sign * edited
                if effective:
                    metrics.effective_base += sign
                    metrics.ineffective += sign * real
    for index, count in indexes.values():
        for slug in dict.fromkeys(index):
            metrics = table.get(slug)
            if metrics is None:
                metrics = table[slug] = SkillMetrics()
            metrics.impressions += count
    if sign < 0:
        for slug in [slug for slug, m in table.items() if m == NO_USE]:
            del table[slug]


def add_uses(table: dict[str, SkillMetrics], other: dict[str, SkillMetrics]) -> None:
    """Add the counts of ``other`` (other conversations' turns) to ``table``, slugs new to it after its
    own in ``other``'s order: the table one pass over both runs of conversations would have made."""
    for slug, counts in other.items():
        metrics = table.get(slug)
        if metrics is None:
            table[slug] = msgspec.structs.replace(counts)
            continue
        metrics.impressions += counts.impressions
        metrics.invocations += counts.invocations
        metrics.edited += counts.edited
        metrics.ineffective += counts.ineffective
        metrics.effective_base += counts.effective_base


def counted(turn: TurnRecord) -> Counted:
    end = turn.end_error
    return (
        turn.status,
        turn.skills_indexed,
        turn.skills_read,
        turn.edited,
        end.transient if turn.status == "error" and end is not None else None,
    )


def skill_metrics(turns: Iterable[TurnRecord]) -> dict[str, SkillMetrics]:
    """Metrics for every slug seen in an index or a read, over ended turns."""
    table: dict[str, SkillMetrics] = {}
    count_uses(table, map(counted, turns))
    return table
