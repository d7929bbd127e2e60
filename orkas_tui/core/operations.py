"""The model's answer: parsed, every operation validated before anything is written, then applied.

Validation walks the operations in order over a view of the skills as they would
be after the earlier ones, so a patch of a skill created in the same answer is
checked against that skill's body. Applying an operation re-checks it against the
disk, writes through the skill and note stores (atomic, conflict-checked, logged
to ``events.jsonl``) and records each change, with before and after text, in the
agent's history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import orjson

from orkas_tui.config import Settings
from orkas_tui.core import guard
from orkas_tui.core.files import read_versioned
from orkas_tui.core.history import Change, record_change
from orkas_tui.core.notes import NOTES, SelfNotes, over_cap_message
from orkas_tui.core.skills import SkillError, SkillStore, eviction_candidate, slugify
from orkas_tui.core.workspace import SLUG, AgentPaths

REQUIRED = {
    "create_skill": ("name", "description", "body"),
    "patch_skill": ("skill", "find", "replace"),
    "delete_skill": ("skill", "reason"),
    "update_self": ("note", "content"),
}
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


class ReplyError(ValueError):
    """The reply is not the expected JSON object; nothing is written."""


@dataclass(frozen=True)
class Answer:
    summary: str
    operations: list[object]


def parse_reply(text: str) -> Answer:
    """The ``{"summary", "operations"}`` object (a Markdown code fence around it is tolerated)."""
    too_large = guard.reply_too_large(text or "")
    if too_large:
        raise ReplyError(too_large)
    fenced = _FENCE.match(text or "")
    raw = fenced.group(1) if fenced else (text or "")
    try:
        value = orjson.loads(raw.strip())
    except orjson.JSONDecodeError as exc:
        raise ReplyError(f"the reply is not JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise ReplyError("the reply is JSON but not an object")
    operations = value.get("operations")
    if not isinstance(operations, list):
        raise ReplyError('the reply has no "operations" list')
    summary = value.get("summary", "")
    if not isinstance(summary, str):
        raise ReplyError('"summary" must be a string')
    return Answer(summary.strip(), operations)


class _View:
    """Skill bodies as they would be after the operations checked so far."""

    def __init__(self, store: SkillStore) -> None:
        self.store = store
        self.bodies: dict[str, str | None] = {}

    def body(self, slug: str) -> str | None:
        if slug not in self.bodies:
            try:
                self.bodies[slug] = self.store.get(slug).body
            except SkillError:
                self.bodies[slug] = None
        return self.bodies[slug]


def _problem(op: object, view: _View, settings: Settings) -> str | None:
    """Why this operation cannot be applied, or ``None`` when it can (updates the view)."""
    if not isinstance(op, dict):
        return "an operation must be a JSON object"
    kind = op.get("op")
    if kind not in REQUIRED:
        return f"unknown op {kind!r} (one of {', '.join(REQUIRED)})"
    missing = [f for f in REQUIRED[kind] if not isinstance(op.get(f), str)]
    if missing:
        return f"{kind}: missing or non-string field(s): {', '.join(missing)}"
    refused = guard.refusal(op, settings.bundle.redact_patterns)
    if refused:
        return f"{kind}: {refused}"
    limit = settings.max_skill_body_chars
    if kind == "create_skill":
        if not op["name"].strip():
            return "create_skill: the name is empty"
        if not op["body"].strip():
            return "create_skill: the body is empty"
        if len(op["body"]) > limit:
            return f"create_skill: the body is {len(op['body']):,} characters, over the {limit:,} limit"
        slug = slugify(op["name"])
        if view.body(slug) is not None:
            return f"create_skill: a skill {slug!r} already exists; patch it instead"
        view.bodies[slug] = op["body"]
        return None
    if kind == "update_self":
        if op["note"] not in NOTES:
            return f"update_self: unknown note {op['note']!r} (one of {', '.join(NOTES)})"
        return over_cap_message(op["note"], len(op["content"]), settings.note_cap(op["note"]))
    slug = op["skill"]
    if not SLUG.match(slug):
        return f"{kind}: {slug!r} is not a skill slug inside the agent's skills/ folder"
    body = view.body(slug)
    if body is None:
        return f"{kind}: no skill {slug!r}"
    if kind == "delete_skill":
        view.bodies[slug] = None
        return None
    if not op["find"]:
        return "patch_skill: the fragment to find is empty"
    count = body.count(op["find"])
    if count != 1:
        return f"patch_skill: the fragment to find occurs {count} times in {slug} (it must occur exactly once)"
    patched = body.replace(op["find"], op["replace"], 1)
    if len(patched) > limit:
        return f"patch_skill: the patched body would be {len(patched):,} characters, over the {limit:,} limit"
    if not patched.strip():
        return "patch_skill: the patch would leave an empty body; delete the skill instead"
    view.bodies[slug] = patched
    return None


def check_operations(operations: list[object], paths: AgentPaths, settings: Settings) -> list[str | None]:
    """One problem (or ``None``) per operation, checked in order against the current files."""
    view = _View(SkillStore(paths, settings))
    return [_problem(op, view, settings) for op in operations]


def _text(path) -> str | None:
    data, _ = read_versioned(path)
    return None if data is None else data.decode("utf-8", "replace")


def apply_operation(paths: AgentPaths, settings: Settings, op: dict, now: datetime, by: str,
                    proposal: str | None = None, op_index: int | None = None) -> list[Change]:
    """Apply one valid operation; return the history entries written (hold the apply lock).

    Raises :class:`SkillError`, :class:`~orkas_tui.core.notes.NoteError` or
    :class:`~orkas_tui.core.files.ConflictError` when the files no longer allow it.
    """
    problem = check_operations([op], paths, settings)[0]
    if problem:
        raise SkillError(problem)
    store = SkillStore(paths, settings)
    kind = op["op"]
    origin = {"by": by, "proposal": proposal, "op_index": op_index}
    changes: list[Change] = []
    if kind == "create_skill":
        existing, _ = store.load_all()
        victim = eviction_candidate(existing) if len(existing) >= settings.max_skills else None
        victim_text = _text(paths.skill(victim.slug)) if victim else None
        skill, evicted = store.create(op["name"], op["description"], op["body"], now, by=by)
        if evicted is not None:
            changes.append(record_change(paths, now, action="evict_skill", kind="skill", target=evicted.slug,
                                         before=victim_text, after=None, **origin))
        changes.append(record_change(paths, now, action=kind, kind="skill", target=skill.slug,
                                     before=None, after=_text(paths.skill(skill.slug)), **origin))
    elif kind in ("patch_skill", "delete_skill"):
        slug = op["skill"]
        current = store.get(slug)
        before = _text(paths.skill(slug))
        if kind == "patch_skill":
            store.patch(slug, op["find"], op["replace"], now, by=by, expected=current.version)
        else:
            store.delete(slug, now, expected=current.version, reason=op["reason"], by=by)
        changes.append(record_change(paths, now, action=kind, kind="skill", target=slug,
                                     before=before, after=_text(paths.skill(slug)), **origin))
    else:
        notes = SelfNotes(paths, settings)
        note = notes.read(op["note"])
        before = _text(paths.note(op["note"]))
        notes.write(op["note"], op["content"], expected=note.version, now=now, by=by)
        changes.append(record_change(paths, now, action=kind, kind="note", target=op["note"],
                                     before=before, after=_text(paths.note(op["note"])), **origin))
    return changes
