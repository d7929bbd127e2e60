"""Give what an agent learned back to Claude Code or Codex.

Skills become ``DEST/<slug>/SKILL.md`` with the ``name`` and ``description`` front
matter both agents read. The self notes become one marked block inside
``CLAUDE.md`` or ``AGENTS.md``; bytes outside the markers are never changed. A
``SKILL.md`` someone edited since the last export is left alone (reported as a
conflict) unless forced: the version written, and when that path was first
written, are kept in the agent's ``.orkas/exports/<target>.json``. Nothing but
``SKILL.md`` files and the notes block is written into the destination: the write
locks live in the workspace. A ``SKILL.md`` the skill was imported from, unchanged
on both sides since, is the same skill already there: left as it is.

A skill scoped to one repository (:mod:`orkas_tui.core.store.scopes`) goes into that
repository's skills folder instead of ``DEST`` (:func:`place_of`), its path added to the
repository's ``.git/info/exclude`` so ``git status`` stays clean (:func:`exclude`), unless
``[export] commit_scoped_skills``. A copy an earlier export left where the skill no longer
goes is listed (``elsewhere``), never moved or deleted.

It lives in the core so that every applied change of an agent linked in
``orkas.toml`` (``[agents.<id>] export_skills``) is exported at once:
:func:`export_linked`, called by the store after an apply, a revert or a person's edit.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import OutsideWorkspace, read_versioned, register_root, version_of
from orkas_tui.core.disk.write import ConflictError, atomic_write, file_lock
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.repos import Repository, repository_of
from orkas_tui.core.read.settings import AgentLink, Settings
from orkas_tui.core.read.timefmt import format_ts, utc_now
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store import standing
from orkas_tui.core.store.first_run import display_path
from orkas_tui.core.store.notes import NOTES, TITLES, SelfNotes
from orkas_tui.core.store.scopes import GLOBAL, REPO, Scope, ScopeError, all_scopes, choose, damaged
from orkas_tui.core.store.skills import Skill, SkillStore
from orkas_tui.core.store.standing import UNKNOWN, SkillStanding, rank_key, reason
from orkas_tui.core.store.system_events import log_event

MEMORY_FILES = {"claude-code": "CLAUDE.md", "codex": "AGENTS.md"}
# a repository's skills folder each agent reads: Claude Code's project skills; Codex's repository skills
# (codex-rs/core-skills/src/loader.rs: ``.agents/skills`` in each folder from the project root to the cwd)
PROJECT_SKILLS = {"claude-code": (".claude", "skills"), "codex": (".agents", "skills")}
DESCRIPTION_LIMIT = 500
EXPORTED = "skill_exported"  # the system event an export after an applied change leaves in events.jsonl
UNCHANGED, WRITE, CONFLICT = "unchanged", "write", "conflict"


class ExportError(OrkasError, ValueError):
    """The export cannot be done as asked; nothing more was written."""


@dataclass
class ExportResult:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # "slug: why": skills and notes the scan kept out of the agent's files
    scoped: list[str] = field(default_factory=list)  # "slug: repository (why)": skills exported into their repository
    omitted: list[str] = field(default_factory=list)  # "slug: why": skills left out to keep the listing in the agent's budget
    waiting: list[str] = field(default_factory=list)  # "slug: why": a repository's skills not exported (it is gone)
    elsewhere: list[str] = field(default_factory=list)  # "path: why": an earlier export's copy of a skill now exported elsewhere
    excluded: list[str] = field(default_factory=list)  # the .git/info/exclude files lines were added to
    memory: str = ""
    memory_status: str = ""

    def to_json(self) -> dict:
        return dict(self.__dict__)

    def lines(self, fix: str = "--force overwrites") -> list[str]:
        """What the export did, for a person: counts, then each file left alone and each problem.
        ``fix``: the way out of a ``SKILL.md`` edited by hand, as the caller can offer it."""
        out = []
        if self.memory:  # empty: the export was refused before writing anything (see problems)
            out.append(
                f"{len(self.written)} skills written, {len(self.unchanged)} unchanged; "
                f"notes block {self.memory_status} in {self.memory}"
            )
        out += [f"! {path} was edited since the last export; left as is ({fix})" for path in self.conflicts]
        out += [f"! refused, not exported: {why}" for why in self.refused]
        out += [f"- into its repository, not the global folder: {why}" for why in self.scoped]
        out += [f"- left out: {why}" for why in self.omitted]
        out += [f"! waits, not exported: {why}" for why in self.waiting]
        out += [f"- {why}" for why in self.elsewhere]
        out += [f"- {path}: its skill no longer exists; not deleted" for path in self.stale]
        return out + [f"! {problem}" for problem in self.problems]


def memory_path(target: str, dest: Path) -> Path:
    """``~/.claude/skills`` -> ``~/.claude/CLAUDE.md``; any other folder keeps the file inside it."""
    name = MEMORY_FILES[target]
    return dest.parent / name if dest.name == "skills" else dest / name


def rendered_description(skill: Skill) -> str:
    """One line of at most :data:`DESCRIPTION_LIMIT` characters. A longer one is cut after its last
    whole sentence that fits, else after its last whole word, with "…" (either from half the limit
    on; else where the limit falls): a cut the agent reads as a description, not a word broken off."""
    description = " ".join((skill.description or skill.name).split())
    if len(description) <= DESCRIPTION_LIMIT:
        return description
    head = description[: DESCRIPTION_LIMIT - 1]
    sentence = max(head.rfind(". "), head.rfind("; "))
    if sentence >= DESCRIPTION_LIMIT // 2:
        return head[: sentence + 1]
    word = head.rfind(" ")
    return (head[:word].rstrip(",;:") if word >= DESCRIPTION_LIMIT // 2 else head) + "…"


def render_skill(skill: Skill, globs: tuple[str, ...] = ()) -> str:
    """Front matter both agents accept: a hyphenated name, a one-line description of at most 500 characters;
    for Claude Code, ``paths`` when the skill is about certain files of its repository (``globs``: it then
    loads only when the agent works with files that match)."""
    description = rendered_description(skill)
    name = skill.slug.replace("_", "-")
    where = f"paths: {orjson.dumps(list(globs)).decode()}\n" if globs else ""
    head = f"---\nname: {orjson.dumps(name).decode()}\ndescription: {orjson.dumps(description).decode()}\n{where}---\n\n"
    body = skill.body if skill.body.endswith("\n") else skill.body + "\n"
    return head + f"# {skill.name}\n\n" + body


def listing_entry(skill: Skill) -> int:
    """The characters a skill takes in the listing an agent shows its model: its name, its description and
    the separators (``- name: description``, one line)."""
    return len(skill.slug) + len(rendered_description(skill)) + 4


def plan_listing(
    skills: list[Skill], budget: int, found: dict[str, SkillStanding]
) -> tuple[list[Skill], list[tuple[Skill, str]]]:
    """The skills an export writes so that the agent's listing fits ``budget`` characters (in their
    given order), and each skill left out with why: Claude Code and Codex drop skills beyond their
    listing budget without a word, so the export chooses, by where each stands (``found``,
    :mod:`orkas_tui.core.store.standing`), and says which. A skill that fits after a longer one
    did not still goes in."""
    chosen: set[str] = set()
    omitted: list[tuple[Skill, str]] = []
    used = 0
    for skill in sorted(skills, key=rank_key(found), reverse=True):
        size = listing_entry(skill)
        if used + size <= budget:
            chosen.add(skill.slug)
            used += size
        else:
            why = (
                f"over the listing budget ({size} characters; {used} of {budget} taken by skills ranked higher); "
                f"{reason(found.get(skill.slug, UNKNOWN))}"
            )
            omitted.append((skill, why))
    return [skill for skill in skills if skill.slug in chosen], omitted


def content_version(skill: Skill) -> str:
    """What a skill says (name, description, body), apart from its timestamps: the version of its export."""
    return version_of(render_skill(skill).encode("utf-8"))


def markers(agent: str) -> tuple[str, str]:
    return (
        f"<!-- orkas-tui:begin {agent} (generated by orkas-tui export; edits inside are replaced) -->",
        f"<!-- orkas-tui:end {agent} -->",
    )


def notes_block(notes: SelfNotes) -> str:
    texts = {n: notes.read(n).text.strip() for n in NOTES}
    parts = [f"## {TITLES[n]}\n\n{text}" for n, text in texts.items() if text]
    return "\n\n".join(parts) if parts else "(no self notes yet)"


def replace_block(text: str, agent: str, content: str) -> str:
    """Put ``content`` between this agent's markers; everything else stays byte for byte."""
    begin, end = markers(agent)
    if begin in content or end in content:
        raise ExportError("the self notes contain an orkas-tui marker line; remove it from the note")
    block = f"{begin}\n{content}\n{end}"
    start = text.find(begin)
    if start < 0:
        if text.count(end):
            raise ExportError(f"found {end!r} without its begin marker; fix the file by hand")
        glue = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return text + glue + block + "\n"
    stop = text.find(end, start)
    if stop < 0:
        raise ExportError(f"found {begin!r} without its end marker; fix the file by hand")
    return text[:start] + block + text[stop + len(end) :]


def export_agent(
    paths: AgentPaths,
    settings: Settings,
    target: str,
    dest: Path,
    memory: Path | None = None,
    force: bool = False,
    now: datetime | None = None,
    force_slugs: frozenset[str] = frozenset(),
) -> ExportResult:
    """Write every skill and the notes block; one export of an agent at a time (its export lock).
    ``force`` overwrites every ``SKILL.md`` edited by hand since; ``force_slugs`` only those skills'."""
    lock_dir = paths.private / "exports"
    with file_lock(lock_dir / "export.lock"):
        return _export_locked(paths, settings, target, dest, memory, force, format_ts(now or utc_now()), force_slugs)


def _export_locked(
    paths: AgentPaths,
    settings: Settings,
    target: str,
    dest: Path,
    memory: Path | None,
    force: bool,
    at: str,
    force_slugs: frozenset[str] = frozenset(),
) -> ExportResult:
    # start-up time: the guard loads the redactor's patterns, which status (it imports this module) never uses
    from orkas_tui.core.store import guard

    result = ExportResult()
    dest = dest.expanduser().resolve()
    lock_dir = paths.private / "exports"
    state_path = lock_dir / f"{target}.json"
    state = load_state(state_path)
    every, result.problems = SkillStore(paths, settings).load_all()
    imported = load_state(paths.private / "imports" / "skills.json")
    scopes = all_scopes(paths, [skill.slug for skill in every])
    if problem := damaged(paths):
        result.problems.append(problem)
    skills, omitted = plan_listing(every, settings.listing_chars(target), standing.load(paths))
    current = set()
    for skill, why in omitted:
        path = place_of(scopes[skill.slug], skill.slug, target, dest).path or dest / skill.slug / "SKILL.md"
        current.add(str(path))  # not stale: its skill exists
        earlier = f"; {path} from an earlier export is still listed: delete it to free its place" if str(path) in state else ""
        result.omitted.append(f"{skill.slug}: {why}{earlier}")
    into: dict[Repository, list[Path]] = {}
    for skill in skills:
        place = place_of(scopes[skill.slug], skill.slug, target, dest)
        result.refused += [f"{skill.slug}: {why}" for why in place.refusals]
        if place.path is None:
            (result.refused if place.refused else result.waiting).append(f"{skill.slug}: {place.why}")
            continue
        current.update(str(path) for path in place.paths)
        text = render_skill(skill, globs_of(scopes[skill.slug], target, place))
        if refused := guard.scan(text, "skill"):  # again here: a hand edit or an imported skill never passed the answer's check
            result.refused.append(f"{skill.slug}: {refused}")
            continue
        if place.root is not None:
            result.scoped.append(f"{skill.slug}: {display_path(place.root)} ({scopes[skill.slug].why})")
        for path in place.paths:
            source = _imported_from(imported, path, version_of(text.encode("utf-8")))
            try:
                _write_skill(path, text, state, force or skill.slug in force_slugs, result, lock_dir, source, at)
            except OutsideWorkspace:  # a link swapped in since the check above
                result.refused.append(f"{skill.slug}: {path.parent} links outside its repository; not written")
                continue
            if place.repo is not None and (str(path) in result.written or (str(path) in result.unchanged and source is None)):
                into.setdefault(place.repo, []).append(path)  # ours, not a file of the repository the skill came from
    if not settings.commit_scoped_skills:
        for repo, written in into.items():
            try:
                if exclude(repo, written, lock_dir):
                    result.excluded.append(str(repo.exclude))
            except (ConflictError, OSError) as exc:
                result.problems.append(f"{repo.exclude}: cannot be written ({exc}); git status shows the exported skills")
    slugs = {skill.slug: skill for skill in every}
    for p in sorted(set(state) - current):
        path = Path(p)
        ours = path.is_relative_to(dest) or path.parent.parent.parts[-2:] == PROJECT_SKILLS[target]
        if not ours:
            continue
        slug = path.parent.name
        if slug not in slugs:
            result.stale.append(p)
            continue
        if not path.parent.parent.parent.parent.is_dir():  # a worktree removed since: nothing left to move
            continue
        now_at = place_of(scopes[slug], slug, target, dest).path
        keep = GLOBAL if path.is_relative_to(dest) else f"{REPO} {path.parents[3]}"  # <repo>/.claude/skills/<slug>/SKILL.md
        result.elsewhere.append(
            f"{display_path(path)}: left by an earlier export; {slug} is now exported to "
            f"{display_path(now_at) if now_at else 'nowhere yet'} ({scopes[slug].why}); not moved: delete it to move "
            f"the skill, or keep it where it was with `orkas-tui skills scope {paths.id} {slug} {keep}`"
        )
    memory = (memory or memory_path(target, dest)).expanduser()
    result.memory = str(memory)
    data, version = read_versioned(memory)
    try:
        text = (data or b"").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExportError(f"{memory} is not UTF-8; not changed") from exc
    block = notes_block(SelfNotes(paths, settings))
    if refused := guard.scan(block, "self notes"):
        result.refused.append(f"self notes: {refused}")
        block = "(self notes not exported: they failed the scan; see `orkas-tui export`)"
    updated = replace_block(text, paths.id, block)
    if data is not None and updated == text:
        result.memory_status = "unchanged"
    else:
        atomic_write(memory, updated, expected=version, lock_dir=lock_dir)
        result.memory_status = "created" if data is None else "updated"
    if state != load_state(state_path):
        atomic_write(state_path, orjson.dumps(state, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return result


def decide(on_disk: str | None, rendered: str, recorded: str | None, imported_from: str | None) -> str:
    """What an export does with one ``SKILL.md``: leave it (``UNCHANGED``: it already says this, or
    is the file the skill came from), ``WRITE`` it (missing, or as the last export left it), or
    leave it as a ``CONFLICT`` (edited by hand since). The Skills tab's flag reads the same answer."""
    if on_disk == rendered or (imported_from is not None and on_disk == imported_from):
        return UNCHANGED
    return WRITE if on_disk is None or on_disk == recorded else CONFLICT


def _write_skill(
    path: Path,
    text: str,
    state: dict,
    force: bool,
    result: ExportResult,
    lock_dir: Path,
    imported_from: str | None,
    at: str,
) -> None:
    """``imported_from``: the version of ``path`` the skill was imported from, when the skill is unchanged since."""
    _data, version = read_versioned(path)
    new_version = version_of(text.encode("utf-8"))
    action = decide(version, new_version, recorded_version(state.get(str(path))), imported_from)
    if action == UNCHANGED:
        result.unchanged.append(str(path))
        new_version = version or new_version
    elif action == WRITE or force:
        atomic_write(path, text, expected=version, lock_dir=lock_dir)
        result.written.append(str(path))
    else:
        result.conflicts.append(str(path))
        return
    entry = state.get(str(path))
    first = entry.get("at") if isinstance(entry, dict) and isinstance(entry.get("at"), str) else at
    state[str(path)] = {"version": new_version, "at": first}


def recorded_version(entry: object) -> str | None:
    """The version an export state entry holds: ``{"version", "at"}``, or a plain version (older files)."""
    if isinstance(entry, dict):
        entry = entry.get("version")
    return entry if isinstance(entry, str) else None


def export_linked(paths: AgentPaths, settings: Settings, now: datetime) -> ExportResult | None:
    """Export the agent where ``orkas.toml`` links it (``None``: not linked), after a change was applied.

    Never raises: the change is applied already, so a refusal or an unwritable
    destination becomes the result's problem, and a later export catches up. What it
    did is left in events.jsonl (:data:`EXPORTED`): the Events tab and the next bundle show it.
    """
    link = settings.agents.get(paths.id)
    if link is None or link.export_skills is None:
        return None
    try:
        result = export_agent(paths, settings, link.format, link.export_skills, link.export_memory, now=now)
    except (ExportError, ConflictError, OSError) as exc:
        result = ExportResult(problems=[f"not exported to {link.export_skills}: {exc}"])
    try:
        _log_export(paths, link, result, now)
    except OSError as exc:  # the change and the export are done; only their line in events.jsonl is missing
        result.problems.append(f"{paths.events}: cannot be written ({exc.strerror or exc})")
    return result


def _log_export(paths: AgentPaths, link: AgentLink, result: ExportResult, now: datetime) -> None:
    log_event(
        paths,
        EXPORTED,
        now,
        format=link.format,
        dest=str(link.export_skills),
        written=[Path(p).parent.name for p in result.written] or None,
        conflicts=[Path(p).parent.name for p in result.conflicts] or None,
        stale=len(result.stale) or None,
        waiting=[why.split(":", 1)[0] for why in result.waiting] or None,
        elsewhere=len(result.elsewhere) or None,
        problems=result.problems or None,
        memory=result.memory or None,
        memory_status=result.memory_status or None,
    )


def rescope(
    paths: AgentPaths, settings: Settings, slug: str, choice: str, repository: Path | None, now: datetime
) -> tuple[Scope, ExportResult | None]:
    """A person sets where a skill belongs (:func:`~orkas_tui.core.store.scopes.choose`), and a linked agent is
    exported at once: the skill is written where it now goes; a copy left where it was is listed, not moved."""
    if not paths.skill(slug).is_file():
        raise ScopeError(f"agent {paths.id} has no skill {slug!r}")
    scope = choose(paths, slug, choice, repository)
    return scope, export_linked(paths, settings, now)


def way_out(agent: str, link: AgentLink) -> str:
    """How a person resolves a ``SKILL.md`` edited by hand where the agent is linked."""
    dest = display_path(link.export_skills) if link.export_skills else "DEST"
    return (
        f"`orkas-tui export {link.format} {agent} {dest} --force` overwrites it with the skill; "
        "to keep what was written there, copy it into the skill first (o opens it in the app)"
    )


def unlisted(paths: AgentPaths, link: AgentLink, skills: list[Skill], settings: Settings) -> dict[str, str]:
    """Each skill the linked agent's export leaves out of its listing: slug -> why (as ``export`` says it)."""
    if link.export_skills is None:
        return {}
    budget = settings.listing_chars(link.format)
    return {skill.slug: f"{link.format} {why}" for skill, why in plan_listing(skills, budget, standing.load(paths))[1]}


def hand_edited(paths: AgentPaths, link: AgentLink, skills: Iterable[Skill]) -> dict[str, str]:
    """Each skill whose exported ``SKILL.md`` was edited by hand since the last export: slug -> that file.

    The export leaves these alone (:func:`decide`); the app flags them with the way out.
    """
    return {slug: str(edit.path) for slug, edit in _hand_edits(paths, link, skills)}


@dataclass(frozen=True)
class HandEdit:
    """An exported ``SKILL.md`` someone edited by hand: where, what the export would write, what is there."""

    path: Path
    ours: str
    theirs: str


def hand_edit(paths: AgentPaths, settings: Settings, slug: str) -> HandEdit | None:
    """The hand edit of ``slug``'s exported copy for the linked agent, or ``None`` (not linked, not edited)."""
    link = settings.agents.get(paths.id)
    skills = [s for s in SkillStore(paths, settings).load_all()[0] if s.slug == slug]
    if link is None or not skills:
        return None
    return next((edit for _slug, edit in _hand_edits(paths, link, skills)), None)


def _hand_edits(paths: AgentPaths, link: AgentLink, skills: Iterable[Skill]) -> Iterator[tuple[str, HandEdit]]:
    """The skills whose exported copy (the first of their places) was edited by hand, each with that edit."""
    if link.export_skills is None:
        return
    dest = link.export_skills.expanduser().resolve()
    state = load_state(paths.private / "exports" / f"{link.format}.json")
    imported = load_state(paths.private / "imports" / "skills.json")
    skills = list(skills)
    scopes = all_scopes(paths, [skill.slug for skill in skills])
    for skill in skills:
        place = place_of(scopes[skill.slug], skill.slug, link.format, dest)
        ours = render_skill(skill, globs_of(scopes[skill.slug], link.format, place))
        for path in place.paths:  # none: it waits
            if (theirs := _edited_there(path, ours, state, imported)) is not None:
                yield skill.slug, HandEdit(path, ours, theirs.decode("utf-8", "replace"))
                break


def overwrite_hand_edit(paths: AgentPaths, settings: Settings, slug: str, now: datetime) -> ExportResult:
    """Export the linked agent again, writing ``slug``'s copy over the hand edit there (the others are left alone)."""
    link = settings.agents.get(paths.id)
    if link is None or link.export_skills is None:
        raise ExportError(f"agent {paths.id} is not linked for export in orkas.toml")
    return export_agent(
        paths, settings, link.format, link.export_skills, link.export_memory, now=now, force_slugs=frozenset({slug})
    )


def _edited_there(path: Path, ours: str, state: dict, imported: dict) -> bytes | None:
    """The ``SKILL.md`` at ``path`` when it was edited by hand since the last export wrote it (``ours``: what
    the export writes there), else ``None``."""
    try:
        data, version = read_versioned(path)
    except OSError:
        return None  # not a regular file: the export reports it
    rendered = version_of(ours.encode("utf-8"))
    recorded = recorded_version(state.get(str(path)))
    return data if decide(version, rendered, recorded, _imported_from(imported, path, rendered)) == CONFLICT else None


def globs_of(scope: Scope, target: str, place: Place) -> tuple[str, ...]:
    """The ``paths`` an exported skill carries: Claude Code's, in the repository its lessons' files are in."""
    return scope.paths if target == "claude-code" and place.root is not None and place.root == scope.root else ()


@dataclass(frozen=True)
class Place:
    """Where an export writes one skill (``path``; ``None``: it waits, or is ``refused``, with ``why``);
    ``root``: the repository folder it goes into, ``repo``: its git repository (whose ``info/exclude`` lists it)."""

    path: Path | None
    root: Path | None = None
    repo: Repository | None = None
    why: str = ""
    refused: bool = False
    copies: tuple[Path, ...] = ()  # the same file in each linked worktree of the repository
    refusals: tuple[str, ...] = ()  # why a worktree's copy is not written (its folder links out of it)

    @property
    def paths(self) -> tuple[Path, ...]:
        return ((self.path,) if self.path is not None else ()) + self.copies


def place_of(scope: Scope, slug: str, target: str, dest: Path) -> Place:
    """A global skill goes to ``dest``; a repository's into that repository's skills folder for ``target``
    (:data:`PROJECT_SKILLS`), unless ``dest`` is that folder already, and into each of its linked worktrees
    (an agent started in one reads that worktree's folder). A repository not on this machine: the skill
    waits. A skills folder that links out of its repository or worktree is refused: no write leaves it."""
    if scope.root is None:
        return Place(dest / slug / "SKILL.md")
    folder = scope.root.joinpath(*PROJECT_SKILLS[target])
    if folder == dest:
        return Place(dest / slug / "SKILL.md", scope.root)
    if not scope.root.is_dir():
        return Place(None, why=f"its repository {display_path(scope.root)} is not on this machine ({scope.why})")
    if refusal := _links_out(scope.root, folder / slug):
        return Place(None, why=refusal, refused=True)
    real_root = Path(os.path.realpath(scope.root))
    repo = repository_of(scope.root)
    repo = repo if repo is not None and repo.root == real_root else None
    copies, refusals = [], []
    for worktree in repo.worktrees() if repo is not None else []:
        copy = worktree.joinpath(*PROJECT_SKILLS[target], slug, "SKILL.md")
        if refusal := _links_out(worktree, copy.parent):
            refusals.append(refusal)
        else:
            copies.append(copy)
    return Place(folder / slug / "SKILL.md", scope.root, repo, copies=tuple(copies), refusals=tuple(refusals))


def _links_out(root: Path, folder: Path) -> str | None:
    """Why ``folder`` is refused (it really lies outside ``root``: a link), or ``None``; from now on every read and
    write below ``root`` is confined to it (:func:`~orkas_tui.core.disk.confine.register_root`)."""
    if not Path(os.path.realpath(folder)).is_relative_to(Path(os.path.realpath(root))):
        return f"{folder} links outside its repository {root}; not written"
    register_root(root)
    return None


def exclude(repo: Repository, written: list[Path], lock_dir: Path) -> bool:
    """Add each written path to the repository's ``.git/info/exclude`` (``/.claude/skills/x/SKILL.md``, relative
    to the main tree or worktree it is in: one line covers them all), once: lines already there are not added
    again and nothing else in the file changes. ``True``: lines were added."""
    lines = ["/" + "/".join(path.parts[-4:]) for path in written]  # <tree>/.claude/skills/<slug>/SKILL.md
    data, version = read_versioned(repo.exclude)
    text = (data or b"").decode("utf-8", "surrogateescape")
    have = set(text.splitlines())
    new = [line for line in dict.fromkeys(lines) if line not in have]
    if not new:
        return False
    glue = "" if not text or text.endswith("\n") else "\n"
    updated = text + glue + "\n".join(new) + "\n"
    atomic_write(repo.exclude, updated.encode("utf-8", "surrogateescape"), expected=version, lock_dir=lock_dir)
    return True


def _imported_from(imported: dict, path: Path, content: str) -> str | None:
    """The version of ``path`` a skill was imported from, if the skill (its :func:`content_version`, ``content``)
    is unchanged since (``None`` otherwise); the caller has rendered the skill already."""
    entry = imported.get(str(path))
    return entry.get("source") if isinstance(entry, dict) and entry.get("skill") == content else None


def load_state(path: Path) -> dict:
    """An export or import state file; missing or corrupt reads as empty, any other read error is raised."""
    try:
        value = orjson.loads(read_versioned(path)[0] or b"")  # confined, regular files only; missing: no JSON
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}
