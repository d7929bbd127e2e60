"""The write-ahead journal: an apply or a revert is written down, fsynced, before any file is touched.

One intent at a time per agent (under its apply lock), in ``<agent>/.orkas/journal.json``:
what is being done (``apply`` of a proposal's operation, or ``revert`` of a change)
and one *step* per file with its whole text before and after, the history id
reserved for it and the event to log. After a crash the next command finds the
intent and finishes it: every file that still holds its *before* text gets its
*after* text. A file that holds neither (a person edited it since) is never
overwritten: the steps already written are put back to *before* and the
operation is left undone. The journal is removed only once the files, the history
and the proposal agree, so a kill at any moment leaves it to be finished.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import NoReturn

import orjson

from orkas_tui.core.disk.confine import current_version, read_versioned, version_of
from orkas_tui.core.disk.write import ConflictError, atomic_write, file_lock, remove_file
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.read.workspace import SLUG, AgentPaths
from orkas_tui.core.store.notes import NOTES
from orkas_tui.core.store.records import RecordId

ACTIONS = (
    "create_skill",
    "patch_skill",
    "delete_skill",
    "evict_skill",
    "update_self",
    "edit_skill",
)  # edit_skill: a person's edit (core/store/user_edits.py)
REMOVALS = ("delete_skill", "evict_skill")  # the actions that remove a skill file


class JournalError(OrkasError, ValueError):
    """The journal cannot be used as written (damaged or tampered with); nothing was done."""


@dataclass(frozen=True)
class Step:
    """One file's change: its whole text before and after (``None``: no file)."""

    action: str
    kind: str  # "skill" or "note"
    target: str  # the skill slug or the note name
    before: str | None
    after: str | None
    change: str = ""  # the history id reserved for it
    event: dict | None = None  # the events.jsonl entry to log once it is done: {"type": ..., fields}

    def path_in(self, paths: AgentPaths) -> Path:
        return target_path(paths, self.kind, self.target)


def target_problem(kind: object, target: object) -> str | None:
    """Why a step or a history entry does not name a skill or a note of the agent, or ``None``."""
    if (kind == "skill" and isinstance(target, str) and SLUG.fullmatch(target)) or (kind == "note" and target in NOTES):
        return None
    return f"{str(kind)[:20]!r} {str(target)[:80]!r} is neither a skill slug nor a note name"


def target_path(paths: AgentPaths, kind: str, target: str) -> Path:
    if problem := target_problem(kind, target):
        raise JournalError(problem)
    return paths.skill(target) if kind == "skill" else paths.note(target)


def journal_path(paths: AgentPaths) -> Path:
    return paths.private / "journal.json"


@contextlib.contextmanager
def apply_lock(paths: AgentPaths, deadline: float | None = None) -> Iterator[None]:
    """Serialises every write of applied changes, proposals and history for one agent.

    ``deadline``: see :func:`file_lock` (a hook's import waits for an approve only that long).
    """
    paths.require_safe()  # a linked-out or special folder or events.jsonl: refused before anything is touched
    with file_lock(paths.private / "apply.lock", deadline=deadline):
        yield


def begin(paths: AgentPaths, intent: dict, steps: list[Step]) -> dict:
    """Write the intent (fsynced, with its folder) before anything it names is touched."""
    record = {**intent, "steps": [asdict(s) for s in steps]}
    atomic_write(journal_path(paths), orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n")
    return record


def pending(paths: AgentPaths) -> dict | None:
    """The unfinished intent, checked like any untrusted input; ``None`` when there is none."""
    try:
        data, _ = read_versioned(journal_path(paths))
    except OSError as exc:
        raise JournalError(f".orkas/journal.json cannot be read ({exc.strerror})") from exc
    if data is None:
        return None
    try:
        record = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise JournalError(".orkas/journal.json is not JSON") from exc
    return _checked(record)


def steps_of(record: dict) -> list[Step]:
    return [Step(**s) for s in record["steps"]]


def time_of(record: dict) -> datetime:
    """When the intent was made (its time was checked when the journal was read or written)."""
    at = parse_ts(record["at"])
    if at is None:
        _damaged("no time")
    return at


def reserved_changes(paths: AgentPaths) -> list[str]:
    """History ids an unfinished intent has reserved (a new change never takes one)."""
    with contextlib.suppress(JournalError):
        record = pending(paths)
        if record is not None:
            return [s["change"] for s in record["steps"] if s["change"]]
    return []


def clear(paths: AgentPaths) -> None:
    remove_file(journal_path(paths), force=True)


def write_steps(paths: AgentPaths, steps: list[Step]) -> None:
    """Give every file its *after* text; one holding neither text rolls every step back.

    Idempotent: a file already at *after* is left alone, so a finished step is never
    written twice. Raises :class:`ConflictError` (after the roll-back) on a file changed by someone else.
    """
    states = [_state(paths, s) for s in steps]
    if "other" in states:
        for step, state in zip(steps, states, strict=True):
            if state == "after" and step.before != step.after:
                _put(step.path_in(paths), step.before, expected=_version(step.after))
        changed = next(s for s, state in zip(steps, states, strict=True) if state == "other")
        raise ConflictError(
            changed.path_in(paths),
            f"{changed.path_in(paths).relative_to(paths.root)} changed on disk since it was read; nothing was applied",
        )
    for step, state in zip(steps, states, strict=True):
        if state == "before":
            _put(step.path_in(paths), step.after, expected=_version(step.before))


def _state(paths: AgentPaths, step: Step) -> str:
    version = current_version(step.path_in(paths))
    if version == _version(step.after):
        return "after"
    return "before" if version == _version(step.before) else "other"


def _version(text: str | None) -> str | None:
    return None if text is None else version_of(text.encode("utf-8"))


def _put(path: Path, text: str | None, expected: str | None) -> None:
    if text is None:
        remove_file(path, expected=expected)
    else:
        atomic_write(path, text, expected=expected)


def _damaged(what: str) -> NoReturn:
    raise JournalError(f".orkas/journal.json is damaged ({what}); nothing was done. Check the files it names, then move it away")


def _checked(record: object) -> dict:
    def need(ok: bool, what: str) -> None:
        if not ok:
            _damaged(what)

    if not isinstance(record, dict):
        _damaged("not an object")
    kind = record.get("kind")
    need(kind in ("apply", "revert"), "unknown kind")
    need(isinstance(record.get("by"), str), "no by")
    need(isinstance(record.get("at"), str) and parse_ts(record["at"]) is not None, "no time")
    if kind == "apply":
        need(isinstance(record.get("proposal"), str) and type(record.get("op_index")) is int, "no proposal operation")
    else:
        need(RecordId.parse(record.get("revert"), "c") is not None, "no change to revert")
    steps = record.get("steps")
    if not (isinstance(steps, list) and 0 < len(steps) <= 2):
        _damaged("no steps")
    for step in steps:
        need(
            isinstance(step, dict) and set(step) == {"action", "kind", "target", "before", "after", "change", "event"},
            "a step's keys",
        )
        need(step["action"] in ACTIONS, "a step's action")
        problem = target_problem(step["kind"], step["target"])
        need(problem is None, problem or "")
        need(all(step[k] is None or isinstance(step[k], str) for k in ("before", "after")), "a step's text")
        need(
            step["change"] == "" or RecordId.parse(step["change"], "c") is not None,
            "a step's change id",
        )
        need(
            step["event"] is None or (isinstance(step["event"], dict) and isinstance(step["event"].get("type"), str)),
            "a step's event",
        )
    return record
