"""Where things are: the workspace root, its agents, and each agent's paths."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import orjson

from orkas_tui.config import Settings, load_settings
from orkas_tui.core.files import atomic_write, read_json_object

AGENT_ID = re.compile(r"^[a-z0-9_-]{1,64}$")
SLUG = AGENT_ID


class WorkspaceError(RuntimeError):
    """The workspace or an agent in it cannot be used; the message says why."""


def resolve_root(explicit: str | os.PathLike | None = None) -> Path:
    """``--workspace`` first, then ``$ORKAS_HOME``, then ``~/.orkas``."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("ORKAS_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".orkas"


@dataclass(frozen=True)
class AgentPaths:
    root: Path

    @property
    def id(self) -> str:
        return self.root.name

    @property
    def conversations(self) -> Path:
        return self.root / "conversations"

    @property
    def events(self) -> Path:
        return self.root / "events.jsonl"

    @property
    def skills(self) -> Path:
        return self.root / "skills"

    @property
    def self_dir(self) -> Path:
        return self.root / "self"

    @property
    def private(self) -> Path:
        return self.root / ".orkas"

    @property
    def state(self) -> Path:
        return self.private / "state.json"

    def note(self, note: str) -> Path:
        return self.self_dir / f"{note}.md"

    def skill(self, slug: str) -> Path:
        if not SLUG.match(slug):
            raise WorkspaceError(f"not a valid skill slug: {slug!r}")
        return self.skills / f"{slug}.md"

    @property
    def workspace_root(self) -> Path:
        return self.root.parent.parent

    @cached_property
    def _real_root(self) -> Path:
        return self.workspace_root.resolve()

    def contains(self, path: Path) -> bool:
        """True when ``path``, symlinks resolved, is inside the workspace: links out of it are never followed."""
        try:
            return path.resolve().is_relative_to(self._real_root)
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop
            return False

    def _files(self, folder: Path, suffix: str) -> list[tuple[str, bool]]:
        """Names of the visible files with ``suffix`` in ``folder``, each with whether it is inside the workspace.

        The folder is resolved once; an entry is resolved only when it is itself a
        symlink (a plain entry is inside exactly when its folder is): one ``resolve()``
        per listing instead of one per file. Raises ``OSError`` when ``folder`` cannot be listed.
        """
        try:
            with os.scandir(folder) as listing:
                entries = sorted((e for e in listing if e.name.endswith(suffix) and not e.name.startswith(".")),
                                 key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return []
        folder_inside = self.contains(folder)
        files = []
        for entry in entries:
            if not entry.is_symlink():
                if entry.is_file():
                    files.append((entry.name, folder_inside))
            elif (path := folder / entry.name).is_file():
                files.append((entry.name, self.contains(path)))
        return files

    def readable_names(self, folder: Path, suffix: str) -> list[str]:
        """``folder``'s visible ``suffix`` files that are inside the workspace and readable; none when it cannot be listed."""
        try:
            files = self._files(folder, suffix)
        except OSError:
            return []
        base = str(folder)
        return [name for name, inside in files if inside and os.access(f"{base}/{name}", os.R_OK)]

    def conversation_files(self) -> list[Path]:
        folder = self.conversations
        return [folder / name for name in self.readable_names(folder, ".jsonl")]

    def skipped_files(self) -> list[str]:
        """One line for each conversation, skill or note that is not read, saying why."""
        return self.survey().skipped

    def survey(self) -> Survey:
        """The conversation, skill and note folders listed once: what is read and why the rest is not."""
        readable: dict[str, list[str]] = {}
        problems = []
        for folder, suffix in ((self.conversations, ".jsonl"), (self.skills, ".md"), (self.self_dir, ".md")):
            names = readable[folder.name] = []
            try:
                files = self._files(folder, suffix)
            except OSError as exc:
                problems.append(f"{folder}: cannot be listed ({exc.strerror}); not read")
                continue
            for name, inside in files:
                path = f"{folder}/{name}"
                if not inside:
                    problems.append(f"{path}: links outside the workspace; not read")
                elif not os.access(path, os.R_OK):
                    problems.append(f"{path}: cannot be read (permission denied); not read")
                else:
                    names.append(name)
        return Survey(readable, problems)


@dataclass(frozen=True)
class Survey:
    """Readable file names by folder (``conversations``, ``skills``, ``self``) and one line per file skipped."""

    readable: dict[str, list[str]]
    skipped: list[str]


@dataclass(frozen=True)
class AgentMeta:
    name: str | None = None
    description: str | None = None
    problem: str | None = None


def read_agent_meta(paths: AgentPaths) -> AgentMeta:
    """``agent.toml`` is optional; a broken one is reported, not fatal."""
    path = paths.root / "agent.toml"
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return AgentMeta()
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

    @classmethod
    def open(cls, explicit: str | os.PathLike | None = None) -> "Workspace":
        root = resolve_root(explicit)
        if not root.is_dir():
            raise WorkspaceError(f"no workspace at {root} (create it, or pass --workspace PATH / set ORKAS_HOME)")
        return cls(root)

    @cached_property
    def settings(self) -> Settings:
        return self._settings if self._settings is not None else load_settings(self.root)

    def use_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on: the app reloads ``orkas.toml`` while it runs."""
        self._settings = settings
        self.__dict__.pop("settings", None)

    @property
    def agents_dir(self) -> Path:
        return self.root / "agents"

    @property
    def private(self) -> Path:
        return self.root / ".orkas"

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
