"""Skill files: Markdown with exactly six front-matter keys, then the body.

The store is the only code that writes skills. Every write is atomic and
conflict-checked (a person's edit on disk is never overwritten silently), and
each change is logged to ``events.jsonl``. At most ``max_skills`` per agent:
creating one more evicts one, never-used first (oldest created first), then the
least recently used.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import read_versioned, version_of
from orkas_tui.core.disk.write import ConflictError, atomic_write, remove_file
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import SLUG, AgentPaths
from orkas_tui.core.store.system_events import log_event

KEYS = ("name", "description", "createdAt", "updatedAt", "patchCount", "lastUsedAt")
MAX_NAME_CHARS, MAX_DESCRIPTION_CHARS = 64, 1_024  # the Agent Skills limits

_BOUNDARY = re.compile(r"^-{3,}\s*$", re.MULTILINE)  # python-frontmatter's YAML boundary
_PLAIN_LINE = re.compile(
    r"(name|description|createdAt|updatedAt|patchCount|lastUsedAt): "
    r'("(?:[^"\\]|\\["\\/bfnrt])*"|null|true|false|-?(?:0|[1-9][0-9]*))'
)
# characters YAML reads as themselves inside a one-line double-quoted scalar (no line breaks, BOM or C1 controls)
_PLAIN_TEXT = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*")


class SkillError(OrkasError, ValueError):
    """A skill operation was refused; the message says why and nothing was written."""


@dataclass(frozen=True)
class Skill:
    slug: str
    name: str
    description: str
    created_at: str
    updated_at: str
    patch_count: int
    last_used_at: str | None
    body: str
    version: str | None = None

    def render(self) -> str:
        """The file text: front matter (JSON-quoted strings are valid YAML) and body."""
        head = {
            "name": self.name,
            "description": self.description,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "patchCount": self.patch_count,
            "lastUsedAt": self.last_used_at,
        }
        lines = ["---"] + [f"{key}: {orjson.dumps(value).decode()}" for key, value in head.items()] + ["---", ""]
        body = self.body if self.body.endswith("\n") or not self.body else self.body + "\n"
        return "\n".join(lines) + "\n" + body


@dataclass(frozen=True)
class BrokenSkill:
    """A skill file in ``skills/`` that cannot be used; ``problem`` is the line ``status`` prints for it."""

    slug: str
    path: Path
    problem: str


@dataclass(frozen=True)
class SkillFiles:
    """Every skill file of an agent read once: the skills, and the files that are not usable."""

    skills: list[Skill]
    broken: list[BrokenSkill]

    @property
    def problems(self) -> list[str]:
        return [b.problem for b in self.broken]


def meta_problem(name: str, description: str) -> str | None:
    """Why a skill's name or description is over its limit (counted after trimming), or ``None``."""
    for field, text, limit in (("name", name, MAX_NAME_CHARS), ("description", description, MAX_DESCRIPTION_CHARS)):
        if len(text.strip()) > limit:
            return f"the {field} is {len(text.strip()):,} characters, over the {limit:,}-character limit"
    return None


def slugify(name: str) -> str:
    """A safe file stem from a skill name: never a path, never outside ``skills/``."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9_-]+", "-", ascii_text.lower()).strip("-_")[:64].strip("-_")
    if not slug:
        slug = "skill-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return slug


def parse_skill(slug: str, data: bytes) -> Skill:
    """Parse a skill file; raise :class:`SkillError` naming what is wrong."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(f"{slug}.md is not UTF-8 ({exc.reason})") from exc
    parsed = _plain_front_matter(text)
    if parsed is None:
        import frontmatter
        import yaml

        try:
            post = frontmatter.loads(text)
        except (yaml.YAMLError, ValueError, TypeError) as exc:
            raise SkillError(f"{slug}.md: front matter is not valid YAML") from exc
        parsed = post.metadata, post.content
    meta, content = parsed
    name = meta.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SkillError(f"{slug}.md: front matter has no name")
    description = meta.get("description")
    patch_count = meta.get("patchCount", 0)
    if isinstance(patch_count, bool) or not isinstance(patch_count, int) or patch_count < 0:
        patch_count = 0
    created = _ts(meta.get("createdAt"))
    return Skill(
        slug=slug,
        name=name.strip(),
        description=description.strip() if isinstance(description, str) else "",
        created_at=created or "",
        updated_at=_ts(meta.get("updatedAt")) or created or "",
        patch_count=patch_count,
        last_used_at=_ts(meta.get("lastUsedAt")),
        body=content + ("\n" if content and not content.endswith("\n") else ""),
        version=hashlib.sha256(data).hexdigest(),
    )


def _plain_front_matter(text: str) -> tuple[dict, str] | None:
    """The front matter :meth:`Skill.render` writes, read without YAML (2,400 skills in ~20 ms).

    Only ``key: <JSON scalar>`` lines whose YAML reading is certain to equal their
    JSON reading are accepted; anything else (a person's hand-written YAML, a
    comment, a repeated key) returns ``None`` and goes to python-frontmatter, so
    the result is always what python-frontmatter would give.
    """
    if "\r" in text:  # python-frontmatter turns CRLF into LF; leave that to it
        return None
    stripped = text.strip()
    if not _BOUNDARY.match(stripped):
        return None
    parts = _BOUNDARY.split(stripped, 2)
    if len(parts) != 3:
        return None
    meta: dict = {}
    for line in parts[1].split("\n"):
        if not line:
            continue
        match = _PLAIN_LINE.fullmatch(line)
        if match is None or match.group(1) in meta or not _PLAIN_TEXT.fullmatch(line):
            return None
        meta[match.group(1)] = orjson.loads(match.group(2))
    return meta, parts[2].strip()


def _ts(value: object) -> str | None:
    moment = parse_ts(value)
    return format_ts(moment) if moment else None


class SkillStore:
    def __init__(self, paths: AgentPaths, settings: Settings) -> None:
        self.paths = paths
        self.settings = settings

    def slugs(self) -> list[str]:
        """Skills to read: links out of the workspace and unreadable files are left out (reported by status)."""
        return [stem for name in self.paths.readable_names(self.paths.skills, ".md") if SLUG.match(stem := name[:-3])]

    def read_all(self) -> SkillFiles:
        """Every readable skill, and each file that is not, with why."""
        skills, broken = [], []
        folder_inside = self.paths.contains(self.paths.skills)
        for slug in self.slugs():
            try:
                skills.append(self._load(slug, folder_inside))
            except SkillError as exc:
                broken.append(BrokenSkill(slug, self._path(slug), str(exc)))
        return SkillFiles(skills, broken)

    def load_all(self) -> tuple[list[Skill], list[str]]:
        """Every readable skill, and one problem line for each that is not."""
        files = self.read_all()
        return files.skills, files.problems

    def get(self, slug: str) -> Skill:
        return self._load(slug, None)

    def open(self, slug: str) -> Skill | BrokenSkill:
        """A skill to edit: parsed, or the file that does not parse (to be fixed as its whole text)."""
        try:
            return self.get(slug)
        except SkillError as exc:
            return BrokenSkill(slug, self._path(slug), str(exc))

    def _load(self, slug: str, folder_inside: bool | None) -> Skill:
        """``folder_inside``: whether the skills folder is known to resolve inside the workspace;
        then only a skill that is itself a link is resolved (200 skills, one ``resolve()``)."""
        path = self._path(slug)
        inside = folder_inside if folder_inside is not None and not os.path.islink(path) else self.paths.contains(path)
        if not inside:
            raise SkillError(f"{slug}.md links outside the workspace; not read")
        try:
            data, _ = read_versioned(path)
        except OSError as exc:
            raise SkillError(f"{slug}.md cannot be read ({exc.strerror})") from exc
        if data is None:
            raise SkillError(f"no skill {slug!r}")
        return parse_skill(slug, data)

    def read(self, slug: str, now: datetime) -> Skill:
        """What a runtime calls when the agent reads a skill: sets ``lastUsedAt``."""
        for _attempt in range(3):
            skill = self.get(slug)
            updated = replace(skill, last_used_at=format_ts(now))
            try:
                return self._write(updated, expected=skill.version)
            except ConflictError:
                continue
        raise SkillError(f"{slug}.md keeps changing on disk; lastUsedAt not updated")

    def create(self, name: str, description: str, body: str, now: datetime, by: str = "user") -> tuple[Skill, Skill | None]:
        """Create a skill; return it and the skill evicted to make room, if any."""
        skill = self.new_skill(name, description, body, now)
        evicted = None
        existing, _ = self.load_all()
        if len(existing) >= self.settings.max_skills:
            evicted = eviction_candidate(existing)
            self.delete(
                evicted.slug, now, expected=evicted.version, reason="evicted: skill cap reached", by=by, kind="skill_evicted"
            )
        skill = self._write(skill, expected=None)
        log_event(self.paths, "skill_created", now, skill=skill.slug, by=by)
        return skill, evicted

    def new_skill(self, name: str, description: str, body: str, now: datetime) -> Skill:
        """The skill :meth:`create` would write (checked, nothing written)."""
        name, description = name.strip(), description.strip()
        if not name:
            raise SkillError("a skill needs a name")
        if problem := meta_problem(name, description):
            raise SkillError(problem)
        self._check_body(body)
        slug = slugify(name)
        if self._path(slug).exists():
            raise SkillError(f"a skill {slug!r} already exists; patch it instead")
        stamp = format_ts(now)
        return Skill(slug, name, description, stamp, stamp, 0, None, body)

    def patch(
        self, slug: str, find: str, replacement: str, now: datetime, by: str = "user", expected: str | None = None
    ) -> Skill:
        """Replace one exact fragment of the body; it must occur exactly once."""
        skill = self.get(slug)
        if expected is not None and skill.version != expected:
            raise ConflictError(self._path(slug))
        updated = self._write(self.patched(skill, find, replacement, now), expected=skill.version)
        log_event(self.paths, "skill_patched", now, skill=slug, by=by, patch_count=updated.patch_count)
        return updated

    def patched(self, skill: Skill, find: str, replacement: str, now: datetime) -> Skill:
        """``skill`` as :meth:`patch` would write it (checked, nothing written)."""
        if not find:
            raise SkillError("a patch needs a non-empty fragment to find")
        count = skill.body.count(find)
        if count != 1:
            raise SkillError(f"the fragment to replace occurs {count} times in {skill.slug}.md (it must occur exactly once)")
        body = skill.body.replace(find, replacement, 1)
        self._check_body(body)
        if not body.strip():
            raise SkillError(f"the patch would leave {skill.slug}.md with an empty body; delete the skill instead")
        return replace(skill, body=body, patch_count=skill.patch_count + 1, updated_at=format_ts(now))

    def edit(self, slug: str, description: str, body: str, expected: str | None, now: datetime, force: bool = False) -> Skill:
        """A person's inline edit of description and body (not a patch: count unchanged)."""
        skill = self.get(slug)
        if not force and skill.version != expected:
            raise ConflictError(self._path(slug))
        if problem := meta_problem("", description):  # the name is not edited here
            raise SkillError(problem)
        self._check_body(body)
        updated = replace(skill, description=description.strip(), body=body, updated_at=format_ts(now))
        updated = self._write(updated, expected=... if force else skill.version)
        log_event(self.paths, "skill_edited", now, skill=slug, by="user")
        return updated

    def delete(
        self,
        slug: str,
        now: datetime,
        expected: str | None = None,
        reason: str | None = None,
        by: str = "user",
        kind: str = "skill_deleted",
    ) -> None:
        path = self._path(slug)
        if not path.exists():
            raise SkillError(f"no skill {slug!r}")
        _refuse_unsafe(self.paths)
        remove_file(path, expected=... if expected is None else expected)
        log_event(self.paths, kind, now, skill=slug, by=by, reason=reason)

    def _write(self, skill: Skill, expected: str | object | None) -> Skill:
        _refuse_unsafe(self.paths)
        payload = skill.render().encode("utf-8")
        atomic_write(self._path(skill.slug), payload, expected=expected)
        return replace(skill, version=version_of(payload))

    def _check_body(self, body: str) -> None:
        limit = self.settings.max_skill_body_chars
        if len(body) > limit:
            raise SkillError(f"the body is {len(body):,} characters, {len(body) - limit:,} over the {limit:,} limit")

    def _path(self, slug: str) -> Path:
        if not isinstance(slug, str) or not SLUG.match(slug):
            raise SkillError(f"not a valid skill slug: {slug!r} (lowercase letters, digits, '-' and '_')")
        return self.paths.skills / f"{slug}.md"


def _refuse_unsafe(paths: AgentPaths) -> None:
    """No change (nor its event) while a folder of the agent or its events.jsonl links out or is a special file."""
    unsafe = paths.unsafe_paths()
    if unsafe:
        raise SkillError(f"not changed: {unsafe[0]}")


def eviction_candidate(skills: list[Skill]) -> Skill:
    """Never-used skills first (oldest created first), then least recently used."""
    never = [s for s in skills if s.last_used_at is None]
    if never:
        return min(never, key=lambda s: (s.created_at, s.slug))
    return min(skills, key=lambda s: (s.last_used_at or "", s.slug))
