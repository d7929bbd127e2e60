"""Every write of an applied change, in one place: apply, recover, revert; and the decisions on a proposal.

Approving runs under the agent's apply lock, re-reads the proposal and skips
operations already applied, and the history is checked too, so approving the same
proposal twice never applies an operation twice.

Every apply and revert goes through the write-ahead journal
(:mod:`orkas_tui.core.store.journal`): its intent is fsynced before the first file is
touched, and the next command that works on the agent (:func:`recover_agent`)
finishes an intent a crash interrupted, or rolls it back when a file was changed
by hand since.

After an apply or a revert that changed something, an agent linked in
``orkas.toml`` is exported at once (:func:`~orkas_tui.core.store.export.export_linked`),
the apply lock still held so the skills it reads are the ones just applied. The
export runs after the journal is cleared: a crash between the two loses nothing,
since every export writes the whole agent again (the next apply, revert or
``orkas-tui export`` catches up).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path

from orkas_tui.core.disk.confine import current_version, read_regular, version_of
from orkas_tui.core.disk.write import ConflictError
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.store import journal
from orkas_tui.core.store.export import ExportResult, export_linked
from orkas_tui.core.store.history import CHANGES, Change, HistoryError, list_changes, load_change, mark_reverted, record_change
from orkas_tui.core.store.journal import apply_lock
from orkas_tui.core.store.notes import NoteError
from orkas_tui.core.store.proposals import (
    APPLIED,
    PENDING,
    PROPOSALS,
    REJECTED,
    Proposal,
    ProposalError,
    ProposedOp,
    list_proposals,
    load_proposal,
)
from orkas_tui.core.store.records import RecordId
from orkas_tui.core.store.scopes import ScopeError, learn, repositories_of
from orkas_tui.core.store.skills import SkillError, parse_skill
from orkas_tui.core.store.system_events import log_event

AUTO_APPLY_REMOVALS = 1  # skills auto_apply may delete or evict per answer; the rest wait for a person
LAST_USED = re.compile(r"^lastUsedAt: .*$", re.MULTILINE)  # the front-matter line a read of the skill sets
HELD = "left for approval: auto_apply deletes or evicts at most one skill per answer"
QUARANTINED = "quarantined, left for a person to confirm on its own"


def _targets(proposal: Proposal, index: int | None) -> list[ProposedOp]:
    if index is None:
        return [o for o in proposal.operations if o.status == PENDING]
    if not 0 <= index < len(proposal.operations):
        raise ProposalError(f"proposal {proposal.id} has no operation {index} (0 to {len(proposal.operations) - 1})")
    return [proposal.operations[index]]


@dataclass(frozen=True)
class ApplyResult:
    applied: list[Change]
    skipped: list[str]
    failed: list[str]
    held: list[str] = field(default_factory=list)
    export: ExportResult | None = None  # the linked agent's export (None: not linked, or nothing applied nor already applied)


def apply_pending(
    paths: AgentPaths,
    settings: Settings,
    proposal: Proposal,
    targets: list[ProposedOp],
    now: datetime,
    by: str,
    max_removals: int | None = None,
    confirmed: bool = False,
) -> ApplyResult:
    """Apply the given operations in order (apply lock held), each through the journal.

    ``max_removals``: how many skills may be deleted or evicted; an operation that
    would remove one more stays pending (``held``) for a person to approve. A quarantined
    operation stays pending too (``held``), unless ``confirmed``: a person confirmed it, one
    operation on its own, after being shown why it was quarantined.
    """
    # start-up time: see proposals.create_proposal
    from orkas_tui.core.store.operations import plan_operation

    _recover_locked(paths)
    done = {(c.proposal, c.op_index) for c in list_changes(paths)}
    applied, skipped, failed, held = [], [], [], []
    removed = 0
    for item in targets:
        if item.status == APPLIED or (proposal.id, item.index) in done:
            skipped.append(f"operation {item.index}: already applied")
            continue
        if item.status != PENDING:
            failed.append(f"operation {item.index}: {item.status}" + (f" ({item.reason})" if item.reason else ""))
            continue
        if item.held and item.quarantine is not None:
            if not confirmed:
                held.append(f"operation {item.index}: {QUARANTINED} ({item.quarantine.reason})")
                continue
            item.quarantine.confirmed_at = format_ts(now)
            PROPOSALS.save(paths, proposal)
        try:
            steps = plan_operation(paths, settings, item.op, now, by)
        except (SkillError, NoteError) as exc:
            item.reason = str(exc)
            failed.append(f"operation {item.index}: {exc}")
            PROPOSALS.save(paths, proposal)
            continue
        removes = sum(s.action in journal.REMOVALS for s in steps)
        if max_removals is not None and removes and removed + removes > max_removals:
            item.reason = HELD
            held.append(f"operation {item.index}: {HELD}")
            PROPOSALS.save(paths, proposal)
            continue
        first = CHANGES.next_number(paths)
        steps = [journal.Step(**{**asdict(s), "change": str(RecordId(paths.id, "c", first + i))}) for i, s in enumerate(steps)]
        record = journal.begin(
            paths, {"kind": "apply", "proposal": proposal.id, "op_index": item.index, "by": by, "at": format_ts(now)}, steps
        )
        try:
            applied.extend(_finish(paths, record, proposal))
        except ConflictError as exc:
            failed.append(f"operation {item.index}: {exc}")
            continue
        removed += removes
    # "already applied" too: approving again after a crash between apply and export catches up
    export = export_linked(paths, settings, now) if applied or skipped else None
    return ApplyResult(applied, skipped, failed, held, export)


def _finish(paths: AgentPaths, record: dict, proposal: Proposal | None = None) -> list[Change]:
    """Carry a journaled intent through to the end (again, after a crash): files, history,
    proposal, events; then drop the journal. A file changed by hand rolls it back instead."""
    steps = journal.steps_of(record)
    at = journal.time_of(record)
    apply = record["kind"] == "apply"
    if apply and proposal is None:
        proposal = next((p for p in list_proposals(paths) if p.id == record["proposal"]), None)
    item = (
        proposal.operations[record["op_index"]] if apply and proposal and record["op_index"] < len(proposal.operations) else None
    )
    try:
        journal.write_steps(paths, steps)
    except ConflictError as exc:
        if proposal is not None and item is not None:
            item.reason = f"not applied: {exc}"
            PROPOSALS.save(paths, proposal)
        journal.clear(paths)
        raise
    changes = []
    if apply:
        changes = [_recorded(paths, record, step, at) for step in steps]
        if item is not None and item.cwds:
            _learn(paths, steps, item.cwds, item.files or [], at)
        if proposal is not None and item is not None:
            item.status, item.reason, item.decided_at, item.changes = APPLIED, None, record["at"], [c.id for c in changes]
            PROPOSALS.save(paths, proposal)
    else:
        reverted = CHANGES.get(paths, CHANGES.parse(record["revert"]))
        if reverted is not None and not reverted.reverted_at:
            changes = [mark_reverted(paths, reverted, record["at"])]
    for step in steps:
        if step.event:
            log_event(paths, step.event["type"], at, **{k: v for k, v in step.event.items() if k != "type"})
    journal.clear(paths)
    return changes


def _learn(paths: AgentPaths, steps: list[journal.Step], cwds: list[str], files: list[str], at: datetime) -> None:
    """Record where the lesson of each skill this operation created or patched was learned (its scope), and
    the files its evidence is about. A scopes file that cannot be read is left as it is and the apply goes on:
    the events say what was not recorded."""
    repositories = repositories_of(cwds)
    for step in steps:
        if step.kind == "skill" and step.action in ("create_skill", "patch_skill"):
            try:
                learn(paths, step.target, repositories, files)
            except ScopeError as exc:
                log_event(paths, "scope_not_recorded", at, skill=step.target, repositories=repositories, problem=str(exc))


def _recorded(paths: AgentPaths, record: dict, step: journal.Step, at: datetime) -> Change:
    """The step's history entry under its reserved id, written unless a run before the crash wrote it."""
    fields = {
        "action": step.action,
        "kind": step.kind,
        "target": step.target,
        "before": step.before,
        "after": step.after,
        "by": record["by"],
        "proposal": record["proposal"],
        "op_index": record["op_index"],
    }
    existing = CHANGES.get(paths, CHANGES.parse(step.change))
    if existing is not None and all(getattr(existing, k) == v for k, v in fields.items()):
        return existing
    return record_change(paths, at, change_id=None if existing is not None else step.change, **fields)


def _recover_locked(paths: AgentPaths) -> str | None:
    """Finish or roll back an interrupted apply or revert (apply lock held); what was done, or ``None``."""
    try:
        record = journal.pending(paths)
    except journal.JournalError as exc:
        raise ProposalError(f"{paths.id}: {exc}") from exc
    if record is None:
        return None
    what = (
        f"approval of {record['proposal']} operation {record['op_index']}"
        if record["kind"] == "apply"
        else f"revert of {record['revert']}"
    )
    try:
        _finish(paths, record)
    except ConflictError as exc:
        return f"{paths.id}: an interrupted {what} was rolled back: {exc}"
    return f"{paths.id}: finished an interrupted {what}"


def recover_agent(paths: AgentPaths) -> str | None:
    """What any command (and the app at start) calls first: finish a crashed apply or revert.

    Costs one ``stat`` when there is nothing to finish. Returns a line saying what
    was done, or the problem with a damaged journal (then nothing is applied until a
    person has looked), or ``None``.
    """
    if not journal.journal_path(paths).exists():
        return None
    with apply_lock(paths):
        try:
            return _recover_locked(paths)
        except ProposalError as exc:
            return str(exc)


def approve(
    workspace: Workspace, proposal_id: str, now: datetime, index: int | None = None, confirm: bool = False
) -> tuple[Proposal, ApplyResult]:
    """Apply every pending operation, or only operation ``index``. A quarantined operation is applied
    only when it is the one asked for and ``confirm`` says a person confirmed it; approving them all
    leaves it pending."""
    paths, _ = load_proposal(workspace, proposal_id)
    with apply_lock(paths):
        _recover_locked(paths)
        _, proposal = load_proposal(workspace, proposal_id)
        targets = _targets(proposal, index)
        confirmed = confirm and index is not None
        result = apply_pending(paths, workspace.settings, proposal, targets, now, by="approval", confirmed=confirmed)
    return proposal, result


def _applied_in_history(paths: AgentPaths, proposal: Proposal) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for change in list_changes(paths):
        if change.proposal == proposal.id and change.op_index is not None:
            found.setdefault(change.op_index, []).append(change.id)
    return found


def reject(workspace: Workspace, proposal_id: str, now: datetime, index: int | None = None) -> Proposal:
    """Reject every pending operation, or only operation ``index`` (an applied one stays applied)."""
    paths, _ = load_proposal(workspace, proposal_id)
    with apply_lock(paths):
        _recover_locked(paths)
        _, proposal = load_proposal(workspace, proposal_id)
        in_history = _applied_in_history(paths, proposal)
        for item in _targets(proposal, index):
            changes = item.changes or in_history.get(item.index)
            if item.status == APPLIED or changes:
                raise ProposalError(
                    f"operation {item.index} is already applied; revert its change instead ({', '.join(changes or [])})"
                )
            item.status, item.decided_at = REJECTED, format_ts(now)
        PROPOSALS.save(paths, proposal)
    return proposal


def edit_operation(workspace: Workspace, proposal_id: str, index: int, fields: dict) -> Proposal:
    """Change fields of a not-yet-applied operation; refused (nothing saved) unless the result is valid."""
    # start-up time: see proposals.create_proposal
    from orkas_tui.core.store.operations import check_operations, normalized

    paths, _ = load_proposal(workspace, proposal_id)
    with apply_lock(paths):
        _recover_locked(paths)
        _, proposal = load_proposal(workspace, proposal_id)
        item = _targets(proposal, index)[0]
        if item.status == APPLIED or index in _applied_in_history(paths, proposal):
            raise ProposalError(f"operation {index} is already applied; it cannot be edited")
        edited = dict(item.op) if isinstance(item.op, dict) else {}
        edited.update(fields)
        problem = check_operations([edited], paths, workspace.settings)[0]
        if problem:
            raise ProposalError(f"operation {index} not changed: {problem}")
        item.op, item.status, item.reason = normalized(edited), PENDING, None
        PROPOSALS.save(paths, proposal)
    return proposal


def revert_change(workspace: Workspace, change_id: str, now: datetime) -> tuple[Change, ExportResult | None]:
    """Undo one applied change through the journal, refusing if its file changed since; then
    export the linked agent (``None``: not linked)."""
    paths, _ = load_change(workspace, change_id)
    with apply_lock(paths):
        _recover_locked(paths)
        paths, change = load_change(workspace, change_id)
        if change.reverted_at:
            raise HistoryError(f"change {change.id} was already reverted at {change.reverted_at}")
        path = change.path_in(paths)
        expected = version_of(change.after.encode("utf-8")) if change.after is not None else None
        now_text, restored = change.after, change.before
        if current_version(path) != expected:
            now_text = _only_read_since(change, path)
            if now_text is None:
                raise HistoryError(
                    f"{path.relative_to(paths.root)} changed since change {change.id}; not reverted "
                    "(revert later changes first, or restore it by hand)"
                )
            restored = _keep_last_use(restored, now_text)
        event = {
            "type": "change_reverted",
            "change": change.id,
            "action": change.action,
            "target_kind": change.kind,
            "target": change.target,
            "by": "user",
        }
        step = journal.Step(change.action, change.kind, change.target, now_text, restored, event=event)
        record = journal.begin(paths, {"kind": "revert", "revert": change.id, "by": "user", "at": format_ts(now)}, [step])
        try:
            _finish(paths, record)
        except ConflictError as exc:
            raise HistoryError(f"{path.relative_to(paths.root)} changed while reverting {change.id}; not reverted") from exc
        return load_change(workspace, change_id)[1], export_linked(paths, workspace.settings, now)


def _only_read_since(change: Change, path: Path) -> str | None:
    """The skill file's text when all that changed since ``change`` is ``lastUsedAt`` (the agent read it: an
    import or a runtime's read), which is no edit to undo first; ``None`` when anything else changed."""
    if change.kind != "skill" or change.after is None:
        return None
    try:
        data = read_regular(path)
        now, then = parse_skill(change.target, data), parse_skill(change.target, change.after.encode("utf-8"))
    except (OSError, SkillError):
        return None
    same = replace(now, last_used_at=None, version=None) == replace(then, last_used_at=None, version=None)
    return data.decode("utf-8") if same else None


def _keep_last_use(text: str | None, now_text: str) -> str | None:
    """``text`` with the ``lastUsedAt`` line of ``now_text``, every other byte kept: undoing a patch must not
    make a used skill look unused."""
    line = LAST_USED.search(now_text)
    return text if text is None or line is None else LAST_USED.sub(lambda _: line.group(), text, count=1)
