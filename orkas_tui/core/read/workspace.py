"""Where things are: the workspace root, its agents, and each agent's paths."""

from __future__ import annotations

import errno
import os
import stat
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import OutsideWorkspace, confined, open_regular, read_json_object, register_root
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.home import root_path
from orkas_tui.core.read.settings import AGENT_ID, SETTINGS_NAME, Settings, read_settings, settings_path

SLUG = AGENT_ID


class WorkspaceError(OrkasError, RuntimeError):
    """The workspace or an agent in it cannot be used; the message says why."""


def resolve_root(explicit: str | os.PathLike | None = None) -> Path:
    """``--workspace`` first, then ``$ORKAS_HOME``, then ``~/.orkas`` (:func:`.home.root_path`)."""
    return Path(root_path(explicit))


class Area(StrEnum):
    """A part of the workspace that changes on its own and is re-read on its own: the app's watcher
    names the areas a change touched, and each view is redone only for the areas it shows. An
    agent's three folders are named on disk as their areas are."""

    CONVERSATIONS = "conversations"
    EVENTS = "events"  # events.jsonl
    SKILLS = "skills"
    SELF = "self"  # the self notes
    STATE = "state"  # .orkas/state.json: the last reflection
    META = "meta"  # agent.toml
    PRIVATE = "private"  # the rest of .orkas: proposals, history, the hook log
    AGENT = "agent"  # the agent's folder itself appeared or went: all of it
    SETTINGS = "settings"  # orkas.toml, for every agent
    CYCLE = "cycle"  # the workspace's .orkas/state.json: the last cycle


AGENTS_NAME = "agents"
PRIVATE_NAME = ".orkas"  # orkas-tui's own files, in the workspace and in each agent
STATE_NAME = "state.json"  # in a .orkas folder
EVENTS_NAME = "events.jsonl"
META_NAME = "agent.toml"
_NAMED = {EVENTS_NAME: Area.EVENTS, META_NAME: Area.META}  # an agent's other top-level names are its areas'
_TOP = {**{str(area): area for area in (Area.CONVERSATIONS, Area.SKILLS, Area.SELF)}, **_NAMED}

AGENT_AREAS = frozenset(
    {Area.CONVERSATIONS, Area.EVENTS, Area.SKILLS, Area.SELF, Area.STATE, Area.META, Area.PRIVATE}
)  # all of one agent, as read the first time


@dataclass(frozen=True)
class AgentPaths:
    root: Path

    def __post_init__(self) -> None:
        register_root(self.workspace_root)  # every read and write below is confined to it (core/disk)

    @property
    def id(self) -> str:
        return self.root.name

    @property
    def conversations(self) -> Path:
        return self.root / Area.CONVERSATIONS

    @property
    def events(self) -> Path:
        return self.root / EVENTS_NAME

    @property
    def skills(self) -> Path:
        return self.root / Area.SKILLS

    @property
    def self_dir(self) -> Path:
        return self.root / Area.SELF

    @property
    def private(self) -> Path:
        return self.root / PRIVATE_NAME

    @property
    def state(self) -> Path:
        return self.private / STATE_NAME

    @property
    def meta(self) -> Path:
        return self.root / META_NAME

    def note(self, note: str) -> Path:
        return self.self_dir / f"{note}.md"

    def skill(self, slug: str) -> Path:
        if not SLUG.match(slug):
            raise WorkspaceError(f"not a valid skill slug: {slug!r}")
        return self.skills / f"{slug}.md"

    @property
    def workspace_root(self) -> Path:
        return self.root.parent.parent

    def contains(self, path: Path) -> bool:
        """True when ``path``'s real location (links and ``..`` resolved) is inside the workspace
        (:func:`~orkas_tui.core.disk.confine.confined`, the check every read and write makes)."""
        try:
            confined(path)
        except OutsideWorkspace:
            return False
        return True

    def unsafe_paths(self) -> list[str]:
        """One line for each of the agent's own folders (and ``events.jsonl``) that must not be used:
        linked out of the workspace, a link loop, not a folder (not a regular file), or an
        ``events.jsonl`` that cannot be read and appended to. Nothing is read from or written
        through them (:mod:`orkas_tui.core.disk.confine` refuses it), and no change is made meanwhile."""
        return self._lines(self._unsafe())

    def _lines(self, unsafe: dict[Path, str]) -> list[str]:
        return [
            f"{path}: {problem}; {'nothing in it is' if path == self.root else 'not'} read or written"
            for path, problem in unsafe.items()
        ]

    def _unsafe(self) -> dict[Path, str]:
        if (problem := _unsafe(self.root, stat.S_ISDIR, "folder")) is not None:
            return {self.root: problem}
        found = {}
        for path, test, kind in (
            (self.conversations, stat.S_ISDIR, "folder"),
            (self.skills, stat.S_ISDIR, "folder"),
            (self.self_dir, stat.S_ISDIR, "folder"),
            (self.private, stat.S_ISDIR, "folder"),
            (self.events, stat.S_ISREG, "regular file"),
        ):
            if (problem := _unsafe(path, test, kind)) is not None:
                found[path] = problem
        return found

    def require_safe(self) -> None:
        """Raise :class:`WorkspaceError` before any change when :meth:`unsafe_paths` finds anything."""
        unsafe = self.unsafe_paths()
        if unsafe:
            raise WorkspaceError(f"agent {self.id} is not changed: {unsafe[0]}")

    def _files(self, folder: Path, suffix: str) -> list[tuple[str, str | None]]:
        """Names of the visible files with ``suffix`` in ``folder``, each with why it is not read (``None``: it is).

        A plain entry needs no system call (its type comes with the listing); only a link, or
        an entry that is not a plain file, is looked at further. Raises ``OSError`` when
        ``folder`` cannot be listed, :class:`OutsideWorkspace` when it lies outside the workspace.
        """
        try:
            real = confined(folder)
            with os.scandir(real) as listing:
                entries = sorted(
                    (e for e in listing if e.name.endswith(suffix) and not e.name.startswith(".")), key=lambda e: e.name
                )
        except (FileNotFoundError, NotADirectoryError):
            return []
        base = str(folder)
        files = []
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                problem = None if os.access(f"{base}/{entry.name}", os.R_OK) else "cannot be read (permission denied)"
            else:
                problem = self._odd_entry(folder / entry.name)
            files.append((entry.name, problem))
        return files

    def _odd_entry(self, path: Path) -> str | None:
        """Why a link or a non-file entry is not read (``None``: a link to a readable file inside)."""
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "is a link loop"
            if isinstance(exc, FileNotFoundError):
                return "links to nothing"
            return f"cannot be read ({exc.strerror})"
        if not self.contains(path):
            return "links outside the workspace"
        if not stat.S_ISREG(mode):
            return f"is {_KIND.get(stat.S_IFMT(mode), 'a special file')}, not a regular file"
        return None if os.access(path, os.R_OK) else "cannot be read (permission denied)"

    def readable_names(self, folder: Path, suffix: str) -> list[str]:
        """``folder``'s visible ``suffix`` files that are inside the workspace and readable; none when it cannot be listed."""
        try:
            files = self._files(folder, suffix)
        except OSError:
            return []
        return [name for name, problem in files if problem is None]

    def conversation_files(self) -> list[Path]:
        folder = self.conversations
        return [folder / name for name in self.readable_names(folder, ".jsonl")]

    def skipped_files(self) -> list[str]:
        """One line for each conversation, skill or note that is not read, saying why."""
        return self.survey().skipped

    def survey(self) -> Survey:
        """The conversation, skill and note folders listed once: what is read and why the rest is not
        (first the agent's folders that are not used at all, :meth:`unsafe_paths`)."""
        readable: dict[Area, list[str]] = {}
        refused = self._unsafe()
        problems = self._lines(refused)
        for area, suffix in ((Area.CONVERSATIONS, ".jsonl"), (Area.SKILLS, ".md"), (Area.SELF, ".md")):
            folder = self.root / area
            names = readable[area] = []
            if folder in refused or self.root in refused:
                continue
            try:
                files = self._files(folder, suffix)
            except OSError as exc:
                problems.append(f"{folder}: cannot be listed ({exc.strerror}); not read")
                continue
            for name, problem in files:
                if problem is not None:
                    problems.append(f"{folder}/{name}: {problem}; not read")
                else:
                    names.append(name)
        return Survey(readable, problems)


_KIND = {
    stat.S_IFREG: "a file",
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


def _unsafe(path: Path, test, kind: str) -> str | None:
    """Why ``path`` (absent is fine) cannot be used as the agent's ``kind``, or ``None``."""
    try:
        confined(path)
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None if not os.path.islink(path) else "links to nothing"
    except OutsideWorkspace:
        return "links outside the workspace"
    except OSError as exc:
        return "is a link loop" if exc.errno == errno.ELOOP else f"cannot be used ({exc.strerror})"
    if not test(mode):
        return f"is {_KIND.get(stat.S_IFMT(mode), 'a special file')}, not a {kind}"
    if stat.S_ISREG(mode) and not os.access(path, os.R_OK | os.W_OK):  # events.jsonl: bundled, and appended by each change
        return "cannot be read and appended to (permission denied)"
    return None


@dataclass(frozen=True)
class Survey:
    """Readable file names by folder (its :class:`Area`) and one line per file skipped."""

    readable: dict[Area, list[str]]
    skipped: list[str]


@dataclass(frozen=True)
class AgentMeta:
    name: str | None = None
    description: str | None = None
    problem: str | None = None


def read_agent_meta(paths: AgentPaths) -> AgentMeta:
    """``agent.toml`` is optional; a broken one is reported, not fatal."""
    path = paths.meta
    try:
        with open_regular(path) as handle:
            data = tomllib.loads(handle.read().decode("utf-8"))
    except FileNotFoundError:
        return AgentMeta()
    except OutsideWorkspace as exc:
        return AgentMeta(problem=str(exc))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return AgentMeta(problem=f"{path}: {exc}")
    name, description = data.get("name"), data.get("description")
    return AgentMeta(
        name=name if isinstance(name, str) else None,
        description=description if isinstance(description, str) else None,
    )


def read_state(paths: AgentPaths) -> dict:
    """orkas-tui's per-agent state; missing or corrupt state reads as empty."""
    return read_json_object(paths.state)


def write_state(paths: AgentPaths, **changes: object) -> dict:
    state = read_state(paths)
    state.update(changes)
    atomic_write(paths.state, orjson.dumps(state, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return state


class Workspace:
    def __init__(self, root: Path, settings: Settings | None = None) -> None:
        self.root = root
        self._settings = settings
        register_root(root)

    @classmethod
    def open(cls, explicit: str | os.PathLike | None = None) -> Workspace:
        root = resolve_root(explicit)
        if not root.is_dir():
            raise WorkspaceError(f"no workspace at {root} (create it, or pass --workspace PATH / set ORKAS_HOME)")
        return cls(root)

    @cached_property
    def _read_settings(self) -> tuple[Settings, tuple[str, ...]]:
        return (self._settings, ()) if self._settings is not None else read_settings(self.root)

    @property
    def settings(self) -> Settings:
        return self._read_settings[0]

    @property
    def settings_warnings(self) -> tuple[str, ...]:
        """The unknown keys of ``orkas.toml``, each named with a guess (the command line prints them)."""
        return self._read_settings[1]

    def use_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on: the app reloads ``orkas.toml`` while it runs."""
        self._settings = settings
        self.__dict__.pop("_read_settings", None)

    @property
    def settings_path(self) -> Path:
        """``orkas.toml``: every reader and writer of the settings finds it here."""
        return settings_path(self.root)

    @property
    def agents_dir(self) -> Path:
        return self.root / AGENTS_NAME

    @property
    def private(self) -> Path:
        return self.root / PRIVATE_NAME

    def agent_ids(self) -> list[str]:
        try:
            entries = sorted(self.agents_dir.iterdir())
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [p.name for p in entries if AGENT_ID.match(p.name) and p.is_dir()]

    def agent(self, agent_id: str) -> AgentPaths:
        if not AGENT_ID.match(agent_id or ""):
            raise WorkspaceError(f"not a valid agent id: {agent_id!r}")
        path = self.agents_dir / agent_id
        if not path.is_dir():
            raise WorkspaceError(f"no agent {agent_id!r} in {self.root}")
        return AgentPaths(path)


WHOLE_WORKSPACE = "*"  # the agent a change to the workspace's own files belongs to: every one


def area_at(parts: tuple[str, ...]) -> tuple[str, Area] | None:
    """``(agent id, area)`` of a path inside the workspace, given as its parts below the root, by the
    layout :class:`Workspace` and :class:`AgentPaths` name (``orkas.toml``: :data:`WHOLE_WORKSPACE`'s
    settings; an agent's ``.orkas``: its state or the rest of it); ``None``: not part of any area."""
    if parts == (SETTINGS_NAME,):
        return WHOLE_WORKSPACE, Area.SETTINGS
    if parts[:1] == (PRIVATE_NAME,):
        return (WHOLE_WORKSPACE, Area.CYCLE) if parts[-1] == STATE_NAME else None
    if len(parts) < 2 or parts[0] != AGENTS_NAME:
        return None
    if len(parts) == 2:
        return parts[1], Area.AGENT
    if parts[2] == PRIVATE_NAME:
        return parts[1], Area.STATE if parts[-1] == STATE_NAME else Area.PRIVATE
    area = _TOP.get(parts[2])
    return (parts[1], area) if area else None
