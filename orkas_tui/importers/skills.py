"""The user's own skills, the ones Claude Code or Codex offered, brought in as the agent's skills.

Sources: ``~/.claude/skills/<name>/SKILL.md`` (or ``$CLAUDE_CONFIG_DIR/skills``), a
project's ``.claude/skills/<name>/SKILL.md`` (the project is the session's ``cwd``),
and ``~/.codex/skills/<name>/SKILL.md`` (or ``$CODEX_HOME/skills``, built-ins under
``.system/`` included). The slug is the folder name, so a skill exported by
``orkas-tui export`` comes back as the same skill: its ``SKILL.md`` is exactly what
:func:`render_skill` makes of it, and nothing is written. What was imported from
which file is kept in ``.orkas/imports/skills.json``: a source changed since, over a
skill unchanged since, updates it; a skill changed in the workspace too is a
conflict, reported and left alone. A skill is offered to a turn only once its file was
present (:func:`offered_since`), so one exported later is not counted as offered to older turns.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import SLUG, AgentPaths
from orkas_tui.core.store.export import content_version, load_state, render_skill
from orkas_tui.core.store.skills import SkillError, SkillStore, slugify
from orkas_tui.importers import claude_code


@dataclass
class SkillImport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def user_skill_dirs(fmt: str, home: Path) -> list[Path]:
    if fmt == claude_code.NAME:
        return [claude_code.config_dir(home) / "skills"]
    base = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else home / ".codex"
    return [base / "skills"]


def project_skill_dirs(fmt: str, cwd: str) -> list[Path]:
    """Claude Code offers a project's own ``.claude/skills``; Codex reads only the user's folder."""
    return [Path(cwd) / ".claude" / "skills"] if fmt == claude_code.NAME else []


def skill_files(folder: Path) -> list[Path]:
    found = sorted(folder.glob("*/SKILL.md")) + sorted(folder.glob(".system/*/SKILL.md"))
    return [p for p in found if p.is_file()]


Offer = tuple[str, datetime | None]  # a slug, and since when its file was present (``None``: no evidence, always)


class SkillIndex:
    """Imports the user's skills once, then each project's on first sight; called with a
    session's ``cwd`` and a turn's start time, gives the slugs offered to that turn (its
    ``skills_indexed``): those whose file was present by then (:func:`offered_since`)."""

    def __init__(self, paths: AgentPaths, settings: Settings, fmt: str, home: Path, now: datetime) -> None:
        self.store = SkillStore(paths, settings)
        self.fmt = fmt
        self.now = now
        self.state_path = paths.private / "imports" / "skills.json"
        self.state = load_state(self.state_path)
        self.exported = export_times(paths)
        self.result = SkillImport()
        self.user = self._import_dirs(user_skill_dirs(fmt, home))
        self.projects: dict[str, list[Offer]] = {}
        self.shared: dict[tuple[str, ...], list[str]] = {}

    def __call__(self, cwd: str | None, ts: str | None = None) -> list[str]:
        """The slugs offered at ``ts`` (``None``: every one found), one shared list for each distinct answer."""
        if not cwd:
            offers = self.user
        elif cwd in self.projects:
            offers = self.projects[cwd]
        else:
            offers = self.projects[cwd] = _merge(self.user + self._import_dirs(project_skill_dirs(self.fmt, cwd)))
        moment = parse_ts(ts)
        slugs = tuple(slug for slug, since in offers if since is None or moment is None or since <= moment)
        return self.shared.setdefault(slugs, list(slugs))

    def _import_dirs(self, folders: list[Path]) -> list[Offer]:
        offers = []
        for folder in folders:
            for path in skill_files(folder):
                offer = self._import_one(path)
                if offer:
                    offers.append(offer)
        if self.state != load_state(self.state_path):
            atomic_write(self.state_path, orjson.dumps(self.state, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
        return _merge(offers)

    def _import_one(self, path: Path) -> Offer | None:
        """The slug the file stands for, once the workspace holds it, and since when it was offered (``None``: not imported)."""
        slug = slugify(path.parent.name)
        try:
            found, version = read_versioned(path)
            data = found or b""
            name, description, body = parse_source(slug, data)
            key = str(path.resolve())
            before = self.state.get(key, {})
            seen = _first_sight(before, path, self.now)
        except (OSError, SkillError) as exc:
            self.result.problems.append(f"{path}: {exc}; not imported")
            return None
        try:
            existing = self.store.get(slug)
        except SkillError:
            existing = None
        try:
            if existing is None:
                skill, _evicted = self.store.create(name, description, body, self.now, by="import")
                self.result.created.append(slug)
            elif render_skill(existing) == data.decode("utf-8") or (before.get("source"), before.get("skill")) == (
                version,
                content_version(existing),
            ):
                skill = existing  # the same skill: exported from here, or imported and unchanged on both sides
                self.result.unchanged.append(slug)
            elif key in self.exported:
                # orkas-tui wrote this file: an edit there is a person's, which exports leave alone and the
                # app flags with the way out; importing it back would fold the export's heading into the body
                self.state[key] = {**before, **seen}
                return slug, offered_since(key, self.state[key], self.exported)
            elif before.get("skill") == content_version(existing):
                skill = self.store.edit(slug, description, body, existing.version, self.now)
                self.result.updated.append(slug)
            else:
                self.result.conflicts.append(
                    f"{path}: differs from the workspace's skill {slug!r}, which changed there too; left as is"
                )
                self.state[key] = {**before, **seen}
                return slug, offered_since(key, self.state[key], self.exported)
        except (OSError, SkillError) as exc:
            self.result.problems.append(f"{path}: {exc}; not imported")
            return None
        self.state[key] = {"source": version, "skill": content_version(skill), **seen}
        return slug, offered_since(key, self.state[key], self.exported)


def offered_since(key: str, entry: dict[str, Any], exported: dict[str, datetime | None]) -> datetime | None:
    """Since when the ``SKILL.md`` at ``key`` (its resolved path) was offered: the earliest evidence that it existed.

    Evidence: the time ``orkas-tui export`` first wrote it (``exported``, from the export
    state), and what the importer recorded when it first saw the file (``entry``: that time,
    and the file's mtime then). ``None``, no evidence at all (a file recorded by an importer
    that kept no times, never exported with one): offered to every turn, as before.
    """
    times = [parse_ts(entry.get("first_seen")), parse_ts(entry.get("mtime")), exported.get(key)]
    known = [t for t in times if t is not None]
    return min(known) if known else None


def _first_sight(before: dict, path: Path, now: datetime) -> dict[str, str]:
    """The times the importer keeps from its first sight of a file; a file recorded without them gets none later."""
    if "first_seen" in before:
        return {"first_seen": before["first_seen"], "mtime": before.get("mtime")}
    if before:
        return {}
    mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    return {"first_seen": format_ts(now), "mtime": format_ts(mtime)}


def _merge(offers: list[Offer]) -> list[Offer]:
    """One offer per slug, in first-found order, since the earliest of its files (a file with no evidence: always)."""
    merged: dict[str, datetime | None] = {}
    for slug, since in offers:
        known = merged.get(slug, since)
        merged[slug] = None if since is None or known is None else min(since, known)
    return list(merged.items())


def export_times(paths: AgentPaths) -> dict[str, datetime | None]:
    """Each ``SKILL.md`` an export wrote, by resolved path, at its earliest ``at`` (``{"version", "at"}``).

    An older export state holds only the version: no time (``None``), so no evidence of when.
    """
    times: dict[str, datetime | None] = {}
    for state_path in sorted((paths.private / "exports").glob("*.json")):
        for path, entry in load_state(state_path).items():
            at = parse_ts(entry.get("at")) if isinstance(entry, dict) else None
            key = str(Path(path).resolve())
            known = times.get(key)
            times[key] = at if known is None else known if at is None else min(at, known)
    return times


def parse_source(slug: str, data: bytes) -> tuple[str, str, str]:
    """Name, description and body of a ``SKILL.md``; the name falls back to the folder's when it names another slug."""
    import frontmatter
    import yaml

    try:
        post = frontmatter.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SkillError("not UTF-8") from exc
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        raise SkillError("front matter is not valid YAML") from exc
    if not SLUG.match(slug):
        raise SkillError(f"folder name {slug!r} is not a valid slug")
    name = post.metadata.get("name")
    name = name.strip() if isinstance(name, str) and slugify(name) == slug else slug
    description = post.metadata.get("description")
    body = post.content.strip()
    if not body:
        raise SkillError("empty body")
    return name, " ".join(description.split()) if isinstance(description, str) else "", body + "\n"


def mark_used(paths: AgentPaths, settings: Settings, last_read: dict[str, str]) -> list[str]:
    """Set ``lastUsedAt`` of each skill read in the imported turns to its latest read, as reading a skill does.

    A time earlier than the skill's own ``lastUsedAt`` changes nothing; a slug the agent has no skill for is left out.
    Returns one problem line for each skill that could not be updated.
    """
    store, problems = SkillStore(paths, settings), []
    for slug, ts in sorted(last_read.items()):
        moment = parse_ts(ts)
        try:
            skill = store.get(slug)
            if moment is not None and (skill.last_used_at is None or skill.last_used_at < format_ts(moment)):
                store.read(slug, moment)
        except SkillError as exc:
            if not str(exc).startswith("no skill"):
                problems.append(f"skill {slug}: {exc}")
        except OSError as exc:
            problems.append(f"skill {slug}: {exc}")
    return problems
