"""What the app says about the export that followed an approval or a revert of a linked agent."""

from __future__ import annotations

from orkas_tui.core.store.export import ExportResult


def export_notice(result: ExportResult | None) -> tuple[str, bool]:
    """One short line for the notification (empty: the agent is not linked), and whether it needs a look:
    a ``SKILL.md`` edited by hand is left alone (the Skills tab flags it with the way out), or a problem."""
    if result is None:
        return "", False
    parts = [f"exported {len(result.written)} skill(s)"]
    if result.memory_status in ("created", "updated"):
        parts.append(f"notes block {result.memory_status}")
    if result.conflicts:
        parts.append(f"{len(result.conflicts)} SKILL.md edited by hand left alone (flagged in the Skills tab)")
    if result.omitted:
        parts.append(f"{len(result.omitted)} left out of the listing (over its budget; flagged in the Skills tab)")
    if result.waiting:
        parts.append(f"{len(result.waiting)} wait for a repository not on this machine")
    if result.elsewhere:
        parts.append(f"{len(result.elsewhere)} earlier copy(ies) left where they were, not moved (`orkas-tui export` lists them)")
    if result.stale:
        parts.append(f"{len(result.stale)} of a deleted skill kept")
    parts += result.problems
    return ", ".join(parts), bool(result.conflicts or result.problems or result.waiting or result.refused or result.elsewhere)
