"""Proposals: a reflection's operations waiting for a person, approved or rejected one by one.

A proposal is a numbered record (:mod:`orkas_tui.core.store.records`),
``<agent>/.orkas/proposals/p<N>.json``, id ``<agent>.p<N>``. Each operation has a
status: ``pending``, ``applied``, ``rejected`` or ``invalid`` (with the reason). A pending
operation may also be quarantined (:mod:`orkas_tui.core.store.provenance`): it rests on no
word the user typed, or repeats a tool's output; only a person's explicit confirmation of
that one operation applies it.
Approving, rejecting and editing one are in :mod:`orkas_tui.core.store.changes`,
which journals every apply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any

import msgspec

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.repos import worktree_top
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.journal import apply_lock
from orkas_tui.core.store.provenance import Quarantine, Source, cited, judge
from orkas_tui.core.store.records import Record, RecordId, RecordStore
from orkas_tui.core.store.scopes import load_places

PENDING, APPLIED, REJECTED, INVALID = "pending", "applied", "rejected", "invalid"
LEGACY_APPLYING = "applying"  # written before the journal existed; read as pending


class ProposalError(OrkasError, ValueError):
    """A proposal or one of its operations cannot be used as asked; nothing was written."""


class ProposedOp(msgspec.Struct, kw_only=True):
    index: int
    op: Any = None
    status: str
    reason: str | None = None
    changes: list[str] = msgspec.field(default_factory=list)
    decided_at: str | None = None
    quarantine: Quarantine | None = None
    cwds: list[str] | None = None  # the folders the sessions of its sources ran in ("": unknown); None: not known
    files: list[str] | None = None  # the files the agent edited after the prompts it cites (absolute when known)

    @property
    def held(self) -> bool:
        """Quarantined and not confirmed by a person: never applied automatically or with the others."""
        return self.quarantine is not None and self.quarantine.confirmed_at is None

    def __post_init__(self) -> None:
        if self.status == LEGACY_APPLYING:
            self.status = PENDING
        if self.status not in (PENDING, APPLIED, REJECTED, INVALID):
            raise ValueError(f"operation {self.index} has an unknown status")
        if not all(RecordId.parse(c, "c") for c in self.changes):
            raise ValueError(f"operation {self.index} has malformed change ids")


class Proposal(Record, kw_only=True):
    created_at: str
    summary: str
    operations: list[ProposedOp]
    reflection: dict[str, Any] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        if any(o.index != i for i, o in enumerate(self.operations)):
            raise ValueError("an operation's index is not its place in the list")

    @property
    def status(self) -> str:
        states = {o.status for o in self.operations}
        if PENDING in states:
            return PENDING
        if not states or states <= {REJECTED, INVALID}:
            return REJECTED
        return APPLIED if states == {APPLIED} else "decided"

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "status": self.status}


PROPOSALS = RecordStore("proposals", "p", Proposal, "proposal", ProposalError)


def create_proposal(
    paths: AgentPaths,
    settings: Settings,
    summary: str,
    operations: Sequence[object],
    now: datetime,
    reflection: dict,
    sources: Mapping[str, Source] | None = None,
) -> Proposal:
    """Store a reflection's answer, each operation checked and marked pending or invalid; with ``sources``
    (the bundle's, what the answer cites), each is also checked for where it comes from and quarantined
    when it rests on no word the user typed."""
    # start-up time: operations loads pydantic and the guard's patterns, which status (recovery only) never uses
    from orkas_tui.core.store.operations import check_operations, normalized

    problems = check_operations(operations, paths, settings)
    places = load_places(paths) if sources is not None else {}
    ops = []
    for i, (op, problem) in enumerate(zip(operations, problems, strict=True)):
        held = None
        if problem is None and sources is not None and isinstance(op, dict):
            problem, held = judge(op, cited(op), sources)
        ops.append(
            ProposedOp(
                index=i,
                op=op if problem else normalized(op),
                status=INVALID if problem else PENDING,
                reason=problem,
                quarantine=held,
                cwds=None if sources is None or not isinstance(op, dict) else _cwds(op, sources, places),
                files=None if sources is None or not isinstance(op, dict) else _files(op, sources, places),
            )
        )
    with apply_lock(paths):
        number = PROPOSALS.next_number(paths)
        proposal = Proposal(
            id=str(RecordId(paths.id, "p", number)),
            agent=paths.id,
            created_at=format_ts(now),
            summary=summary,
            operations=ops,
            reflection=reflection,
        )
        PROPOSALS.save(paths, proposal)
    return proposal


def _cwds(op: Mapping[str, object], sources: Mapping[str, Source], places: Mapping[str, str]) -> list[str]:
    """The folders the conversations an operation cites ran in, once each (``""``: a conversation with no known folder)."""
    conversations = {sources[c].conversation for c in cited(op) if c in sources and sources[c].conversation}
    return sorted({places.get(str(conv), "") for conv in conversations})


def _files(op: Mapping[str, object], sources: Mapping[str, Source], places: Mapping[str, str]) -> list[str]:
    """The files the agent edited after the prompts an operation cites, relative to the working tree each lies
    in (``src/api/routes.py``). One that cannot be placed (a relative path of a session with no known folder, a
    file in no repository) makes it none: the lesson is then about no file in particular, never a narrower set."""
    found = set()
    for c in cited(op):
        source = sources.get(c)
        if source is None:
            continue
        folder = places.get(str(source.conversation), "")
        for name in source.edited:
            path = Path(name) if PurePath(name).is_absolute() else Path(folder) / name if folder else None
            top = worktree_top(path) if path is not None else None
            if path is None or top is None:
                return []
            found.add(path.relative_to(top).as_posix())
    return sorted(found)


list_proposals = PROPOSALS.list  # every readable proposal of one agent, oldest first
load_proposal = PROPOSALS.load  # a proposal by its id, with its agent's paths
