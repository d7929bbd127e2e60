"""What runs a workspace's reflection schedule: the daemon, or an agent's hooks. Nothing else does.

The queue promises a next cycle only when one of these will run it:

- **the daemon** (``orkas-tui daemon``, by hand or as a service) holds ``.orkas/daemon.lock``
  for as long as it runs, with its pid in it. The lock, not the pid, is the proof: a pid
  file outlives a killed process, a ``flock`` does not.
- **hooks**: an orkas-tui hook command (``orkas-tui hook claude-code`` / ``hook codex``)
  for this workspace in Claude Code's ``settings.json`` or Codex's ``config.toml`` or
  ``hooks.json``, or the orkas-tui plugin enabled in Claude Code's settings. A hook starts
  a cycle only when a session of that agent ends a turn, so with hooks alone the next
  cycle is "at the first hook run after" the time the schedule says.

The files are read as data, never changed; every string under a ``command`` key, and the
``notify`` list, is read as a command line, so the check does not depend on where in the
file an installer put it. A hook with no ``--workspace`` serves ``~/.orkas`` (``hooks install`` names any other).
"""

from __future__ import annotations

import errno
import fcntl
import os
import shlex
import stat
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import open_confined
from orkas_tui.core.read.workspace import Workspace

DAEMON_LOCK = "daemon.lock"
PROGRAM = "orkas-tui"
MAX_BYTES = 4 << 20  # a settings file larger than this is not one we wrote into
PLUGIN = "orkas-tui@"  # an enabledPlugins key of Claude Code: "<plugin>@<marketplace>"
NOTHING = (
    "nothing runs the schedule: install the hooks (orkas-tui hooks install claude-code, or codex) "
    "or run the daemon (orkas-tui service install)"
)


@dataclass(frozen=True)
class Keepers:
    """Who will run the next cycle: the daemon's pid, and the hooks found (each named with its file)."""

    daemon_pid: int | None
    hooks: tuple[str, ...]

    @property
    def any(self) -> bool:
        return self.daemon_pid is not None or bool(self.hooks)

    def text(self) -> str:
        """``the daemon (pid 42)``, ``claude-code hooks (~/.claude/settings.json), at the first hook run after it``, or :data:`NOTHING`."""
        if self.daemon_pid is not None:
            return f"the daemon (pid {self.daemon_pid})"
        if self.hooks:
            return f"{', '.join(self.hooks)}, at the first hook run after it"
        return NOTHING

    def to_json(self) -> dict:
        return {"daemon_pid": self.daemon_pid, "hooks": list(self.hooks), "text": self.text()}


@contextmanager
def daemon_lock(workspace: Workspace) -> Iterator[None]:
    """Held by the daemon for its whole run; :class:`BlockingIOError` if another daemon holds it."""
    workspace.private.mkdir(parents=True, exist_ok=True)
    fd = open_confined(workspace.private / DAEMON_LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing drops the lock


def daemon_pid(workspace: Workspace) -> int | None:
    """The running daemon's pid (0 when it wrote none), or ``None`` when no process holds the lock."""
    try:
        fd = open_confined(workspace.private / DAEMON_LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                return None
            text = os.read(fd, 32).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else 0
        return None  # nobody holds it: a daemon that stopped
    finally:
        os.close(fd)


def hook_files(home: Path) -> list[tuple[str, Path]]:
    """(agent, file) where each agent's hooks may be installed for this user."""
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) if os.environ.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    codex = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else home / ".codex"
    return [("claude-code", claude / "settings.json"), ("codex", codex / "config.toml"), ("codex", codex / "hooks.json")]


def installed_hooks(root: Path, home: Path) -> tuple[str, ...]:
    """The hooks that serve the workspace at ``root``, one phrase each (``claude-code hooks (~/.claude/settings.json)``)."""
    default = (home / ".orkas").absolute() == root.expanduser().absolute()  # where a hook with no --workspace imports
    found: list[str] = []
    for agent, path in hook_files(home):
        document = _document(path)
        if document is None:
            continue
        shown = "~" + str(path)[len(str(home)) :] if path.is_relative_to(home) else str(path)
        if any(_serves(words, agent, root, default) for words in _commands(document)):
            found.append(f"{agent} hooks ({shown})")
        elif agent == "claude-code" and default and _plugin_enabled(document):
            found.append(f"the claude-code plugin ({shown})")
    return tuple(dict.fromkeys(found))


def keepers(workspace: Workspace, home: Path | None = None) -> Keepers:
    """What will run this workspace's next cycle (``home``: the user's home, where the agents keep their settings)."""
    return Keepers(daemon_pid(workspace), installed_hooks(workspace.root, home or Path.home()))


def _document(path: Path) -> object | None:
    """The file's data (JSON, or TOML by its suffix); ``None`` when it is missing, unreadable or malformed."""
    try:  # the user's own settings, outside the workspace: read where they are, a regular file only
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_BYTES)
        return tomllib.loads(data.decode()) if path.suffix == ".toml" else orjson.loads(data)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _commands(document: object) -> Iterator[list[str]]:
    """Every command line in a settings document: strings under ``command`` keys, and the ``notify`` list.
    Walked with a stack, not recursion: a file nested a thousand deep is data, not a crash."""
    stack: list[tuple[str, object]] = [("", document)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((str(name), item) for name, item in value.items())
        elif isinstance(value, list):
            if key in ("notify", "command") and value and all(isinstance(w, str) for w in value):
                yield list(value)
            else:
                stack.extend((key, item) for item in value)
        elif isinstance(value, str) and key == "command":
            try:
                yield shlex.split(value)
            except ValueError:
                continue


def _serves(words: list[str], agent: str, root: Path, default: bool) -> bool:
    """``<…>/orkas-tui hook <agent> …`` whose ``--workspace`` is ``root`` (none: the default workspace)."""
    if len(words) < 3 or Path(words[0]).name != PROGRAM or words[1:3] != ["hook", agent]:
        return False
    if "--workspace" in words[:-1]:
        named = Path(words[words.index("--workspace") + 1]).expanduser().absolute()
        return named == root.expanduser().absolute()
    return default


def _plugin_enabled(document: object) -> bool:
    plugins = document.get("enabledPlugins") if isinstance(document, dict) else None
    return isinstance(plugins, dict) and any(str(name).startswith(PLUGIN) and on is True for name, on in plugins.items())
