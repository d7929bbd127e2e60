"""The persistent cache of observed turns, so a warm start reads no old history.

One file per agent, ``.orkas/scan-cache.json``: a header line, then one line per
conversation file holding the observer's state after the file's first ``offset``
bytes (the header lists the conversations in line order, so one entry can be
read without parsing the others). An entry is used only
when the file on disk still matches it: same identity (device, inode), at least
``offset`` bytes long, the same leading bytes and the same bytes just before the
offset, and, if its size is what it was when saved, the same modification time.
(An append-only file can grow; a file rewritten in place to the same size
has a new mtime.) The file also records a format version, a fingerprint of the settings
that change what is observed (transient statuses and patterns, correction
phrases, the line cap) and a checksum of its payload. A cache that is missing, corrupt, of
another version or for other settings, or an entry that no longer matches its
file, is ignored and rebuilt from the conversation files: never trusted.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from orkas_tui.core.observe.turns import ConversationObserver, ObservedError, TurnRecord
from orkas_tui.core.read.files import atomic_write, open_regular
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.tail import JsonlTail
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.read.workspace import AgentPaths

if TYPE_CHECKING:
    from orkas_tui.core.summary.scan import ConversationState

VERSION = 3
NAME = "scan-cache.json"
PROBE = 64  # bytes before the cached offset that must still be the same


def cache_path(paths: AgentPaths) -> Path:
    return paths.private / NAME


def fingerprint(settings: Settings) -> str:
    """What observation depends on besides the files: change any of it and the cache is void."""
    basis = [
        VERSION,
        list(settings.transient_statuses),
        list(settings.transient_patterns),
        list(settings.correction_phrases),
        settings.max_line_bytes,
    ]
    return hashlib.sha256(orjson.dumps(basis)).hexdigest()


class CachedEntries:
    """The entries of a trusted cache, each parsed only when it is taken."""

    def __init__(self, stems: list[str] | None = None, lines: list[bytes] | None = None) -> None:
        self._lines = dict(zip(stems or (), lines or (), strict=True))

    def take(self, stem: str) -> object:
        """The entry for ``stem`` (removed from what is left), ``None`` if there is none or it does not parse."""
        raw = self._lines.pop(stem, None)
        try:
            return None if raw is None else orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None

    def raw(self, stem: str) -> bytes | None:
        """The entry's line as it is, to be written back unread."""
        return self._lines.get(stem)


def read_entries(paths: AgentPaths, settings_fingerprint: str) -> CachedEntries:
    """The cached entries; none when the cache cannot be trusted."""
    try:
        with open_regular(cache_path(paths)) as handle:
            data = handle.read()
        header_raw, _, payload = data.partition(b"\n")
        header = orjson.loads(header_raw)
        if (
            not isinstance(header, dict)
            or header.get("version") != VERSION
            or header.get("fingerprint") != settings_fingerprint
            or header.get("checksum") != zlib.crc32(payload)
            or not isinstance(stems := header.get("stems"), list)
            or not all(isinstance(stem, str) for stem in stems)
        ):
            return CachedEntries()
        lines = payload.split(b"\n")
        if lines.pop() != b"" or len(lines) != len(stems):
            return CachedEntries()
        return CachedEntries(stems, lines)
    except (OSError, orjson.JSONDecodeError):
        return CachedEntries()


def write_entries(
    paths: AgentPaths, settings_fingerprint: str, states: dict[str, ConversationState], carried: dict[str, bytes] | None = None
) -> None:
    """Write the entries of ``states``, and ``carried`` lines (entries of files not read this time) as they are."""
    lines = {stem: orjson.dumps(_entry(state)) for stem, state in states.items()}
    for stem, raw in (carried or {}).items():
        lines.setdefault(stem, raw)
    payload = b"".join(line + b"\n" for line in lines.values())
    header = orjson.dumps(
        {"version": VERSION, "fingerprint": settings_fingerprint, "checksum": zlib.crc32(payload), "stems": list(lines)}
    )
    atomic_write(cache_path(paths), [header, b"\n", payload], durable=False)


def _entry(state: ConversationState) -> dict:
    tail, observer = state.tail, state.observer
    indexes: dict[int, int] = {}
    tables: list[list[str]] = []
    rows = []
    for record in observer.turns:
        ref = indexes.get(id(record.skills_indexed))
        if ref is None:
            ref = indexes[id(record.skills_indexed)] = len(tables)
            tables.append(record.skills_indexed)
        rows.append(
            [
                record.turn,
                record.started_at,
                record.ended_at,
                record.status,
                record.tool_calls,
                record.tools,
                [[e.source, e.message, e.status, e.transient, e.reason] for e in record.errors],
                record.end_error is not None,
                record.correction,
                record.correction_text,
                ref,
                record.skills_read,
                record.edited,
                record.start,
                record.end,
            ]
        )
    stat = _stat(tail.path) if tail.identity else None
    return {
        "identity": list(tail.identity) if tail.identity else None,
        "size": stat.st_size if stat else None,
        "mtime_ns": stat.st_mtime_ns if stat else None,
        "offset": tail.offset,
        "head": tail.head.hex(),
        "probe": _probe(tail.path, tail.offset).hex() if tail.identity else "",
        "malformed": state.malformed,
        "long_lines": state.long_lines,
        "orphans": observer.orphans,
        "latest_ts": observer.latest_ts,
        "open": observer.open is not None,
        "tool_names": observer.tool_names,
        "edited_ids": sorted(observer.edited_ids),
        "index_seen": observer._index_seen,
        "indexes": tables,
        "turns": rows,
    }


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _probe(path: Path, offset: int) -> bytes:
    with open_regular(path) as handle:
        handle.seek(max(0, offset - PROBE))
        return handle.read(min(PROBE, offset))


def matches_file(entry: dict, path: Path) -> bool:
    """True when the file still starts with the bytes the entry observed."""
    identity, offset = entry["identity"], entry["offset"]
    if identity is None:
        return False
    try:
        with open_regular(path) as handle:
            stat = os.fstat(handle.fileno())
            if [stat.st_dev, stat.st_ino] != identity or stat.st_size < offset:
                return False
            if stat.st_size == entry["size"] and stat.st_mtime_ns != entry["mtime_ns"]:
                return False
            head = bytes.fromhex(entry["head"])
            if handle.read(len(head)) != head:
                return False
            handle.seek(max(0, offset - PROBE))
            return handle.read(min(PROBE, offset)) == bytes.fromhex(entry["probe"])
    except OSError:
        return False


def restore(entry: object, path: Path, state: ConversationState) -> bool:
    """Load ``entry`` into the fresh ``state`` if it matches the file; ``False`` leaves it cold."""
    try:
        if not isinstance(entry, dict) or not matches_file(entry, path):
            return False
        observer = state.observer
        turns = _turns(entry, observer)
        latest_ts = entry["latest_ts"]
        latest_at = parse_ts(latest_ts) if latest_ts is not None else None
        if (latest_ts is None) != (latest_at is None):
            return False
        open_turn = turns[-1] if entry["open"] else None
        if open_turn is not None and open_turn.ended:
            return False
        tool_names = {str(k): str(v) for k, v in entry["tool_names"].items()}
        edited = {str(t) for t in entry["edited_ids"]}
        index_seen = entry["index_seen"]
        orphans, malformed, offset = _count(entry["orphans"]), _count(entry["malformed"]), _count(entry["offset"])
        long_lines = [(_count(start), _count(length)) for start, length in entry["long_lines"]]
        head = bytes.fromhex(entry["head"])
        identity = (int(entry["identity"][0]), int(entry["identity"][1]))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return False
    observer.turns, observer.open, observer.tool_names, observer.edited_ids = turns, open_turn, tool_names, edited
    observer.orphans, observer.latest_ts, observer.latest_at = orphans, latest_ts, latest_at
    if isinstance(index_seen, list):
        observer._index_seen, observer._index = index_seen, turns[-1].skills_indexed if turns else []
    state.malformed, state.long_lines = malformed, long_lines
    state.tail = JsonlTail(path, offset, identity, head, state.tail.max_line)
    return True


def _count(value: object) -> int:
    if value.__class__ is not int or value < 0:
        raise ValueError("not a count")
    return value


def _turns(entry: dict, observer: ConversationObserver) -> list[TurnRecord]:
    """The turn records of an entry (positional construction: ~50,000 of them on a warm start)."""
    tables = [list(map(str, t)) for t in entry["indexes"]]
    conversation = observer.conversation
    turns = []
    for seq, row in enumerate(entry["turns"]):
        (
            turn,
            started_at,
            ended_at,
            status,
            tool_calls,
            tools,
            errors,
            has_end_error,
            correction,
            correction_text,
            ref,
            skills_read,
            edited,
            start,
            end,
        ) = row
        observed = [ObservedError(*e) for e in errors] if errors else []
        turns.append(
            TurnRecord(
                conversation,
                turn,
                seq,
                started_at,
                ended_at,
                status,
                tool_calls,
                tools,
                observed,
                observed[-1] if has_end_error else None,
                correction,
                correction_text,
                tables[ref],
                skills_read,
                edited,
                start,
                end,
            )
        )
    return turns
