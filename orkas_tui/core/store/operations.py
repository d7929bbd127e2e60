"""The model's answer: parsed, every operation validated before anything is written, then planned.

The answer is untrusted data: its shape and every field's type are checked against
the typed model in :mod:`orkas_tui.core.store.answer` before any rule reads it.
Validation walks the operations in order over a view of the skills as they would
be after the earlier ones, so a patch of a skill created in the same answer is
checked against that skill's body. Planning an operation re-checks it against the
disk and computes each file's whole text before and after, with the history id and
event of each: what :mod:`orkas_tui.core.store.journal` writes down before applying it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import orjson

from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import SLUG, AgentPaths
from orkas_tui.core.store import guard
from orkas_tui.core.store.answer import parse_envelope, parse_operation
from orkas_tui.core.store.journal import Step
from orkas_tui.core.store.notes import NoteError, SelfNotes, over_cap_message
from orkas_tui.core.store.skills import SkillError, SkillStore, eviction_candidate, meta_problem, slugify

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


class ReplyError(OrkasError, ValueError):
    """The reply is not the expected JSON object; nothing is written. ``errors`` lists every
    problem found (each operation that does not fit), so the model can be asked to fix them all."""

    def __init__(self, *errors: str) -> None:
        super().__init__("; ".join(errors))
        self.errors = list(errors)


@dataclass(frozen=True)
class Answer:
    summary: str
    operations: list[object]


def parse_reply(text: str) -> Answer:
    """The ``{"summary", "operations"}`` object (a Markdown code fence around it is tolerated),
    every operation of the typed model's shape; anything else raises :class:`ReplyError`."""
    too_large = guard.reply_too_large(text or "")
    if too_large:
        raise ReplyError(too_large)
    fenced = _FENCE.match(text or "")
    raw = fenced.group(1) if fenced else (text or "")
    try:
        value = orjson.loads(raw.strip())
    except orjson.JSONDecodeError as exc:
        raise ReplyError(f"the reply is not JSON ({exc})") from exc
    parsed = parse_envelope(value)
    if isinstance(parsed, str):
        raise ReplyError(parsed)
    summary, raw = parsed
    operations: list[object] = []
    errors: list[str] = []
    for index, op in enumerate(raw):
        checked = parse_operation(op)
        if isinstance(checked, str):
            errors.append(f"operation {index} does not fit the answer's schema: {checked}")
        else:
            operations.append(checked)
    if errors:
        raise ReplyError(*errors)
    return Answer(summary.strip(), operations)


def normalized(op: object) -> object:
    """A valid operation with only its spec fields; anything else as it came (to show it)."""
    parsed = parse_operation(op)
    return parsed if isinstance(parsed, dict) else op


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


def _problem(raw: object, view: _View, settings: Settings) -> str | None:
    """Why this operation cannot be applied, or ``None`` when it can (updates the view)."""
    op = parse_operation(raw)
    if isinstance(op, str):
        return op
    kind = op["op"]
    refused = guard.refusal(op, settings.bundle.redact_patterns)
    if refused:
        return f"{kind}: {refused}"
    limit = settings.max_skill_body_chars
    if kind == "create_skill":
        if not op["name"].strip():
            return "create_skill: the name is empty"
        if not op["body"].strip():
            return "create_skill: the body is empty"
        if too_long := meta_problem(op["name"], op["description"]):
            return f"create_skill: {too_long}"
        if len(op["body"]) > limit:
            return f"create_skill: the body is {len(op['body']):,} characters, over the {limit:,} limit"
        slug = slugify(op["name"])
        if view.body(slug) is not None:
            return f"create_skill: a skill {slug!r} already exists; patch it instead"
        view.bodies[slug] = op["body"]
        return None
    if kind == "update_self":
        return over_cap_message(op["note"], len(op["content"]), settings.note_cap(op["note"]))
    slug = op["skill"]
    if not SLUG.fullmatch(slug):
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


def check_operations(operations: Sequence[object], paths: AgentPaths, settings: Settings) -> list[str | None]:
    """One problem (or ``None``) per operation, checked in order against the current files."""
    view = _View(SkillStore(paths, settings))
    return [_problem(op, view, settings) for op in operations]


def _text(path) -> str | None:
    data, _ = read_versioned(path)
    return None if data is None else data.decode("utf-8")


def plan_operation(paths: AgentPaths, settings: Settings, op: object, now: datetime, by: str) -> list[Step]:
    """The file changes one valid operation makes now, each with its whole text before and after.

    Nothing is written. Raises :class:`SkillError` or
    :class:`~orkas_tui.core.store.notes.NoteError` when the files no longer allow it.
    """
    problem = check_operations([op], paths, settings)[0]
    parsed = parse_operation(op)
    if problem or isinstance(parsed, str):  # check_operations has parsed it too: a string is its problem
        raise SkillError(problem or str(parsed))
    op = parsed
    store = SkillStore(paths, settings)
    kind = op["op"]
    if kind == "create_skill":
        skill = store.new_skill(op["name"], op["description"], op["body"], now)
        steps = []
        existing, _ = store.load_all()
        if len(existing) >= settings.max_skills:
            victim = eviction_candidate(existing)
            steps.append(
                Step(
                    "evict_skill",
                    "skill",
                    victim.slug,
                    _text(paths.skill(victim.slug)),
                    None,
                    event={"type": "skill_evicted", "skill": victim.slug, "by": by, "reason": "evicted: skill cap reached"},
                )
            )
        steps.append(
            Step(kind, "skill", skill.slug, None, skill.render(), event={"type": "skill_created", "skill": skill.slug, "by": by})
        )
        return steps
    if kind == "patch_skill":
        current = store.get(op["skill"])
        patched = store.patched(current, op["find"], op["replace"], now)
        return [
            Step(
                kind,
                "skill",
                current.slug,
                _text(paths.skill(current.slug)),
                patched.render(),
                event={"type": "skill_patched", "skill": current.slug, "by": by, "patch_count": patched.patch_count},
            )
        ]
    if kind == "delete_skill":
        current = store.get(op["skill"])
        return [
            Step(
                kind,
                "skill",
                current.slug,
                _text(paths.skill(current.slug)),
                None,
                event={"type": "skill_deleted", "skill": current.slug, "by": by, "reason": op["reason"]},
            )
        ]
    note = SelfNotes(paths, settings).read(op["note"])
    if note.problem:
        raise NoteError(note.problem)
    return [
        Step(
            kind,
            "note",
            op["note"],
            note.text if note.version else None,
            op["content"],
            event={"type": "self_updated", "note": op["note"], "by": by, "chars": len(op["content"])},
        )
    ]
