"""The history of applied changes: before and after text, and one-at-a-time revert.

Each applied change is one JSON file, ``<agent>/.orkas/history/c<N>.json``, named
``<agent>.c<N>`` so any command can find it from the id alone. A revert puts the
*before* text back only if the file still holds exactly the *after* text; a file
changed since (by a person or a later change) is refused with a message. An entry
is read as untrusted input: one whose fields are not of their types, or whose
target is not a skill slug or note name, is never acted on.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.files import atomic_write, read_regular
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace, WorkspaceError
from orkas_tui.core.store.journal import ACTIONS, reserved_changes, target_path, target_problem

ID = re.compile(r"^([a-z0-9_-]{1,64})\.([pc])([0-9]{1,9})$")


class HistoryError(OrkasError, ValueError):
    """A change cannot be found or reverted; nothing was written."""


@dataclass
class Change:
    id: str
    agent: str
    at: str
    by: str
    action: str  # create_skill, patch_skill, delete_skill, evict_skill, update_self
    kind: str  # "skill" or "note"
    target: str  # the skill slug or the note name
    before: str | None
    after: str | None
    proposal: str | None = None
    op_index: int | None = None
    reverted_at: str | None = None

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> Change:
        """An entry read from disk, every field checked; :class:`HistoryError` says what is wrong."""
        if not isinstance(data, dict):
            raise HistoryError("not a JSON object")
        known: dict[str, Any] = {k: data.get(k) for k in cls.__dataclass_fields__}
        problems = [k for k in ("id", "agent", "at", "by", "action", "kind", "target") if not isinstance(known[k], str)]
        problems += [k for k in ("before", "after", "proposal", "reverted_at") if not isinstance(known[k], (str, type(None)))]
        if known["op_index"] is not None and type(known["op_index"]) is not int:
            problems.append("op_index")
        if not problems and (not ID.match(known["id"]) or known["action"] not in ACTIONS):
            problems.append("id" if not ID.match(known["id"]) else "action")
        if problems:
            raise HistoryError(f"field(s) of the wrong type or value: {', '.join(problems)}")
        if problem := target_problem(known["kind"], known["target"]):
            raise HistoryError(f"target: {problem}")
        return cls(**known)

    def path_in(self, paths: AgentPaths) -> Path:
        return target_path(paths, self.kind, self.target)


def next_id(folder: Path, agent: str, letter: str) -> str:
    """``<agent>.<letter><N>`` with N one more than the highest already in ``folder``."""
    highest = 0
    if folder.is_dir():
        for entry in folder.iterdir():
            m = re.fullmatch(rf"{letter}([0-9]+)\.json", entry.name)
            if m:
                highest = max(highest, int(m.group(1)))
    return f"{agent}.{letter}{highest + 1}"


def split_id(item_id: str, letter: str) -> tuple[str, str]:
    """The agent and the file stem of an id like ``coder.c3``."""
    m = ID.match(item_id or "")
    if not m or m.group(2) != letter:
        kind = "change" if letter == "c" else "proposal"
        raise HistoryError(f"not a {kind} id: {item_id!r} (like coder.{letter}1)")
    return m.group(1), f"{letter}{m.group(3)}"


def history_dir(paths: AgentPaths) -> Path:
    return paths.private / "history"


def _save(paths: AgentPaths, change: Change) -> None:
    stem = change.id.split(".", 1)[1]
    atomic_write(history_dir(paths) / f"{stem}.json", orjson.dumps(change.to_json(), option=orjson.OPT_INDENT_2) + b"\n")


def record_change(paths: AgentPaths, now: datetime, change_id: str | None = None, **fields) -> Change:
    """Write a history entry (call with the agent's apply lock held).

    ``change_id``: the id a journal step reserved; without it, the next id that no
    unfinished journal step has reserved.
    """
    if change_id is None:
        taken = [int(c.rsplit(".c", 1)[1]) for c in reserved_changes(paths)]
        number = max([int(next_id(history_dir(paths), paths.id, "c").rsplit(".c", 1)[1]), *(n + 1 for n in taken)])
        change_id = f"{paths.id}.c{number}"
    change = Change(id=change_id, agent=paths.id, at=format_ts(now), **fields)
    _save(paths, change)
    return change


def mark_reverted(paths: AgentPaths, change: Change, at: str) -> Change:
    change.reverted_at = at
    _save(paths, change)
    return change


def list_changes(paths: AgentPaths) -> list[Change]:
    """Every recorded change of one agent, oldest first (damaged entries are left out: never acted on)."""
    folder = history_dir(paths)
    changes = []
    if folder.is_dir():
        for entry in folder.glob("c*.json"):
            try:
                change = Change.from_json(orjson.loads(read_regular(entry)))
            except (OSError, orjson.JSONDecodeError, HistoryError):
                continue
            if change.id == f"{paths.id}.{entry.stem}" and change.agent == paths.id:  # else: a copied or renamed entry
                changes.append(change)
    return sorted(changes, key=lambda c: int(c.id.rsplit(".c", 1)[1]))


def load_change(workspace: Workspace, change_id: str) -> tuple[AgentPaths, Change]:
    agent, stem = split_id(change_id, "c")
    try:
        paths = workspace.agent(agent)
        data = orjson.loads(read_regular(history_dir(paths) / f"{stem}.json"))
    except (WorkspaceError, FileNotFoundError, orjson.JSONDecodeError) as exc:
        raise HistoryError(f"no change {change_id!r}") from exc
    try:
        change = Change.from_json(data)
    except HistoryError as exc:
        raise HistoryError(f"change {change_id} is damaged ({exc}); not used") from exc
    if change.id != change_id or change.agent != agent:
        raise HistoryError(f"change {change_id} is damaged (it names {change.id!r}); not used")
    return paths, change
