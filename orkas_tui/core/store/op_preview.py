"""What a proposed operation changes, file by file, as the store applies it: one answer for the
Proposals tab's diff and for ``proposals show``.

An applied operation is shown as its history recorded it (the whole file before and after,
at the moment it was applied), never against today's file, where the change is already in
and would read as no change. A pending or rejected operation is planned now by the function
that applies it (:func:`~orkas_tui.core.store.operations.plan_operation`), so the diff is what
approving it would write; when it can no longer be applied, the reason says why.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import datetime

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.history import HistoryError, list_changes
from orkas_tui.core.store.journal import target_path
from orkas_tui.core.store.proposals import APPLIED, ProposedOp


@dataclass(frozen=True)
class FileChange:
    path: str  # relative to the agent's folder: skills/<slug>.md, self/<note>.md
    before: str  # "" when the file did not exist
    after: str  # "" when the operation removes it


@dataclass(frozen=True)
class Preview:
    files: tuple[FileChange, ...]
    note: str  # where the texts come from, or why there are none ("" for a plan made now)

    def diff_lines(self) -> list[str]:
        """A unified diff of every file (``a/`` before, ``b/`` after), three lines of context."""
        lines: list[str] = []
        for f in self.files:
            a, b = f"a/{f.path}" if f.before else "/dev/null", f"b/{f.path}" if f.after else "/dev/null"
            lines += difflib.unified_diff(f.before.splitlines(), f.after.splitlines(), a, b, lineterm="", n=3)
        return lines

    def to_json(self) -> dict:
        return {"note": self.note, "files": [f.__dict__ for f in self.files], "diff": self.diff_lines()}


def preview(paths: AgentPaths, settings: Settings, proposal_id: str, op: ProposedOp, now: datetime) -> Preview:
    """``op`` of proposal ``proposal_id``, file by file (file I/O: call from a worker)."""
    if op.status == APPLIED:
        try:
            recorded = {c.id: c for c in list_changes(paths) if c.id in op.changes}
        except (HistoryError, OSError) as exc:
            return Preview((), f"n/a: its history cannot be read ({exc})")
        changes = [recorded[c] for c in op.changes if c in recorded]
        if not changes:
            return Preview((), "n/a: applied, but its history entry is missing")
        files = tuple(_file(paths, c.kind, c.target, c.before, c.after) for c in changes)
        return Preview(files, f"as applied ({', '.join(c.id for c in changes)}, {changes[0].at})")
    from orkas_tui.core.store.operations import plan_operation  # the answer's models (pydantic): not at start-up

    try:
        steps = plan_operation(paths, settings, op.op, now, "preview")
    except (OrkasError, ValueError, OSError) as exc:
        return Preview((), f"n/a: it cannot be applied now ({exc})")
    return Preview(tuple(_file(paths, s.kind, s.target, s.before, s.after) for s in steps), "")


def _file(paths: AgentPaths, kind: str, target: str, before: str | None, after: str | None) -> FileChange:
    return FileChange(target_path(paths, kind, target).relative_to(paths.root).as_posix(), before or "", after or "")
