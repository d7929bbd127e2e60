"""What a hook runs after each turn: import that session's new lines, maybe start a cycle.

Claude Code runs ``orkas-tui hook claude-code`` on ``Stop`` and ``SessionEnd`` with the
hook's JSON on stdin; Codex runs ``orkas-tui hook codex`` as its ``notify`` program with
one JSON argument. Either way the hook must never harm the session: it prints nothing,
exits 0, and never waits long. Every lock is tried until :data:`WAIT_S` has passed, and a
session whose lock is still held is left ("deferred") for the next hook or import, which
reads it then: imports are incremental. Each run and each problem is one line of the
hook log (:mod:`orkas_tui.importers.hook_log`).

A cycle is started only when a model is configured and the schedule says one is due
(``last_cycle_at + cycle_interval``, as the daemon decides); it runs detached (``orkas-tui
cycle``, which picks the agents), holding the workspace's ``cycle.lock`` for its whole
life, so two hooks never start two cycles and no hook waits for a model.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import confined
from orkas_tui.core.read.settings import ConfigError
from orkas_tui.core.read.timefmt import utc_now
from orkas_tui.core.read.workspace import AGENT_ID, AgentPaths, Workspace, WorkspaceError
from orkas_tui.core.store.journal import apply_lock
from orkas_tui.importers import claude_code, codex
from orkas_tui.importers.hook_log import append_log
from orkas_tui.importers.run import DEFAULT_SETTLE, import_files, refusal
from orkas_tui.importers.skills import SkillIndex

WAIT_S = 0.5  # the longest a hook waits for any lock, in all
THREAD_ID = re.compile(r"^[A-Za-z0-9-]{1,128}$")
TURN_COMPLETE = "agent-turn-complete"


class Refused(Exception):
    """The hook's input names nothing to import: one log line, nothing done."""


def run_claude_code(root: Path, agent: str, stdin: bytes) -> None:
    """The ``Stop`` / ``SessionEnd`` hook: import the transcript named on stdin, and its subagents'.

    After ``SessionEnd`` nothing more comes, so the last turn ends now; after ``Stop`` it
    stays running until the next prompt or the usual quiet time (Claude Code writes no
    end-of-turn marker, and a late line must not open a turn of its own)."""
    try:
        event = orjson.loads(stdin).get("hook_event_name")
    except (orjson.JSONDecodeError, AttributeError):
        event = None
    _run(root, agent, claude_code.NAME, lambda: _claude_files(stdin), 0.0 if event == "SessionEnd" else DEFAULT_SETTLE)


def run_codex(root: Path, agent: str, payload: str | None) -> None:
    """The ``notify`` program: on ``agent-turn-complete``, import that thread's rollout; anything else is ignored."""
    try:
        value = orjson.loads(payload or "")
    except orjson.JSONDecodeError:
        value = None
    if isinstance(value, dict) and value.get("type") != TURN_COMPLETE and isinstance(value.get("type"), str):
        return  # other notifications: nothing to import, and nothing to say each time
    _run(root, agent, codex.NAME, lambda: _codex_files(value, payload), DEFAULT_SETTLE)


def _run(root: Path, agent: str, fmt: str, files, settle: float) -> None:
    """Everything a hook does, every failure logged and swallowed: a hook never fails its caller."""
    deadline = time.monotonic() + WAIT_S
    private = root / ".orkas"
    try:
        if not AGENT_ID.match(agent):
            raise Refused(f"not a valid agent id: {agent!r}")
        (root / "agents").mkdir(parents=True, exist_ok=True)  # two first hooks may race to create it
        workspace = Workspace(root)
        paths = AgentPaths(workspace.agents_dir / agent)
        private = paths.private
        chosen = files()
        paths.conversations.mkdir(parents=True, exist_ok=True)
        _import(workspace, paths, fmt, chosen, deadline, settle)
    except Refused as exc:
        _log(private, "problem", tool=fmt, message=str(exc))
    except (OSError, WorkspaceError, ConfigError, ValueError) as exc:
        _log(private, "problem", tool=fmt, message=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a hook never shows a traceback to the session it serves
        _log(private, "problem", tool=fmt, message=f"unexpected {type(exc).__name__}: {exc}")


def log_refusal(root: Path, fmt: str, message: str) -> None:
    """A problem met before the agent is known: the workspace's own hook log."""
    _log(root / ".orkas", "problem", tool=fmt, message=message)


def _import(workspace: Workspace, paths: AgentPaths, fmt: str, files: list[Path], deadline: float, settle: float) -> None:
    session = str(files[0])
    try:
        with apply_lock(paths, deadline=deadline):
            index = SkillIndex(paths, workspace.settings, fmt, Path.home(), utc_now())
            stats = import_files(paths, workspace.settings, fmt, files, settle, index=index, deadline=deadline)
    except BlockingIOError:
        _log(
            paths.private,
            "deferred",
            tool=fmt,
            session=session,
            message="an approve or edit holds the agent; the next hook imports it",
        )
        return
    if stats.deferred:
        _log(
            paths.private,
            "deferred",
            tool=fmt,
            session=session,
            message=f"another import holds {len(stats.deferred)} file(s); the next hook imports them",
        )
    for problem in [*stats.problems, *index.result.conflicts, *index.result.problems]:
        _log(paths.private, "problem", tool=fmt, session=session, message=problem)
    cycle = _start_cycle(workspace)
    _log(
        paths.private,
        "imported",
        tool=fmt,
        session=session,
        files=stats.files - len(stats.deferred),
        lines=stats.lines,
        turns=stats.turns,
        **({"cycle": cycle} if cycle else {}),
    )


def _log(private: Path, kind: str, **fields: object) -> None:
    try:
        append_log(private, kind, **fields)
    except OSError as exc:  # the one thing a hook says, and only when it cannot write its log
        print(f"orkas-tui hook: cannot write {private}/hooks.log: {exc}", file=sys.stderr)


def _claude_files(stdin: bytes) -> list[Path]:
    """The session named by the hook's JSON, then its subagents' files; refused unless under ``<config>/projects``."""
    if not stdin.strip():
        raise Refused("empty input: Claude Code gives the hook's JSON on stdin")
    try:
        value = orjson.loads(stdin)
    except orjson.JSONDecodeError:
        raise Refused(f"input is not JSON: {stdin[:80]!r}") from None
    named = value.get("transcript_path") if isinstance(value, dict) else None
    if not isinstance(named, str) or not named:
        raise Refused("input has no transcript_path")
    projects = claude_code.default_sources(Path.home())[0]
    path = _inside(Path(named).expanduser(), projects, claude_code.NAME)
    folder = path.parent / path.stem / "subagents"
    subagents = sorted(p for p in folder.glob("*.jsonl") if _regular(p)) if folder.is_dir() else []
    return [path, *subagents]


def _codex_files(value: object, payload: str | None) -> list[Path]:
    """The rollout of the payload's thread: ``sessions/YYYY/MM/DD/rollout-*-<thread>.jsonl``, newest days first."""
    if not isinstance(value, dict):
        raise Refused(f"notify argument is not a JSON object: {(payload or '')[:80]!r}")
    thread = value.get("thread-id")
    if not isinstance(thread, str) or not THREAD_ID.match(thread):
        raise Refused(f"agent-turn-complete without a usable thread-id: {thread!r}")
    sessions = codex.default_sources(Path.home())[0]
    for day in _days_newest_first(sessions):
        found = sorted(day.glob(f"rollout-*-{thread}.jsonl"))
        if found:
            return [_inside(found[-1], sessions, codex.NAME)]
    raise Refused(f"no rollout file for thread {thread} under {sessions}")


def _days_newest_first(sessions: Path) -> list[Path]:
    days = []
    for year in _numbered(sessions):
        for month in _numbered(year):
            days += _numbered(month)
    return sorted(days, key=lambda d: d.relative_to(sessions).parts, reverse=True)


def _numbered(folder: Path) -> list[Path]:
    try:
        return [entry for entry in folder.iterdir() if entry.name.isdigit() and entry.is_dir()]
    except OSError:
        return []


def _inside(path: Path, folder: Path, fmt: str) -> Path:
    """``path`` resolved (links first), refused unless it is a regular transcript of ``fmt`` inside ``folder``."""
    real = Path(os.path.realpath(path))
    base = Path(os.path.realpath(folder))
    if not real.is_relative_to(base):
        raise Refused(f"{path}: outside {folder}; not imported")
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        raise Refused(f"{path}: no such file") from None
    if not stat.S_ISREG(mode):
        raise Refused(f"{path}: not a regular file; not read")
    reason = refusal(fmt, real)
    if reason is not None:
        raise Refused(reason)
    return real


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _start_cycle(workspace: Workspace) -> str | None:
    """Start ``orkas-tui cycle`` detached when the schedule's clock says one is due, as the daemon would;
    what was done, or ``None``. The cycle plans its own queue: planning it here read every agent's
    summary, 1.8 s for the 2.9 MB sample session with a cold cache, too long for a hook."""
    if not workspace.settings.model.name:
        return None
    from orkas_tui.core.reflect.queue import last_cycle_at, next_cycle_at

    now = utc_now()
    if now < next_cycle_at(last_cycle_at(workspace), now, workspace.settings.schedule.cycle_interval):
        return None
    from orkas_tui.core.reflect.spend import over_budget

    if reason := over_budget(workspace, now):
        return reason  # the cycle would select nobody: the hook log says why none started
    workspace.private.mkdir(parents=True, exist_ok=True)
    fd = os.open(confined(workspace.private / "cycle.lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return "already running"
        with open(confined(workspace.private / "cycle.log"), "ab") as out:  # the cycle's report; never through a link out
            subprocess.Popen(
                [sys.executable, "-m", "orkas_tui", "--workspace", str(workspace.root), "cycle"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                pass_fds=(fd,),  # the child holds the lock until it exits; this process just closes its copy
            )
        return "started"
    finally:
        os.close(fd)
