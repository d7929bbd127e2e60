"""The history of applied changes: before and after text, and one-at-a-time revert.

Each applied change is one JSON file, ``<agent>/.orkas/history/c<N>.json``, named
``<agent>.c<N>`` so any command can find it from the id alone. A revert puts the
*before* text back only if the file still holds exactly the *after* text; a file
changed since (by a person or a later change) is refused with a message.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.core.events import log_event
from orkas_tui.core.files import ConflictError, atomic_write, current_version, read_versioned, remove_file, version_of
from orkas_tui.core.timefmt import format_ts
from orkas_tui.core.workspace import AgentPaths, Workspace, WorkspaceError

ID = re.compile(r"^([a-z0-9_-]{1,64})\.([pc])([0-9]{1,9})$")


class HistoryError(ValueError):
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

    def path_in(self, paths: AgentPaths) -> Path:
        return paths.skill(self.target) if self.kind == "skill" else paths.note(self.target)


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


def record_change(paths: AgentPaths, now: datetime, **fields) -> Change:
    """Write a new history entry (call with the agent's apply lock held)."""
    change = Change(id=next_id(history_dir(paths), paths.id, "c"), agent=paths.id, at=format_ts(now), **fields)
    _save(paths, change)
    return change


def list_changes(paths: AgentPaths) -> list[Change]:
    """Every recorded change of one agent, oldest first."""
    folder = history_dir(paths)
    changes = []
    if folder.is_dir():
        for entry in folder.glob("c*.json"):
            try:
                changes.append(Change(**orjson.loads(read_versioned(entry)[0])))
            except (OSError, orjson.JSONDecodeError, TypeError):
                continue
    return sorted(changes, key=lambda c: int(c.id.rsplit(".c", 1)[1]))


def load_change(workspace: Workspace, change_id: str) -> tuple[AgentPaths, Change]:
    agent, stem = split_id(change_id, "c")
    try:
        paths = workspace.agent(agent)
        return paths, Change(**orjson.loads(read_versioned(history_dir(paths) / f"{stem}.json")[0]))
    except (WorkspaceError, FileNotFoundError, orjson.JSONDecodeError, TypeError) as exc:
        raise HistoryError(f"no change {change_id!r}") from exc


def revert(paths: AgentPaths, change: Change, now: datetime) -> Change:
    """Put the before text back if the file still holds the after text (apply lock held)."""
    if change.reverted_at:
        raise HistoryError(f"change {change.id} was already reverted at {change.reverted_at}")
    path = change.path_in(paths)
    expected = version_of(change.after.encode("utf-8")) if change.after is not None else None
    if current_version(path) != expected:
        raise HistoryError(
            f"{path.relative_to(paths.root)} changed since change {change.id}; not reverted "
            "(revert later changes first, or restore it by hand)"
        )
    try:
        if change.before is None:
            remove_file(path, expected=expected)
        else:
            atomic_write(path, change.before, expected=expected)
    except ConflictError as exc:
        raise HistoryError(f"{path.relative_to(paths.root)} changed while reverting {change.id}; not reverted") from exc
    change.reverted_at = format_ts(now)
    _save(paths, change)
    log_event(paths, "change_reverted", now, change=change.id, action=change.action, target_kind=change.kind, target=change.target, by="user")
    return change
