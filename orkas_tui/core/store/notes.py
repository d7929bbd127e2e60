"""Self-knowledge: two capped notes, and the block a runtime puts in its system prompt."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from orkas_tui.core.disk.confine import read_versioned, version_of
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.skills import Skill
from orkas_tui.core.store.system_events import log_event

NOTES = ("profile", "strategies")
TITLES = {
    "profile": "What I do well and where I stumble",
    "strategies": "Strategies I use for this user and domain",
}


class NoteError(OrkasError, ValueError):
    """A note write was refused; nothing was written."""


@dataclass(frozen=True)
class Note:
    note: str
    text: str
    version: str | None
    problem: str | None = None


def over_cap_message(note: str, length: int, cap: int) -> str | None:
    if length <= cap:
        return None
    return f"{note}.md would be {length:,} characters, {length - cap:,} over its {cap:,}-character cap; not saved"


class SelfNotes:
    def __init__(self, paths: AgentPaths, settings: Settings) -> None:
        self.paths = paths
        self.settings = settings

    def read(self, note: str) -> Note:
        _check_name(note)
        path = self.paths.note(note)
        if not self.paths.contains(path):
            return Note(note, "", None, problem=f"{note}.md links outside the workspace; not read")
        try:
            data, version = read_versioned(path)
        except OSError as exc:
            return Note(note, "", None, problem=f"{note}.md cannot be read ({exc.strerror})")
        if data is None:
            return Note(note, "", None)
        try:
            return Note(note, data.decode("utf-8"), version)
        except UnicodeDecodeError:
            return Note(note, data.decode("utf-8", "replace"), version, problem=f"{note}.md is not valid UTF-8")

    def write(self, note: str, text: str, expected: str | None, now: datetime, by: str = "user", force: bool = False) -> str:
        """Write a note unless it is over its cap or changed on disk since read."""
        _check_name(note)
        message = over_cap_message(note, len(text), self.settings.note_cap(note))
        if message:
            raise NoteError(message)
        if unsafe := self.paths.unsafe_paths():  # no change (nor its event) through a linked or special folder
            raise NoteError(f"{note}.md not saved: {unsafe[0]}")
        payload = text.encode("utf-8")
        atomic_write(self.paths.note(note), payload, expected=expected, force=force)
        log_event(self.paths, "self_updated", now, note=note, by=by, chars=len(text))
        return version_of(payload)


def _check_name(note: str) -> None:
    if note not in NOTES:
        raise NoteError(f"unknown note {note!r} (one of {', '.join(NOTES)})")


def notes_read(notes: SelfNotes | Mapping[str, Note]) -> Mapping[str, Note]:
    """Every note: as already read (a mapping by name, the picture of an agent holds one), or read now."""
    return notes if isinstance(notes, Mapping) else {note: notes.read(note) for note in NOTES}


def prompt_block(notes: SelfNotes | Mapping[str, Note], skills: list[Skill]) -> str:
    """The self notes (their store, or as already read) and the skill index (``name: description``, one a line)."""
    parts = []
    read = notes_read(notes)
    for note in NOTES:
        text = read[note].text.strip()
        if text:
            parts.append(f"## {TITLES[note]}\n\n{text}")
    if skills:
        index = "\n".join(f"{s.name}: {s.description}" for s in sorted(skills, key=lambda s: s.slug))
        parts.append(f"## Skills (read one by name when it applies)\n\n{index}")
    return "\n\n".join(parts) + ("\n" if parts else "")
