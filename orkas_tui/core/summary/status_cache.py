"""Each agent's history-derived status, kept so a warm ``status`` reads no history at all.

One file per agent, ``.orkas/status-cache.bin``: a header line; the agent's
``turns`` array exactly as ``status --json`` prints it (indented for its place in
the document); then an index: each printed turn's sort time, conversation, seq and
length, and per conversation file its identity and its part's sums
(:mod:`orkas_tui.core.summary.status_parts`).

The cache is used whole while its key holds: the format version, the agent's
folder, a digest of every setting, the tools ``self/profile.md`` names, the last
reflection, and (name, device, inode, size, mtime) of every skill and conversation
file that is read. When only conversation files changed (turns appended, a file
added or removed), the parts of the others come from the index and only the
changed files are observed, from the scan cache onwards, and their turns spliced
into the printed array: the work follows the new bytes, plus copying the array. Everything else in the status (name, problems, skipped
files, the queue's clock) is read fresh each time. A cache with another key, the
wrong length or a bad checksum (the header line has its own) is ignored and rewritten:
never trusted.
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

from orkas_tui.core.observe.signals import weakness_tools
from orkas_tui.core.read.files import atomic_write, open_regular
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import SLUG, AgentPaths, Survey
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.report import HistoryFacts
from orkas_tui.core.summary.scan import AgentScan, collector_paused
from orkas_tui.core.summary.status_parts import Metrics, Part, Printed, Row, blank_skill_rows, combine, conversation_part

VERSION = 5
NAME = "status-cache.bin"


@dataclass(frozen=True)
class AgentHistory:
    """The history-derived status fields without the turns, the turns as printed bytes, and the queue's facts."""

    fields: dict
    turns: bytes | bytearray
    facts: HistoryFacts


@dataclass(frozen=True)
class StatusKey:
    """What a cached status follows from: ``base`` (all but the conversations) and each conversation's identity."""

    base: list
    conversations: dict[str, list]  # stem -> [name, device, inode, size, mtime]

    @property
    def full(self) -> list:
        return [*self.base, list(self.conversations.values())]

    def history_bytes(self) -> int:
        return sum(identity[3] for identity in self.conversations.values())


def cache_path(paths: AgentPaths) -> Path:
    return paths.private / NAME


def status_key(
    paths: AgentPaths, settings: Settings, weak: frozenset[str], last: datetime | None, survey: Survey
) -> StatusKey | None:
    """The key of the agent's status now (``weak``: the tools its profile names; ``survey``: its
    folders as just listed); ``None`` when a file vanished since it was listed."""
    skills = [name for name in survey.readable["skills"] if SLUG.match(name[:-3])]  # what SkillStore.slugs() reads
    conversations = survey.readable["conversations"]
    try:
        skill_ids = _identities(paths.skills, skills)
        conversation_ids = _identities(paths.conversations, conversations)
    except OSError:
        return None
    base = [
        VERSION,
        str(paths.root),
        hashlib.sha256(repr(settings).encode()).hexdigest(),
        sorted(weak),
        format_ts(last) if last else None,
        skill_ids,
    ]
    return StatusKey(base, {name[:-6]: identity for name, identity in zip(conversations, conversation_ids, strict=True)})


def _identities(folder: Path, names: list[str]) -> list[list]:
    base, stat = str(folder), os.stat
    return [[f"{folder.name}/{name}", (s := stat(f"{base}/{name}")).st_dev, s.st_ino, s.st_size, s.st_mtime_ns] for name in names]


@dataclass(frozen=True)
class _Earlier:
    """A cache of the same base whose conversations changed: its turns, rows and index."""

    fields: dict
    turns: bytearray
    index: dict


def _read(paths: AgentPaths, key: StatusKey | None) -> AgentHistory | _Earlier | None:
    """The cached history if its key is ``key``; what can be reused of it if only its base is;
    else ``None``. Only what passes its checksum is returned."""
    if key is None:
        return None
    try:
        with open_regular(cache_path(paths)) as handle:
            header = _header(handle.readline())
            if header is None or header.get("base") != key.base:
                return None
            read = _read_summed(handle, header["length"])
            if read is None or header["checksum"] != read[1]:
                return None
            turns = read[0]
            if header["key"] == key.full:
                return AgentHistory(header["fields"], turns, HistoryFacts(**header["facts"]))
            index = handle.read(header["index_length"])
        if len(index) != header["index_length"] or header["index_checksum"] != zlib.crc32(index):
            return None
        entries = orjson.loads(index)
        return _Earlier(header["fields"], turns, entries) if isinstance(entries, dict) else None
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def _header(line: bytes) -> dict | None:
    """The header line's JSON object if its CRC-32 (eight hex digits before it) holds."""
    checksum, _, body = line.rstrip(b"\n").partition(b" ")
    if len(checksum) != 8 or checksum != b"%08x" % zlib.crc32(body):
        return None
    header = orjson.loads(body)
    return header if isinstance(header, dict) else None


_PIECE = 256 * 1024


def _read_summed(handle, length: object) -> tuple[bytearray, int] | None:
    """The next ``length`` bytes and their CRC-32, each piece summed while it is still in the
    CPU's cache (a second pass over 70 MB of caches cost a third of a warm start's reading);
    ``None`` if the file does not hold that many."""
    if length.__class__ is not int or not 0 <= length <= os.fstat(handle.fileno()).st_size:
        return None
    data = bytearray(length)
    view = memoryview(data)
    done, crc = 0, 0
    while done < length:
        got = handle.readinto(view[done : done + _PIECE])
        if not got:
            return None
        crc = zlib.crc32(view[done : done + got], crc)
        done += got
    view.release()
    return data, crc


def _save(paths: AgentPaths, key: StatusKey | None, history: AgentHistory, index: bytes) -> None:
    """Keep ``history`` under ``key``; a workspace that cannot be written is simply not cached."""
    if key is None:
        return
    facts = history.facts
    header = {
        "key": key.full,
        "base": key.base,
        "length": len(history.turns),
        "checksum": zlib.crc32(history.turns),
        "index_length": len(index),
        "index_checksum": zlib.crc32(index),
        "fields": history.fields,
        "facts": {
            "first_turn": facts.first_turn,
            "pending": facts.pending,
            "trigger_score": facts.trigger_score,
            "triggered": facts.triggered,
        },
    }
    body = orjson.dumps(header)
    try:
        atomic_write(cache_path(paths), [b"%08x " % zlib.crc32(body), body, b"\n", history.turns, index], durable=False)
    except OSError:
        pass


def _finish(
    paths: AgentPaths,
    key: StatusKey | None,
    parts: dict[str, Part],
    metrics: Metrics,
    printed: Printed,
    rows: list[dict],
    problems: list[str],
) -> AgentHistory:
    fields, facts = combine(parts, metrics, rows, problems)
    history = AgentHistory(fields, printed.text, facts)
    identities = key.conversations if key else {}
    index = orjson.dumps(
        {
            "columns": printed.columns(),
            "parts": {stem: {"identity": identities.get(stem), **part.to_json()} for stem, part in parts.items()},
            "metrics": {stem: part.metrics for stem, part in parts.items()},
            "totals": metrics.totals,
        }
    )
    _save(paths, key, history, index)
    return history


def agent_history(paths: AgentPaths, settings: Settings, last: datetime | None, survey: Survey) -> AgentHistory:
    """From the cache when it still holds, else from the files (and the cache rewritten)."""
    return agent_histories([(paths, last, survey)], settings)[0]


PARALLEL_AFTER = 8 * 1024 * 1024  # history bytes to read before a second process pays for itself


def agent_histories(
    agents: Sequence[tuple[AgentPaths, datetime | None, Survey]], settings: Settings, jobs: int = 1
) -> list[AgentHistory]:
    """Each agent's :func:`agent_history`, in order.

    An agent whose conversations alone changed since its cache was written is
    brought up to date here, reading only what changed. A cold scan is CPU-bound
    per agent and agents share nothing, so when more than one agent must be read
    whole and there is enough to read, up to ``jobs`` forked processes build them
    side by side (each writes its own caches). Only a caller with no threads of
    its own may pass ``jobs > 1`` (the CLI).
    """
    histories: list[AgentHistory | None] = []
    todo: list[tuple[int, AgentPaths, frozenset[str], datetime | None, StatusKey | None]] = []
    for paths, last, survey in agents:
        weak = weakness_tools(SelfNotes(paths, settings).read("profile").text)  # read once: the key and the scores agree
        key = status_key(paths, settings, weak, last, survey)
        found = _read(paths, key)
        if isinstance(found, _Earlier):
            found = _update(paths, settings, weak, last, key, found)
        if found is None:
            todo.append((len(histories), paths, weak, last, key))
        histories.append(found)
    if jobs > 1 and len(todo) > 1 and sum(key.history_bytes() for *_, key in todo if key) >= PARALLEL_AFTER:
        todo.sort(key=lambda item: -(item[4].history_bytes() if item[4] else 0))  # largest first: workers end together
        _build_in_processes(todo, settings, min(jobs, len(todo)), histories)
    for index, paths, weak, last, key in todo:
        if histories[index] is None:
            histories[index] = _build_and_save(paths, settings, weak, last, key)
    return histories  # type: ignore[return-value]


def _build_and_save(
    paths: AgentPaths, settings: Settings, weak: frozenset[str], last: datetime | None, key: StatusKey | None
) -> AgentHistory:
    """Every conversation observed (from the scan cache where it holds) and the status cache rewritten."""
    with collector_paused():  # scoring and printing every turn allocates only acyclic objects
        return _build(paths, settings, weak, last, key)


def _build(
    paths: AgentPaths, settings: Settings, weak: frozenset[str], last: datetime | None, key: StatusKey | None
) -> AgentHistory:
    scan = AgentScan(paths, settings, autosave=False)
    scan.refresh()
    scan.save_cache()  # however little was read: the next change is observed from here
    parts: dict[str, Part] = {}
    rows: list[Row] = []
    for stem, state in scan.conversations.items():
        parts[stem], turns = conversation_part(state, settings, weak, last)
        rows += turns
    metrics = Metrics()
    for part in parts.values():
        metrics.add(part.metrics)
    skills, problems = SkillStore(paths, settings).load_all()
    return _finish(paths, key, parts, metrics, Printed.empty().splice(set(), rows), blank_skill_rows(skills), problems)


def _update(
    paths: AgentPaths, settings: Settings, weak: frozenset[str], last: datetime | None, key: StatusKey, earlier: _Earlier
) -> AgentHistory | None:
    """``earlier`` brought up to date by observing only the conversations whose files changed;
    ``None`` when its index does not hold or most of the history changed anyway."""
    try:
        entries, cached_metrics = earlier.index["parts"], earlier.index["metrics"]
        changed = {
            stem
            for stem, identity in key.conversations.items()
            if not isinstance(entry := entries.get(stem), dict) or entry.get("identity") != identity
        }
        if len(changed) * 2 > len(key.conversations):
            return None
        printed = Printed.from_columns(earlier.turns, earlier.index["columns"])
        redo = changed | (entries.keys() - key.conversations.keys())
        metrics = Metrics(Metrics.checked(earlier.index["totals"]))
        for stem in redo & entries.keys():
            metrics.take(Metrics.checked(cached_metrics[stem]))
        parts = {stem: Part.from_json(entries[stem], cached_metrics[stem]) for stem in key.conversations if stem not in changed}
        rows_of_skills, problems = list(earlier.fields["skills"]), list(earlier.fields["skill_problems"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    scan = AgentScan(paths, settings, autosave=False)
    rows: list[Row] = []
    for stem in changed:
        scan.refresh(only=paths.conversations / f"{stem}.jsonl")
        parts[stem], turns = conversation_part(scan.conversations[stem], settings, weak, last)
        metrics.add(parts[stem].metrics)
        rows += turns
    parts = {stem: parts[stem] for stem in key.conversations}  # listing order: the order scores are added in
    printed = printed.splice(redo | (set(printed.stem) - key.conversations.keys()), rows)
    scan.save_cache(keep=[stem for stem in key.conversations if stem not in changed])
    try:
        return _finish(paths, key, parts, metrics, printed, rows_of_skills, problems)
    except (KeyError, TypeError, ValueError, AttributeError):  # skill rows of the wrong shape: built again
        return None


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


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
            futures = [
                (index, pool.submit(_build_and_save, paths, settings, weak, last, key)) for index, paths, weak, last, key in todo
            ]
            for index, future in futures:
                histories[index] = future.result()
    except (BrokenProcessPool, OSError):
        return
