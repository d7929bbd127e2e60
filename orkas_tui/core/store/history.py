"""The history of applied changes: one record per change, its file's text before and after.

Each applied change is a numbered record (:mod:`orkas_tui.core.store.records`),
``<agent>/.orkas/history/c<N>.json``, id ``<agent>.c<N>``. Reverting one is
:func:`orkas_tui.core.store.changes.revert_change`. An entry whose target is not a
skill slug or note name, or whose action is unknown, is damaged: never acted on.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.journal import ACTIONS, reserved_changes, target_path, target_problem
from orkas_tui.core.store.records import Record, RecordId, RecordStore


class HistoryError(OrkasError, ValueError):
    """A change cannot be found or reverted; nothing was written."""


class Change(Record, kw_only=True):
    at: str
    by: str
    action: str  # one of journal.ACTIONS
    kind: str  # "skill" or "note"
    target: str  # the skill slug or the note name
    before: str | None = None
    after: str | None = None
    proposal: str | None = None
    op_index: int | None = None
    reverted_at: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.action not in ACTIONS:
            raise ValueError(f"action {self.action[:40]!r} is not one of {', '.join(ACTIONS)}")
        if problem := target_problem(self.kind, self.target):
            raise ValueError(f"target: {problem}")

    def path_in(self, paths: AgentPaths) -> Path:
        return target_path(paths, self.kind, self.target)


CHANGES = RecordStore("history", "c", Change, "change", HistoryError)


def record_change(paths: AgentPaths, now: datetime, change_id: str | None = None, **fields) -> Change:
    """Write a history entry (call with the agent's apply lock held).

    ``change_id``: the id a journal step reserved; without it, the next id that no
    unfinished journal step has reserved.
    """
    if change_id is None:
        taken = [CHANGES.parse(c).number + 1 for c in reserved_changes(paths)]
        change_id = str(RecordId(paths.id, "c", max([CHANGES.next_number(paths), *taken])))
    change = Change(id=change_id, agent=paths.id, at=format_ts(now), **fields)
    CHANGES.save(paths, change)
    return change


def mark_reverted(paths: AgentPaths, change: Change, at: str) -> Change:
    change.reverted_at = at
    CHANGES.save(paths, change)
    return change


list_changes = CHANGES.list  # every readable change of one agent, oldest first
load_change = CHANGES.load  # a change by its id, with its agent's paths
