"""The hook's slow half: ``orkas-tui hook --drain``, started detached by a hook (:mod:`.spool`).

A drain holds the workspace's ``.orkas/hook-drain.lock`` for its whole life, so one runs
at a time, and imports the sessions the spool names with the importer's own code, which
is incremental: a session read again adds only what it does not hold yet. Each pass takes
the spool (renamed ``hook-spool.taken``), imports every session it names, and deletes it
only then; a drain killed at any point leaves the taken spool to the next one.

A ``SessionStart`` line also catches up (docs/importers.md): every transcript of that
format modified since the agent's last catch-up is read, so what a killed or skipped hook
left comes in when the next session starts, at the latest.

A session whose lock is still held after :data:`WAIT_S` (an approve or an edit holds the
agent, an ``import --watch`` the session) is left in ``hook-spool.deferred`` for the next
pass ("deferred"); that pass comes with the next hook. Each import and each problem is one
line of the agent's hook log (:mod:`orkas_tui.importers.hook_log`).

A cycle is started only when a model is configured and the schedule says one is due
(``last_cycle_at + cycle_interval``, as the daemon decides); it runs detached (``orkas-tui
cycle``, which picks the agents), holding the workspace's ``cycle.lock`` for its whole
life, so two drains never start two cycles and no drain waits for a model.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import confined, read_json_object, read_versioned
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.settings import ConfigError
from orkas_tui.core.read.timefmt import utc_now
from orkas_tui.core.read.workspace import AGENT_ID, AgentPaths, Workspace, WorkspaceError
from orkas_tui.core.store.journal import apply_lock
from orkas_tui.importers import claude_code, codex
from orkas_tui.importers.hook_log import append_log
from orkas_tui.importers.run import DEFAULT_SETTLE, import_files, refusal
from orkas_tui.importers.skills import SkillIndex
from orkas_tui.importers.spool import DRAIN_LOCK, SESSION_START, SPOOL, TAKEN, kill_point

WAIT_S = 2.0  # the longest a drain waits for an agent's or a session's lock before leaving it for the next pass
DEFERRED = "hook-spool.deferred"
CATCH_UP = "hook-catch-up.json"  # in an agent's .orkas: when each format's last catch-up began
FIRST_LOOKBACK_S = 24 * 3600.0  # an agent's first catch-up reads the transcripts of the last day
MTIME_SLACK_S = 2.0  # a transcript written as the last catch-up began is read again, never missed
THREAD_ID = re.compile(r"^[A-Za-z0-9-]{1,128}$")


class Refused(Exception):
    """A spool line names nothing to import: one log line, nothing done."""


@dataclass
class _Line:
    raw: bytes
    fmt: str
    agent: str
    event: str
    path: str | None
    session: str | None
    problem: str | None


@dataclass
class _Session:
    fmt: str
    files: list[Path]
    settle: float
    raws: list[bytes] = field(default_factory=list)


@dataclass
class _Pass:
    """What one pass did: the lines to keep for the next, and the log lines to write once it is committed."""

    deferred: list[bytes] = field(default_factory=list)
    logs: list[tuple[Path, str, dict]] = field(default_factory=list)
    last_run: tuple[Path, str, dict] | None = None  # the last "imported" line: a cycle started is said there

    def log(self, private: Path, kind: str, **fields: object) -> None:
        self.logs.append((private, kind, fields))


def drain_command(argv: list[str]) -> None:
    """``hook --drain [--lock-fd N] [--workspace PATH]``: N is the held ``hook-drain.lock`` a hook passed on."""
    options = dict(zip(argv[::2], argv[1::2], strict=False))
    from orkas_tui.core.read.home import root_path

    root = Path(os.path.abspath(root_path(options.get("--workspace"))))
    lock = int(options["--lock-fd"]) if "--lock-fd" in options else None
    try:
        drain(root, lock)
    except Exception as exc:  # detached, its output on /dev/null: the workspace's hook log is where it is said
        _log(root / ".orkas", "problem", tool="", message=f"the detached import stopped: {type(exc).__name__}: {exc}")


def drain(root: Path, lock: int | None = None) -> None:
    """Import what the spool names until it is empty; ``lock``: ``hook-drain.lock``, already held."""
    workspace = Workspace(root)
    private = workspace.private
    if lock is None:
        private.mkdir(parents=True, exist_ok=True)
        lock = os.open(confined(private / DRAIN_LOCK), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        while True:
            kill_point("drain-start")
            while _pass(workspace):
                pass
            fcntl.flock(lock, fcntl.LOCK_UN)
            if not os.path.lexists(private / SPOOL):
                return
            try:  # a hook appended while the lock was held: it counted on this drain
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # another drain has it, and reads the spool itself
    finally:
        os.close(lock)


def _pass(workspace: Workspace) -> bool:
    """Take the spool, import what it (and what was deferred) names, then delete it; ``False``: nothing to take."""
    private = workspace.private
    taken = Path(confined(private / TAKEN))
    if not os.path.lexists(taken):
        try:
            os.rename(confined(private / SPOOL), taken)
        except FileNotFoundError:
            return False
    kill_point("drain-taken")
    deferred_path = private / DEFERRED
    lines = _parse(workspace, (read_versioned(deferred_path)[0] or b"") + _read_taken(taken))
    done = _Pass()
    by_agent: dict[str, list[_Line]] = {}
    for line in lines:
        by_agent.setdefault(line.agent, []).append(line)
    for agent, items in by_agent.items():
        _agent(workspace, agent, items, done)
    _cycle(workspace, done)
    if done.deferred or os.path.lexists(deferred_path):
        atomic_write(deferred_path, b"".join(done.deferred))
    kill_point("drain-imported")
    os.unlink(taken)
    for private_dir, kind, fields in done.logs:
        _log(private_dir, kind, **fields)
    return True


def _read_taken(taken: Path) -> bytes:
    """The taken spool's bytes, once no hook is still writing into it (their shared locks are gone)."""
    fd = os.open(taken, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        fcntl.flock(fd, fcntl.LOCK_EX)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


def _parse(workspace: Workspace, data: bytes) -> list[_Line]:
    lines = []
    for raw in data.splitlines(keepends=True):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = None
        if not isinstance(value, dict) or not all(isinstance(value.get(k), str) for k in ("fmt", "agent")):
            if raw.strip():  # a line cut by a full disk, or written by hand
                _log(workspace.private, "problem", tool="", message=f"spool line not understood: {raw[:80]!r}")
            continue
        text = {k: value[k] if isinstance(value.get(k), str) else None for k in ("event", "path", "session", "problem")}
        raw = raw if raw.endswith(b"\n") else raw + b"\n"
        lines.append(
            _Line(raw, value["fmt"], value["agent"], text["event"] or "", text["path"], text["session"], text["problem"])
        )
    return lines


def _agent(workspace: Workspace, agent: str, lines: list[_Line], done: _Pass) -> None:
    """Everything the spool names for one agent, every failure logged and swallowed."""
    private = workspace.private
    try:
        if not AGENT_ID.match(agent):
            for line in lines:  # no agent named: the line says what is wrong (a bad format)
                message = line.problem if not agent and line.problem else f"not a valid agent id: {agent!r}"
                done.log(private, "problem", tool=line.fmt, message=message)
            return
        (workspace.root / "agents").mkdir(parents=True, exist_ok=True)  # two first hooks may race to create it
        paths = AgentPaths(workspace.agents_dir / agent)
        private = paths.private
        sessions, catch_ups = _sessions(lines, private, done)
        if sessions or catch_ups:
            paths.conversations.mkdir(parents=True, exist_ok=True)
            _import(workspace, paths, sessions, catch_ups, done)
    except (OSError, WorkspaceError, ConfigError, ValueError) as exc:
        done.log(private, "problem", tool=lines[0].fmt, message=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a drain never stops on one agent's trouble
        done.log(private, "problem", tool=lines[0].fmt, message=f"unexpected {type(exc).__name__}: {exc}")


def _sessions(lines: list[_Line], private: Path, done: _Pass) -> tuple[dict[str, _Session], dict[str, list[bytes]]]:
    """The sessions the lines name (each once, ended if any line says so), and the formats to catch up."""
    sessions: dict[str, _Session] = {}
    catch_ups: dict[str, list[bytes]] = {}
    for line in lines:
        if line.problem is not None:
            done.log(private, "problem", tool=line.fmt, message=line.problem)
            continue
        if line.event == SESSION_START:
            catch_ups.setdefault(line.fmt, []).append(line.raw)
            continue
        try:
            files = _claude_files(line.path) if line.fmt == claude_code.NAME else _codex_files(line.path, line.session)
        except Refused as exc:
            done.log(private, "problem", tool=line.fmt, message=str(exc))
            continue
        settle = 0.0 if line.event == "SessionEnd" else DEFAULT_SETTLE  # nothing comes after SessionEnd
        session = sessions.setdefault(f"{line.fmt}:{files[0]}", _Session(line.fmt, files, settle))
        session.settle = min(session.settle, settle)
        session.raws.append(line.raw)
    return sessions, catch_ups


def _import(
    workspace: Workspace, paths: AgentPaths, sessions: dict[str, _Session], catch_ups: dict[str, list[bytes]], done: _Pass
) -> None:
    """The sessions, then the catch-ups, under the agent's lock; all left for the next pass if it stays held."""
    try:
        with apply_lock(paths, deadline=time.monotonic() + WAIT_S):
            indexes: dict[str, SkillIndex] = {}
            for session in sessions.values():
                index = _index(indexes, workspace, paths, session.fmt)
                _one(workspace, paths, session, index, done)
            for fmt, raws in catch_ups.items():
                seen = {str(p) for s in sessions.values() if s.fmt == fmt for p in s.files}
                _catch_up(workspace, paths, fmt, seen, raws, _index(indexes, workspace, paths, fmt), done)
    except BlockingIOError:
        kept = [raw for group in [*(s.raws for s in sessions.values()), *catch_ups.values()] for raw in group]
        done.deferred += kept
        fmt = next(iter(sessions.values())).fmt if sessions else next(iter(catch_ups))
        done.log(paths.private, "deferred", tool=fmt, message="an approve or edit holds the agent; the next hook imports it")


def _index(indexes: dict[str, SkillIndex], workspace: Workspace, paths: AgentPaths, fmt: str) -> SkillIndex:
    if fmt not in indexes:
        indexes[fmt] = SkillIndex(paths, workspace.settings, fmt, Path.home(), utc_now())
    return indexes[fmt]


def _one(workspace: Workspace, paths: AgentPaths, session: _Session, index: SkillIndex, done: _Pass, label: str = "") -> None:
    """Import ``session``'s files (committed when this returns); a file another import holds goes back for the next pass."""
    fmt, name = session.fmt, label or str(session.files[0])
    stats = import_files(
        paths, workspace.settings, fmt, session.files, session.settle, index=index, deadline=time.monotonic() + WAIT_S
    )
    if stats.deferred:
        done.deferred += session.raws
        message = f"another import holds {len(stats.deferred)} file(s); the next hook imports them"
        done.log(paths.private, "deferred", tool=fmt, session=name, message=message)
    for problem in [*stats.problems, *index.result.conflicts, *index.result.problems]:
        done.log(paths.private, "problem", tool=fmt, session=name, message=problem)
    index.result.conflicts.clear()  # said once
    index.result.problems.clear()
    files = stats.files - len(stats.deferred)
    done.log(paths.private, "imported", tool=fmt, session=name, files=files, lines=stats.lines, turns=stats.turns)
    done.last_run = done.logs[-1]


def _catch_up(
    workspace: Workspace, paths: AgentPaths, fmt: str, seen: set[str], raws: list[bytes], index: SkillIndex, done: _Pass
) -> None:
    """Every transcript of ``fmt`` modified since this agent's last catch-up began, read; then the mark moved on."""
    marks = read_json_object(paths.private / CATCH_UP)
    began = time.time()
    last = marks.get(fmt)
    since = (last if isinstance(last, (int, float)) else began - FIRST_LOOKBACK_S) - MTIME_SLACK_S
    chosen = []
    for path in recent_transcripts(fmt, since):
        reason = None if str(path) in seen else refusal(fmt, path)
        if reason is None:
            chosen.append(path)
        else:
            done.log(paths.private, "problem", tool=fmt, session="catch-up", message=reason)
    before = len(done.deferred)
    _one(workspace, paths, _Session(fmt, chosen, DEFAULT_SETTLE, raws), index, done, label="catch-up")
    if len(done.deferred) == before:  # a session left for later: the next catch-up looks again from the old mark
        atomic_write(paths.private / CATCH_UP, orjson.dumps({**marks, fmt: began}, option=orjson.OPT_SORT_KEYS) + b"\n")


def recent_transcripts(fmt: str, since: float) -> list[Path]:
    """The format's transcripts in its own folder (``~/.claude/projects``, ``~/.codex/sessions``) modified after
    ``since``; a Claude Code session's ``subagents/`` files come with it, as with its hook."""
    module = claude_code if fmt == claude_code.NAME else codex
    pattern = "*.jsonl" if fmt == claude_code.NAME else "rollout-*.jsonl"
    found: dict[Path, None] = {}
    for folder in module.default_sources(Path.home()):
        for path in sorted(folder.rglob(pattern)):
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                if stat.S_ISREG(info.st_mode) and info.st_mtime >= since:
                    found[path] = None
                    subagents = path.parent / path.stem / "subagents"
                    if fmt == claude_code.NAME and subagents.is_dir():
                        found.update(dict.fromkeys(sorted(p for p in subagents.glob("*.jsonl") if _regular(p))))
    return list(found)


def _cycle(workspace: Workspace, done: _Pass) -> None:
    """After an import, a cycle when one is due; what happened goes on the pass's last run line."""
    if done.last_run is None:
        return
    private, _, fields = done.last_run
    try:
        cycle = _start_cycle(workspace)
    except (OSError, WorkspaceError, ConfigError, ValueError) as exc:
        done.log(private, "problem", tool=fields["tool"], message=f"{type(exc).__name__}: {exc}")
        return
    if cycle:
        fields["cycle"] = cycle


def _log(private: Path, kind: str, **fields: object) -> None:
    with contextlib.suppress(OSError):  # detached: nobody to tell; the imports still come
        append_log(private, kind, **fields)


def _claude_files(named: str | None) -> list[Path]:
    """The session named by the hook's JSON, then its subagents' files; refused unless under ``<config>/projects``."""
    if not named:
        raise Refused("input has no transcript_path")
    projects = claude_code.default_sources(Path.home())[0]
    path = _inside(Path(named).expanduser(), projects, claude_code.NAME)
    folder = path.parent / path.stem / "subagents"
    subagents = sorted(p for p in folder.glob("*.jsonl") if _regular(p)) if folder.is_dir() else []
    return [path, *subagents]


def _codex_files(named: str | None, thread: str | None) -> list[Path]:
    """The rollout a Codex hook names, or else its thread's: ``sessions/YYYY/MM/DD/rollout-*-<thread>.jsonl``, newest days first."""
    sessions = codex.default_sources(Path.home())[0]
    if named:
        return [_inside(Path(named).expanduser(), sessions, codex.NAME)]
    if not isinstance(thread, str) or not THREAD_ID.match(thread):
        raise Refused(f"agent-turn-complete without a usable thread-id: {thread!r}")
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
    summary, 1.8 s for the 2.9 MB sample session with a cold cache."""
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
