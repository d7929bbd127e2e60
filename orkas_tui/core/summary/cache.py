"""The one cache: each conversation's summary kept as data, so a warm start reads no history.

One file per agent, ``.orkas/summary-cache.jsonl``. Every line is a CRC-32 (eight hex
digits), a space and a JSON object. The first line is the header: the format version and
fingerprints of what observation depends on besides the files (the transient rule, the
correction phrases, the line cap, the rules' own versions) and of what scoring depends
on (the score settings, the tools ``self/profile.md`` names). Each further line is an
entry for one conversation file: where reading stopped (device, inode, size, mtime,
offset, its first bytes and the bytes just before the offset), the observer's state to
read on from there, the summary's counts, then its turns' summaries, their traces
(:mod:`orkas_tui.core.summary.turn`) and the distinct skill indexes the summaries point
into, each after a tab, as compact JSON arrays. A whole entry's turns are only checked for
shape when read and kept as those bytes (:class:`~orkas_tui.core.summary.fold.Packed`):
counts, the queue and the newest turns come from columns read beside them, ``status --json``
prints them from the bytes, and a conversation's turns are decoded only when one of them is
needed as data. An entry either holds the whole conversation (``base`` 0) or only the turns
that changed since the entry before it, which ended at offset ``base``: an append to a
conversation appends one line, in proportion to its new turns. When entries pile up the file
is written again whole. Every write ends with the agent's skill-use counts (``uses``: what
every turn of every conversation above adds up to), so a warm start reads the counts and
never sums them; a fold changes them by what it changes.

Trust: a cache of another version or observation fingerprint, a line whose CRC fails,
an entry that does not extend the one before it, a turn of the wrong shape: the whole
cache is ignored and rebuilt from the conversation files. Another scoring fingerprint
keeps the turns and scores them again, without reading the files. A file whose device,
inode, size and mtime (in nanoseconds) are what the entry saw is taken as unchanged;
one that changed is read on from the entry's offset only while it still matches it: same
identity, at least ``offset`` bytes, the same first bytes and bytes before the offset,
and, at the same size, the same mtime (else it was rewritten in place, and is read whole). A workspace that cannot be written has no cache: never fatal.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import zlib
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any

import msgspec
import orjson

from orkas_tui.core.disk.confine import open_regular, read_regular
from orkas_tui.core.disk.write import append_bytes, atomic_write
from orkas_tui.core.observe import corrections, in_context, transient
from orkas_tui.core.observe.skill_metrics import SkillMetrics
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.tail import BEFORE, JsonlTail
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.read.workspace import SLUG, AgentPaths
from orkas_tui.core.store.skills import BrokenSkill, Skill, SkillFiles, SkillStore
from orkas_tui.core.summary.fold import ConversationState, Packed, Uses, decode_indexes, decode_turns, encode_turns
from orkas_tui.core.summary.turn import TurnSummary, TurnTrace

VERSION = 8
NAME = "summary-cache.jsonl"
SKILLS = "skills-cache.json"
PROBE = BEFORE  # bytes before the cached offset that must still be the same (the tail keeps them as read)
USE_COUNTS = len(SkillMetrics.__struct_fields__)


def cache_path(paths: AgentPaths) -> Path:
    return paths.private / NAME


def fingerprints(settings: Settings, weak: frozenset[str]) -> tuple[str, str]:
    """(observation, scoring): change either and the cache's turns are void, or scored again."""
    observe = [
        VERSION,
        corrections.VERSION,
        in_context.VERSION,
        transient.VERSION,
        list(settings.transient_statuses),
        list(settings.transient_patterns),
        list(settings.correction_phrases),
        settings.max_line_bytes,
    ]
    score = [settings.threshold, sorted(settings.weights.items()), settings.complex_min_tool_calls, sorted(weak)]
    return _digest(observe), _digest(score)


def _digest(value: object) -> str:
    return hashlib.sha256(orjson.dumps(value)).hexdigest()


class Untrusted(ValueError):
    """The cache does not hold together: it is ignored whole."""


class SummaryCache:
    """One agent's cache file: what was read from it, and how to bring it up to date."""

    def __init__(self, paths: AgentPaths, settings: Settings, weak: frozenset[str]) -> None:
        self.path = cache_path(paths)
        self.observe, self.score = fingerprints(settings, weak)
        self.rescore = False  # the entries were scored under other inputs
        self._file: tuple[int, int, int] | None = None  # (device, inode, size) of the file as last read or written
        self._lines = 0

    def load(self, make: Callable[[str], ConversationState]) -> tuple[dict[str, ConversationState], Uses]:
        """Each conversation's state as the cache has it (its observer not yet built) and the
        agent's skill-use counts over them; none if untrusted."""
        try:
            with open_regular(self.path) as handle:
                stat = os.fstat(handle.fileno())
                data = handle.read()
            if not data.endswith(b"\n"):
                raise Untrusted("a torn last line")
            stop = data.index(b"\n")  # each line's parts are slices of the one buffer, never copies
            header = _body(data, 0, stop)[0]
            if header.get("version") != VERSION or header.get("observe") != self.observe:
                raise Untrusted("another version or observation fingerprint")
            states: dict[str, ConversationState] = {}
            lines = 1
            entry: dict = header
            while stop + 1 < len(data):
                start, stop = stop + 1, data.index(b"\n", stop + 1)
                entry, turns = _body(data, start, stop)
                if "uses" not in entry:
                    _apply(entry, turns, states, make)
                lines += 1
            if any(map(USE_COUNTS.__ne__, map(len, entry["uses"].values()))):  # (a short array takes the defaults)
                raise Untrusted("skill-use counts of the wrong shape")
            uses = msgspec.convert(entry["uses"], Uses)  # the last line's: the counts as last written
        except (
            OSError,
            IndexError,
            KeyError,
            TypeError,
            ValueError,
            AttributeError,
            orjson.JSONDecodeError,
            msgspec.ValidationError,
        ):
            return {}, {}
        self.rescore = header.get("score") != self.score
        self._file, self._lines = (stat.st_dev, stat.st_ino, stat.st_size), lines
        return states, uses

    def save(self, states: dict[str, ConversationState], uses: Uses, gone: Iterable[str] = ()) -> bool:
        """Bring the file up to date with ``states`` and ``uses``, the agent's skill-use counts over
        them: append what changed since it was read or written by this object, or write it whole;
        ``False`` if it cannot be written."""
        changed = [s for s in states.values() if s.unsaved or s.saved_at != s.tail.offset]
        gone = list(gone)
        if not changed and not gone and self._file is not None and not self.rescore:
            return True
        counts = _line({"uses": uses})
        try:
            if self._file is not None and self._appendable(len(changed) + len(gone) + 1, len(states)):
                lines = [_line(*_entry(s, s.saved_at)) for s in changed] + [_line({"c": stem, "gone": True}) for stem in gone]
                lines.append(counts)
                append_bytes(self.path, b"".join(lines), sync=False)
                self._file, self._lines = (*self._file[:2], self._file[2] + sum(map(len, lines))), self._lines + len(lines)
            else:
                header = _line({"version": VERSION, "observe": self.observe, "score": self.score})
                lines = [header] + [entry_line(s) for s in states.values()] + [counts]
                atomic_write(self.path, lines, durable=False)
                stat = os.stat(self.path)
                self._file, self._lines, self.rescore = (stat.st_dev, stat.st_ino, stat.st_size), len(lines), False
        except OSError:
            return False
        for state in states.values():
            state.unsaved.clear()
            state.saved_at = state.tail.offset
        return True

    def write_whole(self, entries: list[bytes], uses: Uses) -> bool:
        """Write the file whole from ``entries`` (:func:`entry_line` of each conversation, in listing
        order) and ``uses``: the bytes :meth:`save` writes for those states; ``False`` if it cannot."""
        header = _line({"version": VERSION, "observe": self.observe, "score": self.score})
        try:
            atomic_write(self.path, [header, *entries, _line({"uses": uses})], durable=False)
        except OSError:
            return False
        self._file = None  # read again by the next load
        return True

    def _appendable(self, new: int, conversations: int) -> bool:
        """Append only to the file as this object left it, and while entries have not piled up."""
        if self._file is None or self.rescore or self._lines + new > 2 * conversations + 16:
            return False
        try:
            stat = os.stat(self.path)
        except OSError:
            return False
        return (stat.st_dev, stat.st_ino, stat.st_size) == self._file


Bytes = bytes | memoryview
Turns = tuple[Bytes, Bytes, Bytes]  # an entry's summaries, traces and skill indexes, each a compact JSON array
PARTS = 3
_ENCODE = msgspec.json.Encoder().encode


def _line(value: object, turns: Turns | None = None) -> bytes:
    """One line: a checksum, the object, and the turns' parts each after a tab (compact JSON has no raw tab)."""
    body = _ENCODE(value) if turns is None else b"\t".join((_ENCODE(value), *turns))
    return b"%08x %s\n" % (zlib.crc32(body), body)


def _body(data: bytes, start: int = 0, stop: int | None = None) -> tuple[dict, Turns | None]:
    """The object of the line ``data[start:stop]`` and its turns' parts, slices of ``data`` (not copies)."""
    stop = len(data) if stop is None else stop
    view = memoryview(data)
    if stop - start < 9 or data[start + 8] != 0x20 or data[start : start + 8] != b"%08x" % zlib.crc32(view[start + 9 : stop]):
        raise Untrusted("a checksum that does not hold")
    tabs = [start + 8]
    while len(tabs) <= PARTS and (tab := data.find(b"\t", tabs[-1] + 1, stop)) >= 0:
        tabs.append(tab)
    if len(tabs) not in (1, 1 + PARTS):
        raise Untrusted("an entry of the wrong shape")
    tabs.append(stop)
    value = orjson.loads(view[start + 9 : tabs[1]])
    if not isinstance(value, dict):
        raise Untrusted("not an object")
    if len(tabs) == 2:
        return value, None
    rows, traces, indexes = (view[a + 1 : b] for a, b in itertools.pairwise(tabs[1:]))
    return value, (rows, traces, indexes)


Raw = msgspec.Raw
# A cached summary's shape: every key of TurnSummary, no other, and a trace's length; only what
# the packed columns need is decoded.
_DECODED: dict[str, Any] = {"started_at": str | None, "ended_at": str | None, "score": float, "triggers": bool}
_DECODED["skills_indexed"] = Annotated[int, msgspec.Meta(ge=0)]
_Row = msgspec.defstruct(
    "_Row",
    [(name, _DECODED.get(name, Raw)) for name in TurnSummary.__struct_fields__],
    forbid_unknown_fields=True,
    gc=False,
)
_ROWS = msgspec.json.Decoder(list[_Row])  # type: ignore[valid-type]
_POSITION = attrgetter("skills_indexed")
_Trace = msgspec.defstruct(
    "_Trace", [(name, int if name == "end" else Raw) for name in TurnTrace.__struct_fields__], array_like=True, gc=False
)
_TRACES = msgspec.json.Decoder(list[_Trace])  # type: ignore[valid-type]
_INDEXES = msgspec.json.Decoder(list[Raw])  # only counted: decoded when the turns are


def _packed(turns: Turns, indexes: int) -> Packed:
    """A whole entry's turns checked for shape and kept as bytes: nothing else of them is decoded
    (``indexes``: how many distinct skill indexes the entry says its last part holds)."""
    rows: list[Any] = _ROWS.decode(turns[0])
    traces: list[Any] = _TRACES.decode(turns[1])
    if len(rows) != len(traces) or max(map(_POSITION, rows), default=-1) >= indexes or len(_INDEXES.decode(turns[2])) != indexes:
        raise Untrusted("a turn of the wrong shape")
    last_end = traces[0].end if traces else 0  # stored last turn first
    rows.reverse()
    traces.reverse()
    keys = [row.ended_at or row.started_at or "" for row in rows]
    triggered = [(row.ended_at, row.score, trace.end) for row, trace in zip(rows, traces, strict=True) if row.triggers]
    return Packed(*turns, indexes, keys, triggered, last_end)


def entry_line(state: ConversationState) -> bytes:
    """``state``'s whole entry, as a line of the file."""
    return _line(*_entry(state, 0))


def _entry(state: ConversationState, base: int) -> tuple[dict, Turns]:
    """``state`` as a cache entry and its turns' bytes: whole when ``base`` is 0 (last turn first, as
    status prints them), else only its turns changed since (their positions in ``s``). A packed
    state is written back as the bytes it was read from."""
    tail, observer = state.tail, state.observer
    seqs: Sequence[int] = range(state.count - 1, -1, -1) if base == 0 else sorted(state.unsaved)
    packed = state.packed
    if base == 0 and packed is not None:
        indexes, turns = packed.index_count, (packed.rows, packed.traces, packed.indexes)
    else:
        summaries, traces = state.summaries, state.traces
        listed, rows, traces_, indexes_ = encode_turns([summaries[seq] for seq in seqs], [traces[seq] for seq in seqs])
        indexes, turns = len(listed), (rows, traces_, indexes_)
    seen = state.seen or (0, 0, -1, 0)
    probe = b""
    if tail.identity:  # the bytes the tail read before its offset, else read again
        kept = tail.before
        probe = kept if kept is not None and len(kept) == min(PROBE, tail.offset) else _probe(tail.path, tail.offset)
    return {
        "c": state.stem,
        "base": base,
        "n": state.count,
        "at": [*seen, tail.offset, tail.head.hex(), probe.hex()],
        "obs": [
            state.malformed,
            state.long_lines,
            observer.orphans,
            observer.latest_ts,
            observer.open is not None or state.open_turn,
            observer.tool_names,
            sorted(observer.edited_ids),
            observer._index_seen,
        ],
        "agg": [state.triggering, state.first[1] if state.first else None],
        "ix": indexes,
        "s": None if base == 0 else list(seqs),
    }, turns


def _probe(path: Path, offset: int) -> bytes:
    try:
        with open_regular(path) as handle:
            handle.seek(max(0, offset - PROBE))
            return handle.read(min(PROBE, offset))
    except OSError:
        return b""


def _apply(
    entry: dict, turns: Turns | None, states: dict[str, ConversationState], make: Callable[[str], ConversationState]
) -> None:
    """Replay one entry onto ``states``; :class:`Untrusted` when it does not extend what is there."""
    stem = entry["c"]
    if entry.get("gone"):
        states.pop(stem, None)
        return
    if turns is None:
        raise Untrusted("an entry without its turns")
    base = entry["base"]
    if base == 0:
        state = states[stem] = make(stem)
    else:
        known = states.get(stem)
        if known is None or known.tail.offset != base:
            raise Untrusted("an entry that does not extend the one before it")
        state = known
    dev, ino, size, mtime, offset, head, probe = entry["at"]
    malformed, long_lines, orphans, latest_ts, open_turn, tool_names, edited_ids, index_seen = entry["obs"]
    triggering, first = entry["agg"]
    indexes = entry["ix"]
    if base == 0:
        state.packed = _packed(turns, _count(indexes))
    else:
        listed = decode_indexes(turns[2])
        if len(listed) != indexes:
            raise Untrusted("skill indexes missing")
        new_summaries, new_traces = decode_turns(turns[0], turns[1], listed)
        summaries, traces = state.summaries, state.traces
        for seq, summary, trace in zip(entry["s"], new_summaries, new_traces, strict=True):
            if seq == len(summaries):
                summaries.append(summary)
                traces.append(trace)
            else:
                summaries[seq], traces[seq] = summary, trace
    if state.count != entry["n"] or (open_turn and not state.count):
        raise Untrusted("turns missing")
    observer = state.observer
    observer.orphans, observer.latest_ts, observer.latest_at = _count(orphans), latest_ts, parse_ts(latest_ts)
    if (latest_ts is None) != (observer.latest_at is None):
        raise Untrusted("an event time that does not parse")
    observer.tool_names, observer.edited_ids, observer._index_seen = dict(tool_names), set(edited_ids), index_seen
    state.malformed, state.long_lines = _count(malformed), [(_count(a), _count(b)) for a, b in long_lines]
    state.triggering = _count(triggering)
    state.first = (moment, first) if (moment := parse_ts(first)) is not None else None
    state.tail = JsonlTail(state.path, _count(offset), (dev, ino), bytes.fromhex(head), state.tail.max_line)
    state.seen = (dev, ino, size, mtime) if size >= 0 else None
    state.probe = bytes.fromhex(probe)
    state.open_turn = bool(open_turn)
    state.built = state.ready = False
    state.saved_at = offset


def _count(value: object) -> int:
    if value.__class__ is not int or value < 0:
        raise Untrusted("not a count")
    return value


def still_matches(state: ConversationState, stat: os.stat_result) -> bool:
    """True when the file still starts with the bytes the restored ``state`` observed."""
    tail, seen = state.tail, state.seen
    if seen is None or (stat.st_dev, stat.st_ino) != seen[:2] or stat.st_size < tail.offset:
        return False
    if stat.st_size == seen[2] and stat.st_mtime_ns != seen[3]:
        return False
    try:
        with open_regular(state.path) as handle:
            if handle.read(len(tail.head)) != tail.head:
                return False
            handle.seek(max(0, tail.offset - PROBE))
            return handle.read(min(PROBE, tail.offset)) == state.probe
    except OSError:
        return False


SKILLS_FORMAT = 2  # the cached skills' shape: each Skill's fields, each broken file's slug and problem


class _SkillsKept(msgspec.Struct):
    """``.orkas/skills-cache.json``: what the skills were read under, the skills, the files that do not parse."""

    key: list
    skills: list[Skill]
    broken: list[tuple[str, str]]  # slug, problem


_SKILLS_KEPT = msgspec.json.Decoder(_SkillsKept)


def read_skills(paths: AgentPaths, settings: Settings, names: list[str]) -> SkillFiles:
    """The agent's skill files as :meth:`SkillStore.read_all` reads them (``names``: the readable files of
    ``skills/``, as just listed). Kept as data in ``.orkas/skills-cache.json`` (the skills and the files
    that do not parse, never a printed row) while the skill settings and every skill file's name,
    device, inode, size and mtime are what they were (a theme or a model change does not invalidate it)."""
    path = paths.private / SKILLS
    try:
        files = [name for name in names if SLUG.match(name[:-3])]  # what SkillStore.slugs() reads
        folder = str(paths.skills)
        skill_settings = [settings.max_skills, settings.max_skill_body_chars]  # what the skill store reads of them
        key = [VERSION, SKILLS_FORMAT, skill_settings, [[name, *_identity(f"{folder}/{name}")] for name in files]]
    except OSError:
        key = None
    if key is not None:
        try:
            data = read_regular(path).rstrip(b"\n")
            if len(data) > 9 and data[8] == 0x20 and data[:8] == b"%08x" % zlib.crc32(memoryview(data)[9:]):
                cached = _SKILLS_KEPT.decode(memoryview(data)[9:])
                if cached.key == key:
                    broken = [BrokenSkill(slug, paths.skills / f"{slug}.md", problem) for slug, problem in cached.broken]
                    return SkillFiles(cached.skills, broken)
        except (OSError, ValueError, msgspec.MsgspecError):
            pass
    read = SkillStore(paths, settings).read_all()
    if key is not None:
        kept = {"key": key, "skills": read.skills, "broken": [[b.slug, b.problem] for b in read.broken]}
        with contextlib.suppress(OSError):
            atomic_write(path, _line(kept), durable=False)
    return read


def _identity(path: str) -> tuple[int, int, int, int]:
    stat = os.stat(path)
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns
