"""Import sessions into an agent: idempotent, incremental, safe to interrupt.

State lives in ``<agent>/.orkas/imports/<conversation>.json``, keyed by the session
(its conversation id), not by path, so a moved file continues where it stopped. It
holds how many bytes of the source were read, how large the conversation file was
after the last import, and the parser's state. A crash between appending events and
saving the state is undone on the next import (the conversation file is cut back
to its recorded size), so no event is ever written twice.

Sessions are made durable in batches (:class:`_Batch`): their events are appended
unsynced, then the conversations are synced, then the states written and synced, so
the disk commits a few times a batch instead of three times a session, and a state
never claims bytes that are not on disk.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from orkas_tui.core.disk.confine import confined, open_regular, read_versioned
from orkas_tui.core.disk.write import atomic_write_all, file_lock, sync_files
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.scopes import ScopeError, record_places
from orkas_tui.core.summary.scan import settle_marks
from orkas_tui.importers import claude_code, codex, not_read
from orkas_tui.importers.repeats import ImportedRecords, SessionRecords, keys_before
from orkas_tui.importers.skills import mark_used
from orkas_tui.importers.spool import kill_point
from orkas_tui.importers.writer import ConversationWriter, ImportStats, new_state

FORMATS = {claude_code.NAME: claude_code, codex.NAME: codex}
DEFAULT_SETTLE = 300.0
BATCH_FILES = 128  # sessions made durable together (each holds its lock, one open file, until then)


SNIFF_BYTES = 256 * 1024
SNIFF_LINES = 20
LINE = re.compile(rb"[^\r\n]+")


def sniff(path: Path) -> str | None:
    """The format whose records open ``path`` (``None``: neither); an empty file is ``"empty"``.

    Reads at most the first 256 KiB: the first JSON lines decide, so a cut or
    foreign first line does not condemn a real transcript.
    """
    with open_regular(path) as handle:
        head = handle.read(SNIFF_BYTES)
    if not head.strip():
        return "empty"
    seen = 0
    for found in LINE.finditer(head):  # the lines ``splitlines`` gives, but only as many as are looked at
        raw = found.group()
        if not raw.strip():
            continue
        seen += 1
        if seen > SNIFF_LINES:
            break
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            for name, module in FORMATS.items():
                if module.looks_like(value):
                    return name
    return None


def refusal(fmt: str, path: Path) -> str | None:
    """Why ``path`` is not a transcript of ``fmt`` (naming what it looks like), or ``None`` when it is one."""
    try:
        kind = sniff(path)
    except OSError as exc:
        return f"{path}: cannot be read ({exc.strerror or exc})"
    if kind in (fmt, "empty"):
        return None
    label = FORMATS[fmt].LABEL
    if kind is None:
        return f"{path}: not a {label} transcript (no {label} record in its first lines; it does not look like any transcript)"
    return f"{path}: not a {label} transcript: it looks like a {FORMATS[kind].LABEL} one (orkas-tui import {kind} ...)"


def select(fmt: str, files: Iterable[Path]) -> tuple[list[Path], list[str]]:
    """The files that are transcripts of ``fmt``, and one refusal line for each other file."""
    chosen, refused = [], []
    for path in files:
        reason = refusal(fmt, path)
        if reason is None:
            chosen.append(path)
        else:
            refused.append(reason)
    return chosen, refused


def discover(fmt: str, sources: Iterable[Path]) -> list[Path]:
    """Transcript files: each file given, and every ``*.jsonl`` under each folder given."""
    found: dict[Path, None] = {}
    for source in sources:
        source = source.expanduser()
        if source.is_dir():
            for path in sorted(source.rglob("*.jsonl")):
                if path.is_file():
                    found[path] = None
        elif source.is_file():
            found[source] = None
    return list(found)


def default_sources(fmt: str) -> list[Path]:
    return FORMATS[fmt].default_sources(Path.home())


def import_files(
    paths: AgentPaths,
    settings: Settings,
    fmt: str,
    files: Iterable[Path],
    settle: float = DEFAULT_SETTLE,
    clock: Callable[[], float] = time.time,
    index: Callable[[str | None, str | None], list[str]] | None = None,
    progress: Callable[[int, int], None] | None = None,
    deadline: float | None = None,
) -> ImportStats:
    """Import new lines of every file; a turn still open at the end of a file quiet for ``settle`` seconds ends ``ok``.

    ``index`` gives each turn's ``skills_indexed`` from the session's folder and the turn's start (``None``:
    no skills known); ``progress(done, total)`` is called after each file. With a
    ``deadline`` (a :func:`time.monotonic` time), a session whose lock another import
    still holds then is left for the next import and listed in ``stats.deferred``.
    """
    module = FORMATS[fmt]
    files = list(files)
    settle_marks(paths, settings)  # what the last reflection saw, fixed before new (maybe older) history arrives
    context = _Context(
        TransientRule.from_settings(settings),
        index,
        settle,
        clock,
        ImportedRecords(paths.private / "imports"),
        {},
    )
    stats = ImportStats()
    with _Batch(paths, stats, deadline) as batch:
        for done, path in enumerate(files, 1):
            stats.files += 1
            try:
                conv = _safe_id(module.conversation_id(path))
                batch.hold(conv)
                _import_locked(paths, module, context, stats, path, conv, batch)
            except BlockingIOError:
                stats.deferred.append(str(path))
            except OSError as exc:
                stats.problems.append(f"{path}: cannot read ({exc.strerror or exc})")
            if progress is not None:
                progress(done, len(files))
    if stats.last_read:
        stats.problems += mark_used(paths, settings, stats.last_read)
    try:
        record_places(paths, context.places)  # where each session ran: the scope of what is learned from it
    except ScopeError as exc:
        stats.problems.append(str(exc))
    except OSError as exc:
        stats.problems.append(f"{paths.private / 'places.json'}: cannot be written ({exc.strerror or exc})")
    try:
        not_read.record(paths, stats, module.reads_as_no_work)
    except OSError as exc:
        stats.problems.append(f"{paths.private / not_read.FILE}: cannot be written ({exc.strerror or exc})")
    return stats


@dataclass(frozen=True)
class _Context:
    rule: TransientRule
    index: Callable[[str | None, str | None], list[str]] | None
    settle: float
    clock: Callable[[], float]
    imported: ImportedRecords
    places: dict[str, str]  # conversation -> the folder its session ran in, as the transcript says


@dataclass(frozen=True)
class _Pending:
    """A session's events appended (``grew``) but not yet synced, and the state to save once they are;
    ``new``: no state claimed any of its conversation yet, whose name may be new too."""

    conv_path: Path
    grew: bool
    new: bool
    state_path: Path
    state: bytes


class _Batch:
    """Sessions imported but not yet durable, each under its lock so a ``--watch`` and a manual
    import never both append one; committed every :data:`BATCH_FILES` sessions and at the end.

    The commit's order is what makes a power cut at any moment safe: (1) the conversations
    appended to are synced, with their folder if one of them is new; (2) only then are the
    states written, each to a temporary file, those synced, then each renamed over its state,
    then the imports folder synced. A state on disk thus never claims bytes its conversation
    does not durably hold: a cut before (2) leaves the old state, and the next import cuts the
    conversation back to it and reads those lines again. Each step syncs its files as a group
    (``sync_files``: one ``syncfs`` for many on Linux, else one ``fsync`` a file).
    """

    def __init__(self, paths: AgentPaths, stats: ImportStats, deadline: float | None = None) -> None:
        self.paths = paths
        self.stats = stats
        self.deadline = deadline
        self.locks = contextlib.ExitStack()
        self.held: set[str] = set()
        self.pending: list[_Pending] = []

    def __enter__(self) -> _Batch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.commit()  # an interrupted import keeps the sessions it finished

    def hold(self, conv: str) -> None:
        """Take ``conv``'s lock, committing first when the batch is full or already holds it (a
        second file of the session must see the first one's state). While others are held the
        lock is only tried, and if another import has it the batch is committed and its locks
        released before waiting: two importers never wait on each other's locks."""
        lock = self.paths.private / "imports" / f".{conv}.lock"
        if conv in self.held or len(self.held) >= BATCH_FILES:
            self.commit()
        elif self.held:
            try:
                self.locks.enter_context(file_lock(lock, blocking=False))
            except BlockingIOError:
                self.commit()
            else:
                self.held.add(conv)
                return
        self.locks.enter_context(file_lock(lock, deadline=self.deadline))
        self.held.add(conv)

    def add(self, pending: _Pending) -> None:
        self.pending.append(pending)

    def commit(self) -> None:
        """Sync the conversations, then write the states (the order above); release the locks."""
        try:
            grown = [item for item in self.pending if item.grew]
            unsynced = dict(sync_files([str(item.conv_path) for item in grown], names=any(item.new for item in grown)))
            for conv_path, exc in unsynced.items():  # its state stays as it was: the next import cuts back, reads again
                self.stats.problems.append(f"{conv_path}: cannot be synced ({exc.strerror or exc})")
            ready = [item for item in self.pending if str(item.conv_path) not in unsynced]
            kill_point("import-synced")  # the kill test's: events on disk, their states not yet
            for path, error in atomic_write_all([(item.state_path, item.state) for item in ready]):
                self.stats.problems.append(f"{path}: cannot be written ({error.strerror or error})")
        finally:
            self.pending.clear()
            self.held.clear()
            self.locks.close()


def _import_locked(
    paths: AgentPaths, module, context: _Context, stats: ImportStats, path: Path, conv: str, batch: _Batch
) -> None:
    state_path = paths.private / "imports" / f"{conv}.json"
    saved = _load(state_path)
    record: dict[str, Any] = (
        orjson.loads(orjson.dumps(saved)) if saved else {"source": str(path), "offset": 0, "conv_bytes": 0, "parser": new_state()}
    )
    conv_path = paths.conversations / f"{conv}.jsonl"
    if not _rollback(conv_path, record["conv_bytes"], stats):
        return
    stat = path.stat()
    if stat.st_size < record["offset"]:
        stats.problems.append(f"{path}: shorter than the {record['offset']} bytes already imported; left as imported")
        return
    writer = ConversationWriter(conv_path, record["parser"], context.rule, module.NAME, stats, context.index)
    checker = None
    if module is claude_code and not claude_code.is_subagent(path):  # a resumed session repeats records: skip them
        own = record["records"] if "records" in record else keys_before(path, record["offset"])
        checker = SessionRecords(context.imported, conv, own, from_start=not record["offset"])
    parser = module.Parser(writer, path)
    with open(path, "rb") as handle:
        handle.seek(record["offset"])
        data = handle.read()
    end = data.rfind(b"\n") + 1
    quiet = context.clock() - stat.st_mtime >= context.settle
    if end < len(data) and quiet:
        stats.problems.append(f"{path}: last line is cut off ({len(data) - end} bytes, no newline); not imported")
    for raw in (data if end == len(data) else data[:end]).splitlines():  # no copy of a file that ends its last line
        if not raw.strip():
            continue
        stats.lines += 1
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            stats.malformed += 1
            continue
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            stats.malformed += 1
            continue
        if checker is not None and checker.repeated(value):
            stats.repeated += 1
            continue
        try:
            known = parser.feed(value)
        except (TypeError, ValueError, AttributeError, KeyError):  # a field of a type the format never uses
            stats.malformed += 1
            continue
        if not known:
            stats.unknown[_label(value)] += 1
        if len(stats.examples) < len(stats.unknown):  # a kind first met here (a record's, or one of its blocks')
            for kind in stats.unknown.keys() - stats.examples.keys():
                stats.examples[kind] = not_read.example(str(path), raw)
    if writer.open and (parser.complete or quiet):
        writer.end_turn(writer.state["last_ts"])
    if writer.open:
        stats.running.append(str(path))
    if isinstance(writer.state.get("cwd"), str) and writer.state["cwd"]:
        context.places[conv] = writer.state["cwd"]
    record["offset"] += end
    record["source"] = str(path)
    if checker is not None:
        record["records"] = checker.done()
        record.pop("uuids", None)  # what older versions kept: the bare uuids
    grew, new = bool(writer.lines), not record["conv_bytes"]
    record["conv_bytes"] = writer.flush()
    if record != saved:
        state = orjson.dumps(record, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
        batch.add(_Pending(conv_path, grew, new, state_path, state))


def _rollback(conv_path: Path, size: int, stats: ImportStats) -> bool:
    """Cut off events appended by an import that crashed before saving its state."""
    try:
        actual = conv_path.stat().st_size
    except FileNotFoundError:
        actual = 0
    if actual < size:
        stats.problems.append(
            f"{conv_path}: smaller than this importer left it; not appended to (delete its import state to start over)"
        )
        return False
    if actual > size:
        with open(confined(conv_path), "r+b") as handle:  # never a file outside the workspace
            handle.truncate(size)
    return True


def _load(path: Path) -> dict | None:
    try:
        value = orjson.loads(read_versioned(path)[0] or b"")  # confined, regular files only; missing: no JSON
    except (FileNotFoundError, orjson.JSONDecodeError):
        return None
    return value if isinstance(value, dict) and isinstance(value.get("parser"), dict) else None


def _label(value: dict) -> str:
    payload = value.get("payload")
    inner = payload.get("type") if isinstance(payload, dict) else value.get("subtype")
    return f"{value.get('type')}/{inner}" if inner else str(value.get("type"))


def _safe_id(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "-", value).lstrip(".")[:128] or "session"
