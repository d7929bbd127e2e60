"""Where each skill belongs: one repository, or everywhere (global).

A skill file's front matter holds exactly the spec's keys, so a skill's scope lives in
the agent's private layout:

- ``.orkas/places.json``: ``{conversation: folder}``, the folder each imported session ran
  in (its ``cwd``), written by the importers (:func:`record_places`);
- ``.orkas/scopes.json``: ``{slug: {"learned": [...], "chosen": ...}}``: the repositories
  the skill's lessons came from (``""``: a lesson from no known repository), recorded when
  a reflection's operation creating or patching it is applied (:func:`learn`), and a
  person's choice (``"global"`` or a repository's folder), which wins and is kept.

:func:`scope_of` is the one rule every view and the export read: a person's choice; else
the repository a skill was imported from; else the repository its lessons came from when
they all came from one; else global (two or more repositories, a lesson from none, or no
lesson recorded: skills from before scopes, the demo, a person's own).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath

import orjson

from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import atomic_write, file_lock
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.repos import repository_of
from orkas_tui.core.read.workspace import AgentPaths

PLACES, SCOPES = "places.json", "scopes.json"
GLOBAL, REPO, LEARNED = "global", "repo", "learned"
UNKNOWN = ""  # a lesson whose session ran in no known repository
MIN_FILES = 2  # edited files it takes before a skill is narrowed to their folder (``paths``)


class ScopeError(OrkasError, ValueError):
    """A scope cannot be set as asked; nothing was written."""


@dataclass(frozen=True)
class Scope:
    """``root``: the repository's main working tree (``None``: global); ``why``: how it was decided, for a person;
    ``learned``: the repositories its lessons came from (what a person may pin it to)."""

    root: Path | None
    why: str
    learned: tuple[Path, ...] = ()
    paths: tuple[str, ...] = ()  # in a repository: the globs its lessons' files fall under (none: every file)

    @property
    def label(self) -> str:
        """What the Skills tab's Scope column shows: the repository's folder name, or "global"."""
        return GLOBAL if self.root is None else self.root.name

    def to_json(self) -> dict[str, object]:
        return {
            "scope": GLOBAL if self.root is None else REPO,
            "repository": None if self.root is None else str(self.root),
            "why": self.why,
            "paths": list(self.paths),
        }


def _load(path: Path, strict: bool = False) -> tuple[dict, str | None]:
    """The JSON object in ``path`` and its version. A damaged or unreadable file reads as empty; ``strict``
    (before a write) refuses it instead, with one line naming it: a writer never replaces what it cannot read."""
    try:
        data, version = read_versioned(path)
        value = orjson.loads(data or b"{}")
    except (OSError, orjson.JSONDecodeError) as exc:
        if strict:
            why = "not JSON" if isinstance(exc, orjson.JSONDecodeError) else exc.strerror or str(exc)
            raise ScopeError(f"{path}: cannot be read ({why}); fix or delete it, nothing was written") from exc
        return {}, None
    if not isinstance(value, dict):
        if strict:
            raise ScopeError(f"{path}: not a JSON object; fix or delete it, nothing was written")
        return {}, version
    return value, version


def _save(path: Path, value: dict, version: str | None) -> None:
    atomic_write(path, orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n", expected=version)


def load_places(paths: AgentPaths) -> dict[str, str]:
    value, _version = _load(paths.private / PLACES)
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def record_places(paths: AgentPaths, found: Mapping[str, str]) -> None:
    """Add each conversation's folder to ``places.json`` (written only when something changed)."""
    if not found:
        return
    path = paths.private / PLACES
    with file_lock(paths.private / "places.lock"):
        value, version = _load(path, strict=True)
        merged = {**value, **found}
        if merged != value:
            _save(path, merged, version)


def repositories_of(cwds: Iterable[str]) -> list[str]:
    """Each folder's repository (its main working tree), :data:`UNKNOWN` for a folder in none; sorted, once each."""
    found = set()
    for cwd in cwds:
        repo = repository_of(cwd) if cwd else None
        found.add(str(repo.root) if repo is not None else UNKNOWN)
    return sorted(found)


def damaged(paths: AgentPaths) -> str | None:
    """Why the agent's scopes file cannot be read (then every skill reads as without a recorded scope), or ``None``."""
    try:
        _load(paths.private / SCOPES, strict=True)
    except ScopeError as exc:
        return str(exc).replace("nothing was written", "scopes read as none recorded")
    return None


def load_scopes(paths: AgentPaths) -> dict[str, dict]:
    value, _version = _load(paths.private / SCOPES)
    return {k: v for k, v in value.items() if isinstance(v, dict)}


def learn(paths: AgentPaths, slug: str, repositories: Iterable[str], files: Iterable[str] = ()) -> None:
    """Record the repositories a lesson on ``slug`` came from and the files its evidence is about (idempotent:
    applied again after a crash adds nothing). A lesson with no edited file widens the skill to every file."""
    repositories, files = list(repositories), list(files)
    if not repositories:
        return

    def change(entry: dict) -> dict:
        learned = sorted({*_strings(entry.get("learned")), *repositories})
        prior = entry.get("files")
        if not files or (entry.get("learned") and not prior):
            about: list[str] = []  # this lesson, or an earlier one (or one from before files were kept), is about every file
        else:
            about = sorted({*_strings(prior), *files})
        return {**entry, "learned": learned, "files": about}

    _update(paths, slug, change)


def choose(paths: AgentPaths, slug: str, choice: str, repository: Path | None = None) -> Scope:
    """A person's choice for ``slug``: :data:`GLOBAL`, :data:`REPO` (``repository``: a folder in it) or
    :data:`LEARNED` (back to what the lessons say). Returns the scope it gives."""
    if choice == REPO:
        if repository is None:
            raise ScopeError("a repository scope needs the repository's folder")
        repo = repository_of(repository)
        if repo is None or not Path(repository).expanduser().exists():
            raise ScopeError(f"{repository}: not in a git repository on this machine")
        chosen: str | None = str(repo.root)
    elif choice == GLOBAL:
        chosen = GLOBAL
    elif choice == LEARNED:
        chosen = None
    else:
        raise ScopeError(f"unknown scope {choice!r}: global, repo PATH or learned")

    def change(entry: dict) -> dict:
        entry = {k: v for k, v in entry.items() if k != "chosen"}
        return entry if chosen is None else {**entry, "chosen": chosen}

    _update(paths, slug, change)
    return scope_of(slug, load_scopes(paths).get(slug, {}), imported_home(paths, slug))


def _update(paths: AgentPaths, slug: str, change) -> None:
    path = paths.private / SCOPES
    with file_lock(paths.private / "scopes.lock"):
        value, version = _load(path, strict=True)
        entry = value.get(slug) if isinstance(value.get(slug), dict) else {}
        new = change(entry)
        if new != entry:
            value[slug] = new
            _save(path, value, version)


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def scope_of(slug: str, entry: Mapping[str, object], imported: Path | None) -> Scope:
    """The rule (see the module's docstring). ``imported``: the project folder the skill was imported from, if any."""
    learned = _strings(entry.get("learned"))
    repos = tuple(Path(r) for r in learned if r != UNKNOWN)
    chosen = entry.get("chosen")
    files = _strings(entry.get("files"))
    if chosen == GLOBAL:
        return Scope(None, "set global by a person", repos)
    if isinstance(chosen, str) and chosen:
        return Scope(Path(chosen), "set by a person", repos, globs_for(files))
    if imported is not None:
        return Scope(imported, f"imported from {imported}", repos)
    if len(learned) == 1 and repos:
        return Scope(repos[0], "learned in this repository only", repos, globs_for(files))
    if not learned:
        return Scope(None, "no lesson with a known repository")
    if len(repos) >= 2:
        return Scope(None, f"learned in {len(repos)} repositories", repos)
    return Scope(None, "learned outside any repository too", repos)


def globs_for(files: list[str]) -> tuple[str, ...]:
    """``("src/api/**",)`` when every file the lessons are about (paths relative to their working tree) lies
    in one folder; none when there are fewer than :data:`MIN_FILES` or they share only the repository's top:
    the skill is then for every file (a glob too narrow would hide it where it applies, and the agent says
    nothing; one edited file is too little to say a lesson is about a folder)."""
    parts = [PurePath(f).parts[:-1] for f in files]
    if len(parts) < MIN_FILES or any(".." in p for p in parts):
        return ()
    common: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return (f"{'/'.join(common)}/**",) if common else ()


def imported_home(
    paths: AgentPaths, slug: str, imported: Mapping[str, object] | None = None, exported: set[Path] | None = None
) -> Path | None:
    """The project a skill was imported from: its ``.claude/skills`` folders' project (its repository, when in one),
    when it came only from such project folders; ``None`` for the workspace's own skills and the user's global folders.
    A file an export wrote there (``exported``) is the skill's own copy coming back, not an import from the project."""
    if imported is None:
        imported = _load(paths.private / "imports" / "skills.json")[0]
    if exported is None:
        exported = exported_files(paths)
    folders = {Path(key).parent.parent for key in imported if Path(key).parent.name == slug and Path(key) not in exported}
    projects = [f for f in folders if f.name == "skills" and f.parent.name == ".claude" and f.parent.parent != Path.home()]
    if not folders or len(projects) != len(folders):
        return None
    roots = set()
    for folder in projects:
        repo = repository_of(folder.parent.parent)
        roots.add(repo.root if repo is not None else folder.parent.parent)
    return roots.pop() if len(roots) == 1 else None


def exported_files(paths: AgentPaths) -> set[Path]:
    """Every ``SKILL.md`` an export of this agent wrote, as the importers key them (resolved)."""
    found: set[Path] = set()
    for state in sorted((paths.private / "exports").glob("*.json")):
        found.update(Path(key).resolve() for key in _load(state)[0] if key.endswith("SKILL.md"))
    return found


def all_scopes(paths: AgentPaths, slugs: Iterable[str]) -> dict[str, Scope]:
    """Each skill's scope, reading the agent's two files once."""
    entries = load_scopes(paths)
    imported, _version = _load(paths.private / "imports" / "skills.json")
    exported = exported_files(paths) if imported else set()
    return {slug: scope_of(slug, entries.get(slug, {}), imported_home(paths, slug, imported, exported)) for slug in slugs}
