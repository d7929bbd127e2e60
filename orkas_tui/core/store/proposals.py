"""Proposals: a reflection's operations waiting for a person, approved or rejected one by one.

A proposal is ``<agent>/.orkas/proposals/p<N>.json`` (id ``<agent>.p<N>``). Each
operation has a status: ``pending``, ``applied``, ``rejected`` or ``invalid``
(with the reason). Approving runs under the agent's apply lock, re-reads the
proposal and skips operations already applied, and the history is checked too,
so approving the same proposal twice never applies an operation twice.

Every apply and revert goes through the write-ahead journal
(:mod:`orkas_tui.core.store.journal`): its intent is fsynced before the first file is
touched, and the next command that works on the agent (:func:`recover_agent`)
finishes an intent a crash interrupted, or rolls it back when a file was changed
by hand since. Proposals and history entries are read as untrusted input.

After an apply or a revert that changed something, an agent linked in
``orkas.toml`` is exported at once (:func:`~orkas_tui.core.store.export.export_linked`),
the apply lock still held so the skills it reads are the ones just applied. The
export runs after the journal is cleared: a crash between the two loses nothing,
since every export writes the whole agent again (the next apply, revert or
``orkas-tui export`` catches up).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.files import ConflictError, atomic_write, current_version, file_lock, read_regular, version_of
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace, WorkspaceError
from orkas_tui.core.store import journal
from orkas_tui.core.store.export import ExportResult, export_linked
from orkas_tui.core.store.history import (
    ID,
    Change,
    HistoryError,
    history_dir,
    list_changes,
    load_change,
    mark_reverted,
    next_id,
    record_change,
    split_id,
)
from orkas_tui.core.store.notes import NoteError
from orkas_tui.core.store.skills import SkillError, parse_skill
from orkas_tui.core.store.system_events import log_event

PENDING, APPLIED, REJECTED, INVALID = "pending", "applied", "rejected", "invalid"
LEGACY_APPLYING = "applying"  # written before the journal existed; read as pending
AUTO_APPLY_REMOVALS = 1  # skills auto_apply may delete or evict per answer; the rest wait for a person
LAST_USED = re.compile(r"^lastUsedAt: .*$", re.MULTILINE)  # the front-matter line a read of the skill sets
HELD = "left for approval: auto_apply deletes or evicts at most one skill per answer"


class ProposalError(OrkasError, ValueError):
    """A proposal or one of its operations cannot be used as asked; nothing was written."""


@dataclass
class ProposedOp:
    index: int
    op: object
    status: str
    reason: str | None = None
    changes: list[str] = field(default_factory=list)
    decided_at: str | None = None

    @classmethod
    def from_json(cls, data: object, index: int) -> ProposedOp:
        if not isinstance(data, dict) or data.get("index") != index or type(data.get("index")) is not int:
            raise ProposalError(f"operation {index} is not an object with its index")
        status = PENDING if data.get("status") == LEGACY_APPLYING else data.get("status")
        changes = data.get("changes", [])
        if status not in (PENDING, APPLIED, REJECTED, INVALID):
            raise ProposalError(f"operation {index} has an unknown status")
        if not isinstance(changes, list) or not all(isinstance(c, str) and ID.match(c) for c in changes):
            raise ProposalError(f"operation {index} has malformed change ids")
        texts = {k: data.get(k) for k in ("reason", "decided_at")}
        if not all(v is None or isinstance(v, str) for v in texts.values()):
            raise ProposalError(f"operation {index} has a non-text reason or date")
        return cls(index, data.get("op"), status, changes=changes, **texts)


@dataclass
class Proposal:
    id: str
    agent: str
    created_at: str
    summary: str
    operations: list[ProposedOp]
    reflection: dict = field(default_factory=dict)

    @property
    def status(self) -> str:
        states = {o.status for o in self.operations}
        if PENDING in states:
            return PENDING
        if not states or states <= {REJECTED, INVALID}:
            return REJECTED
        return APPLIED if states == {APPLIED} else "decided"

    def to_json(self) -> dict:
        data = asdict(self)
        data["status"] = self.status
        return data

    @classmethod
    def from_json(cls, data: object) -> Proposal:
        """A proposal read from disk, every field checked (it may have been edited by anyone)."""
        if not isinstance(data, dict):
            raise ProposalError("not a JSON object")
        texts: dict[str, Any] = {k: data.get(k) for k in ("id", "agent", "created_at", "summary")}
        if not all(isinstance(v, str) for v in texts.values()) or not ID.match(texts["id"]):
            raise ProposalError("id, agent, created_at and summary must be text")
        operations, reflection = data.get("operations"), data.get("reflection", {})
        if not isinstance(operations, list) or not isinstance(reflection, dict):
            raise ProposalError("operations must be a list and reflection an object")
        return cls(**texts, operations=[ProposedOp.from_json(o, i) for i, o in enumerate(operations)], reflection=reflection)


def proposals_dir(paths: AgentPaths):
    return paths.private / "proposals"


@contextmanager
def apply_lock(paths: AgentPaths, deadline: float | None = None) -> Iterator[None]:
    """Serialises every write of applied changes, proposals and history for one agent.

    ``deadline``: see :func:`file_lock` (a hook's import waits for an approve only that long).
    """
    paths.require_safe()  # a linked-out or special folder or events.jsonl: refused before anything is touched
    with file_lock(paths.private / "apply.lock", deadline=deadline):
        yield


def _save(paths: AgentPaths, proposal: Proposal) -> None:
    stem = proposal.id.split(".", 1)[1]
    atomic_write(proposals_dir(paths) / f"{stem}.json", orjson.dumps(proposal.to_json(), option=orjson.OPT_INDENT_2) + b"\n")


def create_proposal(
    paths: AgentPaths, settings: Settings, summary: str, operations: Sequence[object], now: datetime, reflection: dict
) -> Proposal:
    """Store a reflection's answer, each operation checked and marked pending or invalid."""
    # start-up time: operations loads pydantic and the guard's patterns, which status (recovery only) never uses
    from orkas_tui.core.store.operations import check_operations, normalized

    problems = check_operations(operations, paths, settings)
    ops = [
        ProposedOp(i, op if p else normalized(op), INVALID if p else PENDING, p)
        for i, (op, p) in enumerate(zip(operations, problems, strict=True))
    ]
    with apply_lock(paths):
        proposal = Proposal(next_id(proposals_dir(paths), paths.id, "p"), paths.id, format_ts(now), summary, ops, reflection)
        _save(paths, proposal)
    return proposal


def list_proposals(paths: AgentPaths) -> list[Proposal]:
    """Every readable proposal of one agent, oldest first (damaged ones are left out: never acted on)."""
    folder = proposals_dir(paths)
    found = []
    if folder.is_dir():
        for entry in folder.glob("p*.json"):
            try:
                proposal = Proposal.from_json(orjson.loads(read_regular(entry)))
            except (OSError, orjson.JSONDecodeError, ProposalError):
                continue
            if proposal.id == f"{paths.id}.{entry.stem}" and proposal.agent == paths.id:  # else: copied or renamed
                found.append(proposal)
    return sorted(found, key=lambda p: int(p.id.rsplit(".p", 1)[1]))


def load_proposal(workspace: Workspace, proposal_id: str) -> tuple[AgentPaths, Proposal]:
    try:
        agent, stem = split_id(proposal_id, "p")
        paths = workspace.agent(agent)
        data = orjson.loads(read_regular(proposals_dir(paths) / f"{stem}.json"))
    except (HistoryError, WorkspaceError, FileNotFoundError, orjson.JSONDecodeError) as exc:
        raise ProposalError(f"no proposal {proposal_id!r}") from exc
    try:
        proposal = Proposal.from_json(data)
    except ProposalError as exc:
        raise ProposalError(f"proposal {proposal_id} is damaged ({exc}); not used") from exc
    if proposal.id != proposal_id or proposal.agent != agent:
        raise ProposalError(f"proposal {proposal_id} is damaged (it names {proposal.id!r}); not used")
    return paths, proposal


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
) -> ApplyResult:
    """Apply the given operations in order (apply lock held), each through the journal.

    ``max_removals``: how many skills may be deleted or evicted; an operation that
    would remove one more stays pending (``held``) for a person to approve.
    """
    # start-up time: see create_proposal
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
        try:
            steps = plan_operation(paths, settings, item.op, now, by)
        except (SkillError, NoteError) as exc:
            item.reason = str(exc)
            failed.append(f"operation {item.index}: {exc}")
            _save(paths, proposal)
            continue
        removes = sum(s.action in journal.REMOVALS for s in steps)
        if max_removals is not None and removes and removed + removes > max_removals:
            item.reason = HELD
            held.append(f"operation {item.index}: {HELD}")
            _save(paths, proposal)
            continue
        first = int(next_id(history_dir(paths), paths.id, "c").rsplit(".c", 1)[1])
        steps = [journal.Step(**{**asdict(s), "change": f"{paths.id}.c{first + i}"}) for i, s in enumerate(steps)]
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
            _save(paths, proposal)
        journal.clear(paths)
        raise
    changes = []
    if apply:
        changes = [_recorded(paths, record, step, at) for step in steps]
        if proposal is not None and item is not None:
            item.status, item.reason, item.decided_at, item.changes = APPLIED, None, record["at"], [c.id for c in changes]
            _save(paths, proposal)
    else:
        reverted = _change_file(paths, record["revert"])
        if reverted is not None and not reverted.reverted_at:
            changes = [mark_reverted(paths, reverted, record["at"])]
    for step in steps:
        if step.event:
            log_event(paths, step.event["type"], at, **{k: v for k, v in step.event.items() if k != "type"})
    journal.clear(paths)
    return changes


def _change_file(paths: AgentPaths, change_id: str) -> Change | None:
    """The history entry stored under ``change_id``, or ``None`` (missing or damaged)."""
    try:
        change = Change.from_json(orjson.loads(read_regular(history_dir(paths) / f"{change_id.rsplit('.', 1)[1]}.json")))
    except (OSError, orjson.JSONDecodeError, HistoryError):
        return None
    return change if change.id == change_id else None


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
    existing = _change_file(paths, step.change)
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


def recover_workspace(workspace: Workspace) -> list[str]:
    """:func:`recover_agent` for every agent; one line per agent where something was done."""
    return [line for agent_id in workspace.agent_ids() if (line := recover_agent(workspace.agent(agent_id)))]


def approve(workspace: Workspace, proposal_id: str, now: datetime, index: int | None = None) -> tuple[Proposal, ApplyResult]:
    """Apply every pending operation, or only operation ``index``."""
    paths, _ = load_proposal(workspace, proposal_id)
    with apply_lock(paths):
        _recover_locked(paths)
        _, proposal = load_proposal(workspace, proposal_id)
        result = apply_pending(paths, workspace.settings, proposal, _targets(proposal, index), now, by="approval")
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
        _save(paths, proposal)
    return proposal


def edit_operation(workspace: Workspace, proposal_id: str, index: int, fields: dict) -> Proposal:
    """Change fields of a not-yet-applied operation; refused (nothing saved) unless the result is valid."""
    # start-up time: see create_proposal
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
        _save(paths, proposal)
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
