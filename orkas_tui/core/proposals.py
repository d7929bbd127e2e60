"""Proposals: a reflection's operations waiting for a person, approved or rejected one by one.

A proposal is ``<agent>/.orkas/proposals/p<N>.json`` (id ``<agent>.p<N>``). Each
operation has a status: ``pending``, ``applied``, ``rejected`` or ``invalid``
(with the reason). Approving runs under the agent's apply lock, re-reads the
proposal and skips operations already applied, and the history is checked too,
so approving the same proposal twice never applies an operation twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime

import orjson

from orkas_tui.config import Settings
from orkas_tui.core.files import ConflictError, atomic_write, current_version, file_lock, read_versioned
from orkas_tui.core.history import Change, HistoryError, list_changes, load_change, next_id, revert, split_id
from orkas_tui.core.notes import NoteError
from orkas_tui.core.operations import apply_operation, check_operations
from orkas_tui.core.skills import SkillError, slugify
from orkas_tui.core.timefmt import format_ts
from orkas_tui.core.workspace import AgentPaths, Workspace, WorkspaceError

PENDING, APPLIED, REJECTED, INVALID = "pending", "applied", "rejected", "invalid"
APPLYING = "applying"  # saved before the write: after a crash, the file's version tells whether it happened


class ProposalError(ValueError):
    """A proposal or one of its operations cannot be used as asked; nothing was written."""


@dataclass
class ProposedOp:
    index: int
    op: object
    status: str
    reason: str | None = None
    changes: list[str] = field(default_factory=list)
    decided_at: str | None = None
    before: str | None = None  # with APPLYING: the target file's version before the write


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
        if PENDING in states or APPLYING in states:
            return PENDING
        if not states or states <= {REJECTED, INVALID}:
            return REJECTED
        return APPLIED if states == {APPLIED} else "decided"

    def to_json(self) -> dict:
        data = asdict(self)
        data["status"] = self.status
        return data

    @classmethod
    def from_json(cls, data: dict) -> "Proposal":
        data = {k: v for k, v in data.items() if k != "status"}
        data["operations"] = [ProposedOp(**o) for o in data["operations"]]
        return cls(**data)


def proposals_dir(paths: AgentPaths):
    return paths.private / "proposals"


@contextmanager
def apply_lock(paths: AgentPaths) -> Iterator[None]:
    """Serialises every write of applied changes, proposals and history for one agent."""
    paths.require_safe()  # a linked-out or special folder or events.jsonl: refused before anything is touched
    with file_lock(paths.private / "apply.lock"):
        yield


def _save(paths: AgentPaths, proposal: Proposal) -> None:
    stem = proposal.id.split(".", 1)[1]
    atomic_write(proposals_dir(paths) / f"{stem}.json", orjson.dumps(proposal.to_json(), option=orjson.OPT_INDENT_2) + b"\n")


def create_proposal(paths: AgentPaths, settings: Settings, summary: str, operations: list[object],
                    now: datetime, reflection: dict) -> Proposal:
    """Store a reflection's answer, each operation checked and marked pending or invalid."""
    problems = check_operations(operations, paths, settings)
    ops = [ProposedOp(i, op, INVALID if p else PENDING, p) for i, (op, p) in enumerate(zip(operations, problems))]
    with apply_lock(paths):
        proposal = Proposal(next_id(proposals_dir(paths), paths.id, "p"), paths.id, format_ts(now), summary, ops, reflection)
        _save(paths, proposal)
    return proposal


def list_proposals(paths: AgentPaths) -> list[Proposal]:
    folder = proposals_dir(paths)
    found = []
    if folder.is_dir():
        for entry in folder.glob("p*.json"):
            try:
                found.append(Proposal.from_json(orjson.loads(read_versioned(entry)[0])))
            except (OSError, orjson.JSONDecodeError, TypeError, KeyError):
                continue
    return sorted(found, key=lambda p: int(p.id.rsplit(".p", 1)[1]))


def load_proposal(workspace: Workspace, proposal_id: str) -> tuple[AgentPaths, Proposal]:
    try:
        agent, stem = split_id(proposal_id, "p")
        paths = workspace.agent(agent)
        return paths, Proposal.from_json(orjson.loads(read_versioned(proposals_dir(paths) / f"{stem}.json")[0]))
    except (HistoryError, WorkspaceError, FileNotFoundError, orjson.JSONDecodeError, TypeError, KeyError) as exc:
        raise ProposalError(f"no proposal {proposal_id!r}") from exc


def _targets(proposal: Proposal, index: int | None) -> list[ProposedOp]:
    if index is None:
        return [o for o in proposal.operations if o.status in (PENDING, APPLYING)]
    if not 0 <= index < len(proposal.operations):
        raise ProposalError(f"proposal {proposal.id} has no operation {index} (0 to {len(proposal.operations) - 1})")
    return [proposal.operations[index]]


@dataclass(frozen=True)
class ApplyResult:
    applied: list[Change]
    skipped: list[str]
    failed: list[str]


def apply_pending(paths: AgentPaths, settings: Settings, proposal: Proposal, targets: list[ProposedOp],
                  now: datetime, by: str) -> ApplyResult:
    """Apply the given operations in order (apply lock held); save the proposal after each."""
    done = {(c.proposal, c.op_index) for c in list_changes(paths)}
    applied, skipped, failed = [], [], []
    for item in targets:
        if item.status == APPLIED or (proposal.id, item.index) in done:
            skipped.append(f"operation {item.index}: already applied")
            continue
        target = _target(paths, item.op) if item.status in (PENDING, APPLYING) else None
        if item.status == APPLYING:
            if current_version(target) != item.before:
                item.status, item.decided_at = APPLIED, format_ts(now)
                item.reason = "written before a crash (no history entry); not applied again"
                skipped.append(f"operation {item.index}: already applied before a crash")
                _save(paths, proposal)
                continue
            item.status = PENDING
        if item.status != PENDING:
            failed.append(f"operation {item.index}: {item.status}" + (f" ({item.reason})" if item.reason else ""))
            continue
        item.status, item.before = APPLYING, current_version(target)
        _save(paths, proposal)
        try:
            changes = apply_operation(paths, settings, item.op, now, by, proposal.id, item.index)
        except (SkillError, NoteError, ConflictError) as exc:
            item.status, item.reason = PENDING, str(exc)
            failed.append(f"operation {item.index}: {exc}")
            _save(paths, proposal)
            continue
        item.status, item.reason, item.decided_at = APPLIED, None, format_ts(now)
        item.changes = [c.id for c in changes]
        applied.extend(changes)
        _save(paths, proposal)
    return ApplyResult(applied, skipped, failed)


def _target(paths: AgentPaths, op: dict):
    """The one file an operation writes (a pending operation is valid, so its slug or note is too)."""
    if op["op"] == "create_skill":
        return paths.skill(slugify(op["name"]))
    if op["op"] == "update_self":
        return paths.note(op["note"])
    return paths.skill(op["skill"])


def approve(workspace: Workspace, proposal_id: str, now: datetime, index: int | None = None) -> tuple[Proposal, ApplyResult]:
    """Apply every pending operation, or only operation ``index``."""
    paths, _ = load_proposal(workspace, proposal_id)
    with apply_lock(paths):
        _, proposal = load_proposal(workspace, proposal_id)
        result = apply_pending(paths, workspace.settings, proposal, _targets(proposal, index), now, by="approval")
    return proposal, result


def reject(workspace: Workspace, proposal_id: str, now: datetime, index: int | None = None) -> Proposal:
    """Reject every pending operation, or only operation ``index`` (an applied one stays applied)."""
    paths, _ = load_proposal(workspace, proposal_id)
    with apply_lock(paths):
        _, proposal = load_proposal(workspace, proposal_id)
        for item in _targets(proposal, index):
            if item.status == APPLIED:
                raise ProposalError(f"operation {item.index} is already applied; revert its change instead ({', '.join(item.changes)})")
            item.status, item.decided_at = REJECTED, format_ts(now)
        _save(paths, proposal)
    return proposal


def edit_operation(workspace: Workspace, proposal_id: str, index: int, fields: dict) -> Proposal:
    """Change fields of a not-yet-applied operation; refused (nothing saved) unless the result is valid."""
    paths, _ = load_proposal(workspace, proposal_id)
    with apply_lock(paths):
        _, proposal = load_proposal(workspace, proposal_id)
        item = _targets(proposal, index)[0]
        if item.status == APPLIED:
            raise ProposalError(f"operation {index} is already applied; it cannot be edited")
        edited = dict(item.op) if isinstance(item.op, dict) else {}
        edited.update(fields)
        problem = check_operations([edited], paths, workspace.settings)[0]
        if problem:
            raise ProposalError(f"operation {index} not changed: {problem}")
        item.op, item.status, item.reason = edited, PENDING, None
        _save(paths, proposal)
    return proposal


def revert_change(workspace: Workspace, change_id: str, now: datetime) -> Change:
    """Undo one applied change, refusing if its file changed since."""
    paths, _ = load_change(workspace, change_id)
    with apply_lock(paths):
        paths, change = load_change(workspace, change_id)
        return revert(paths, change, now)
