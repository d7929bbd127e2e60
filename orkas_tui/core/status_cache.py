"""Each agent's history-derived status, kept so a warm ``status`` reads no history at all.

One file per agent, ``.orkas/status-cache.bin``: a header line, then the agent's
``turns`` array exactly as ``status --json`` prints it (indented for its place in
the document). It is used only while its key still holds: the format version, the
agent's folder, a digest of every setting, the tools ``self/profile.md`` names,
the last reflection, and (name, device, inode, size, mtime) of every conversation
and skill file that is read. Everything else in the status (name, problems,
skipped files, the queue's clock) is read fresh each time. A cache with another
key, the wrong length or a bad checksum is ignored and rewritten: never trusted.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.config import Settings
from orkas_tui.core.files import atomic_write, open_regular
from orkas_tui.core.notes import SelfNotes
from orkas_tui.core.queue import HistoryFacts, history_facts
from orkas_tui.core.report import history_status
from orkas_tui.core.scan import AgentScan
from orkas_tui.core.signals import weakness_tools
from orkas_tui.core.skills import SkillStore
from orkas_tui.core.timefmt import format_ts
from orkas_tui.core.workspace import SLUG, AgentPaths, Survey

VERSION = 1
NAME = "status-cache.bin"
INDENT = b"\n      "  # the turns array sits three levels deep in the status document


@dataclass(frozen=True)
class AgentHistory:
    """``history_status`` without its turns, the turns as printed bytes, and the queue's facts."""

    fields: dict
    turns: bytes
    facts: HistoryFacts


def cache_path(paths: AgentPaths) -> Path:
    return paths.private / NAME


def status_key(paths: AgentPaths, settings: Settings, notes: SelfNotes, last: datetime | None, survey: Survey) -> list | None:
    """What the cached status follows from (``survey``: the agent's folders as just listed);
    ``None`` when a file vanished since it was listed."""
    skills = [name for name in survey.readable["skills"] if SLUG.match(name[:-3])]  # what SkillStore.slugs() reads
    try:
        files = _identities(paths.conversations, survey.readable["conversations"]) + _identities(paths.skills, skills)
    except OSError:
        return None
    return [
        VERSION, str(paths.root), hashlib.sha256(repr(settings).encode()).hexdigest(),
        sorted(weakness_tools(notes.read("profile").text)), format_ts(last) if last else None, files,
    ]


def _identities(folder: Path, names: list[str]) -> list[list]:
    base, stat = str(folder), os.stat
    return [[f"{folder.name}/{name}", (s := stat(f"{base}/{name}")).st_dev, s.st_ino, s.st_size, s.st_mtime_ns]
            for name in names]


def load(paths: AgentPaths, key: list | None) -> AgentHistory | None:
    """The cached history if it is intact and its key is ``key``."""
    if key is None:
        return None
    try:
        with open_regular(cache_path(paths)) as handle:
            header = orjson.loads(handle.readline())
            turns = handle.read()
        if (
            not isinstance(header, dict)
            or header.get("key") != key
            or header.get("length") != len(turns)
            or header.get("checksum") != zlib.crc32(turns)
        ):
            return None
        return AgentHistory(header["fields"], turns, HistoryFacts(**header["facts"]))
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None


def save(paths: AgentPaths, key: list | None, history: AgentHistory) -> None:
    """Keep ``history`` under ``key``; a workspace that cannot be written is simply not cached."""
    if key is None:
        return
    facts = history.facts
    header = {
        "key": key, "length": len(history.turns), "checksum": zlib.crc32(history.turns), "fields": history.fields,
        "facts": {"first_turn": facts.first_turn, "pending": facts.pending, "trigger_score": facts.trigger_score,
                  "triggered": facts.triggered},
    }
    try:
        atomic_write(cache_path(paths), orjson.dumps(header) + b"\n" + history.turns)
    except OSError:
        pass


def build(scan: AgentScan, notes: SelfNotes, last: datetime | None) -> AgentHistory:
    """The history of a refreshed scan, turns rendered as ``status --json`` prints them."""
    fields = history_status(scan, notes, SkillStore(scan.paths, scan.settings))
    turns = orjson.dumps(fields.pop("turns"), option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).replace(b"\n", INDENT)
    return AgentHistory(fields, turns, history_facts(scan, last))


def agent_history(paths: AgentPaths, settings: Settings, last: datetime | None, survey: Survey) -> AgentHistory:
    """From the cache when it still holds, else from the files (and the cache rewritten)."""
    return agent_histories([(paths, last, survey)], settings)[0]


PARALLEL_AFTER = 8 * 1024 * 1024  # history bytes to read before a second process pays for itself


def agent_histories(agents: Sequence[tuple[AgentPaths, datetime | None, Survey]], settings: Settings,
                    jobs: int = 1) -> list[AgentHistory]:
    """Each agent's :func:`agent_history`, in order.

    A cold scan is CPU-bound per agent and agents share nothing, so when more than
    one agent must be read from its files and there is enough to read, up to
    ``jobs`` forked processes build them side by side (each writes its own caches).
    Only a caller with no threads of its own may pass ``jobs > 1`` (the CLI).
    """
    histories: list[AgentHistory | None] = []
    todo: list[tuple[int, AgentPaths, datetime | None, list | None]] = []
    for paths, last, survey in agents:
        key = status_key(paths, settings, SelfNotes(paths, settings), last, survey)
        history = load(paths, key)
        if history is None:
            todo.append((len(histories), paths, last, key))
        histories.append(history)
    if jobs > 1 and len(todo) > 1 and sum(_history_bytes(key) for *_, key in todo) >= PARALLEL_AFTER:
        todo.sort(key=lambda item: -_history_bytes(item[3]))  # largest first: the workers finish together
        _build_in_processes(todo, settings, min(jobs, len(todo)), histories)
    for index, paths, last, key in todo:
        if histories[index] is None:
            histories[index] = _build_and_save(paths, settings, last, key)
    return histories  # type: ignore[return-value]


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _history_bytes(key: list | None) -> int:
    return sum(entry[3] for entry in key[5] if entry[0].startswith("conversations/")) if key else 0


def _build_and_save(paths: AgentPaths, settings: Settings, last: datetime | None, key: list | None) -> AgentHistory:
    scan = AgentScan(paths, settings)
    scan.refresh()
    history = build(scan, SelfNotes(paths, settings), last)
    save(paths, key, history)
    return history


def _build_in_processes(todo: list, settings: Settings, workers: int, histories: list) -> None:
    """Fill ``histories`` from forked workers; whatever they could not build is left ``None``
    for the caller to build in this process (no fork on this platform, a worker killed)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = [(index, pool.submit(_build_and_save, paths, settings, last, key)) for index, paths, last, key in todo]
            for index, future in futures:
                histories[index] = future.result()
    except (BrokenProcessPool, OSError):
        return
