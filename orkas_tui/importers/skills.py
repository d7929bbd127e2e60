"""The user's own skills, the ones Claude Code or Codex offered, brought in as the agent's skills.

Sources: ``~/.claude/skills/<name>/SKILL.md`` (or ``$CLAUDE_CONFIG_DIR/skills``), a
project's ``.claude/skills/<name>/SKILL.md`` (the project is the session's ``cwd``),
and ``~/.codex/skills/<name>/SKILL.md`` (or ``$CODEX_HOME/skills``, built-ins under
``.system/`` included). The slug is the folder name, so a skill exported by
``orkas-tui export`` comes back as the same skill: its ``SKILL.md`` is exactly what
:func:`render_skill` makes of it, and nothing is written. What was imported from
which file is kept in ``.orkas/imports/skills.json``: a source changed since, over a
skill unchanged since, updates it; a skill changed in the workspace too is a
conflict, reported and left alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.core.read.files import atomic_write, read_versioned
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import SLUG, AgentPaths
from orkas_tui.core.store.export import content_version, render_skill
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


class SkillIndex:
    """Imports the user's skills once, then each project's on first sight; called with a
    session's ``cwd``, gives the slugs offered there (the turn's ``skills_indexed``)."""

    def __init__(self, paths: AgentPaths, settings: Settings, fmt: str, home: Path, now: datetime) -> None:
        self.store = SkillStore(paths, settings)
        self.fmt = fmt
        self.now = now
        self.state_path = paths.private / "imports" / "skills.json"
        self.state = _load(self.state_path)
        self.result = SkillImport()
        self.user = self._import_dirs(user_skill_dirs(fmt, home))
        self.projects: dict[str, list[str]] = {}

    def __call__(self, cwd: str | None) -> list[str]:
        if not cwd:
            return self.user
        if cwd not in self.projects:
            own = self._import_dirs(project_skill_dirs(self.fmt, cwd))
            self.projects[cwd] = self.user if not own else list(dict.fromkeys(self.user + own))
        return self.projects[cwd]

    def _import_dirs(self, folders: list[Path]) -> list[str]:
        slugs = []
        for folder in folders:
            for path in skill_files(folder):
                slug = self._import_one(path)
                if slug:
                    slugs.append(slug)
        if self.state != _load(self.state_path):
            atomic_write(self.state_path, orjson.dumps(self.state, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
        return list(dict.fromkeys(slugs))

    def _import_one(self, path: Path) -> str | None:
        """The slug the file stands for, once the workspace holds it (``None``: not imported)."""
        slug = slugify(path.parent.name)
        try:
            found, version = read_versioned(path)
            data = found or b""
            name, description, body = parse_source(slug, data)
        except (OSError, SkillError) as exc:
            self.result.problems.append(f"{path}: {exc}; not imported")
            return None
        key = str(path.resolve())
        before = self.state.get(key, {})
        try:
            existing = self.store.get(slug)
        except SkillError:
            existing = None
        try:
            if existing is None:
                skill, _evicted = self.store.create(name, description, body, self.now, by="import")
                self.result.created.append(slug)
            elif render_skill(existing) == data.decode("utf-8") or before == {
                "source": version,
                "skill": content_version(existing),
            }:
                skill = existing  # the same skill: exported from here, or imported and unchanged on both sides
                self.result.unchanged.append(slug)
            elif before.get("skill") == content_version(existing):
                skill = self.store.edit(slug, description, body, existing.version, self.now)
                self.result.updated.append(slug)
            else:
                self.result.conflicts.append(
                    f"{path}: differs from the workspace's skill {slug!r}, which changed there too; left as is"
                )
                return slug
        except (OSError, SkillError) as exc:
            self.result.problems.append(f"{path}: {exc}; not imported")
            return None
        self.state[key] = {"source": version, "skill": content_version(skill)}
        return slug


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


def _load(path: Path) -> dict:
    try:
        value = orjson.loads(read_versioned(path)[0] or b"")  # confined, regular files only; missing: no JSON
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


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
