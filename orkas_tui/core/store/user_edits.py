"""A person's own edits of skills and notes, recorded in history like a reflection's.

Each save is checked first (a skill keeps a name and a description and front matter that
parses; a note stays under its cap) and refused with the reason, nothing written. A save
that goes through writes the file under the agent's apply lock and records one change
(``by: "user"``) with its before and after text, so :func:`~orkas_tui.core.store.changes.revert_change`
undoes it exactly as it undoes an applied proposal. An agent linked in ``orkas.toml`` is
then exported, as after an approval (:func:`~orkas_tui.core.store.export.export_linked`):
what the person wrote is what the linked agent reads next; the result is in events.jsonl.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.export import export_linked, hand_edit, overwrite_hand_edit
from orkas_tui.core.store.history import Change, record_change
from orkas_tui.core.store.journal import apply_lock
from orkas_tui.core.store.notes import NOTES, SelfNotes
from orkas_tui.core.store.skills import Skill, SkillError, SkillStore, parse_skill
from orkas_tui.core.store.system_events import log_event

BY = "user"


def _text(path: Path) -> str | None:
    data, _ = read_versioned(path)
    return None if data is None else data.decode("utf-8", "replace")


def edit_skill(
    paths: AgentPaths,
    settings: Settings,
    slug: str,
    description: str,
    body: str,
    expected: str | None,
    now: datetime,
    force: bool = False,
) -> tuple[Skill, Change]:
    """Save a person's description and body; raises :class:`SkillError` (or ``ConflictError``) with nothing written."""
    if not description.strip():
        raise SkillError(f"{slug}.md: the description is empty; it is what the agent reads to choose the skill. Not saved")
    store = SkillStore(paths, settings)
    with apply_lock(paths):
        before = _text(store.paths.skill(slug))
        saved = store.edit(slug, description, body, expected, now, force=force)
        change = record_change(
            paths, now, by=BY, action="edit_skill", kind="skill", target=slug, before=before, after=_text(paths.skill(slug))
        )
        export_linked(paths, settings, now)
    return saved, change


def save_skill_text(
    paths: AgentPaths, settings: Settings, slug: str, text: str, expected: str | None, now: datetime, force: bool = False
) -> tuple[Skill, Change]:
    """Save a whole skill file as a person wrote it (how a broken one is fixed), if it is a valid skill."""
    payload = text.encode("utf-8")
    skill = parse_skill(slug, payload)  # raises SkillError: not valid YAML, no name
    if not skill.description:
        raise SkillError(f"{slug}.md: front matter has no description; not saved")
    if len(skill.body) > settings.max_skill_body_chars:
        raise SkillError(
            f"{slug}.md: the body is {len(skill.body):,} characters, over the {settings.max_skill_body_chars:,} limit; not saved"
        )
    path = paths.skill(slug)
    with apply_lock(paths):
        before = _text(path)
        atomic_write(path, payload, expected=... if force else expected)
        log_event(paths, "skill_edited", now, skill=slug, by=BY)
        change = record_change(paths, now, by=BY, action="edit_skill", kind="skill", target=slug, before=before, after=text)
        export_linked(paths, settings, now)
    return skill, change


def delete_skill(paths: AgentPaths, settings: Settings, slug: str, expected: str | None, now: datetime) -> Change:
    """Delete a skill a person chose to delete; the change keeps its text, so it can be reverted."""
    with apply_lock(paths):
        before = _text(paths.skill(slug))
        SkillStore(paths, settings).delete(slug, now, expected=expected, by=BY)
        change = record_change(paths, now, by=BY, action="delete_skill", kind="skill", target=slug, before=before, after=None)
        export_linked(paths, settings, now)  # the deleted skill's SKILL.md is reported (stale), never deleted
    return change


def save_note(
    paths: AgentPaths, settings: Settings, note: str, text: str, expected: str | None, now: datetime, force: bool = False
) -> tuple[str, Change | None]:
    """Save a self note a person edited; returns its new version and the recorded change
    (``None`` when the text is what the file already held: nothing to undo, nothing recorded)."""
    notes = SelfNotes(paths, settings)
    with apply_lock(paths):
        before = _text(paths.note(note)) if note in NOTES else None
        version = notes.write(note, text, expected, now, by=BY, force=force)
        if before == text or (before is None and not text):
            return version, None
        change = record_change(paths, now, by=BY, action="update_self", kind="note", target=note, before=before, after=text)
        export_linked(paths, settings, now)
    return version, change


def adopt_hand_edit(paths: AgentPaths, settings: Settings, slug: str, now: datetime) -> tuple[Skill, Change]:
    """Take what someone wrote by hand in ``slug``'s exported ``SKILL.md`` into the workspace skill (its
    description and body: a person's edit, recorded and revertable), then write the export's rendering of it
    there, so the copy and the skill say the same again."""
    import frontmatter  # only here: python-frontmatter pulls in yaml

    edit = hand_edit(paths, settings, slug)
    if edit is None:
        raise SkillError(f"{slug}: its exported copy is not edited by hand; nothing to adopt")
    post = frontmatter.loads(edit.theirs)
    skill = SkillStore(paths, settings).get(slug)
    description = post.metadata.get("description")
    body = post.content.lstrip("\n").removeprefix(f"# {skill.name}\n").lstrip("\n")
    version = read_versioned(paths.skill(slug))[1]
    saved, change = edit_skill(
        paths, settings, slug, description if isinstance(description, str) else skill.description, body, version, now
    )
    overwrite_hand_edit(paths, settings, slug, now)
    return saved, change
