"""The fold: each conversation's turns folded into its summary, the one producer of status facts.

A :class:`ConversationState` is one conversation file: how far it was read (its tail),
the observer that turns its events into turn records, and its summary: every turn's
:class:`~orkas_tui.core.summary.turn.TurnSummary` (what ``status --json`` prints) and
:class:`~orkas_tui.core.summary.turn.TurnTrace` (what it does not), its skill-use counts
(:class:`SkillMetrics` per slug), its triggering turns, its first turn's stamp, its
malformed and orphan counts and long lines. A turn that changed is folded on its own: what
its previous summary contributed is taken back and what its new one contributes is added
(one counting function, :func:`count_uses`, for both), so an append costs what its new
turns cost, never a re-fold of the conversation. Summaries are what the cache keeps
(:mod:`orkas_tui.core.summary.cache`) and what views read; a state restored from it builds
turn records only for the observer to read on (:meth:`ConversationState.read_on`).
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from orkas_tui.core.observe.corrections import CorrectionMatcher
from orkas_tui.core.observe.signals import score_turn
from orkas_tui.core.observe.skill_metrics import SkillMetrics, count_uses
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ConversationObserver, TurnRecord
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.tail import JsonlTail
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.summary.report import Activity
from orkas_tui.core.summary.turn import TurnSummary, TurnTrace, counted, record_of, summarize, trace

Uses = dict[str, SkillMetrics]

# A summary as the cache writes it: every field of TurnSummary, its skills_indexed a position in
# the entry's list of distinct indexes (most turns share one).
CachedTurn = msgspec.defstruct(
    "CachedTurn",
    [(f.name, int if f.name == "skills_indexed" else f.type) for f in msgspec.structs.fields(TurnSummary)],
    forbid_unknown_fields=True,
    gc=False,
)
_CACHED = msgspec.json.Decoder(list[CachedTurn])  # type: ignore[valid-type]
_TRACES = msgspec.json.Decoder(list[TurnTrace])


def decode_turns(
    rows: bytes | memoryview, traces: bytes | memoryview, indexes: list[list[str]]
) -> tuple[list[TurnSummary], list[TurnTrace]]:
    """The cache's turns (as :func:`encode_turns` wrote them) as data, in the order written."""
    summaries = []
    cached: list[Any] = _CACHED.decode(rows)
    for row in cached:
        summary = TurnSummary(*msgspec.structs.astuple(row))
        summary.skills_indexed = indexes[row.skills_indexed]
        summaries.append(summary)
    return summaries, _TRACES.decode(traces)


_INDEXES = msgspec.json.Decoder(list[list[str]])


def decode_indexes(data: bytes | memoryview) -> list[list[str]]:
    return _INDEXES.decode(data)


def encode_turns(summaries: Sequence[TurnSummary], traces: Sequence[TurnTrace]) -> tuple[list[list[str]], bytes, bytes, bytes]:
    """The distinct skill indexes, then the turns, their traces and those indexes as compact JSON
    (each index written once; a turn's ``skills_indexed`` is its position)."""
    tables: dict[int, int] = {}
    indexes: list[list[str]] = []
    rows = []
    for summary in summaries:
        index = summary.skills_indexed
        ref = tables.get(id(index))
        if ref is None:
            ref = tables[id(index)] = len(indexes)
            indexes.append(index)
        rows.append(msgspec.structs.replace(summary, skills_indexed=ref))
    return indexes, msgspec.json.encode(rows), msgspec.json.encode(traces), msgspec.json.encode(indexes)


@dataclass
class Packed:
    """A restored conversation's turns still as the cache's bytes (validated when read):
    counts, the newest turns and the queue's activity need only the columns kept beside them."""

    # compact JSON arrays, last turn first (the order status prints a conversation in): the
    # summaries (:func:`encode_turns`) and their traces
    rows: bytes | memoryview
    traces: bytes | memoryview
    indexes: bytes | memoryview  # a compact JSON array of the distinct skill indexes the rows point into
    index_count: int
    keys: list[str]  # per turn, in turn order: its end (else start) time, what newest-first sorts by
    triggered: list[tuple[str | None, float, int]]  # (ended_at, score, end offset) of the triggering turns, in turn order
    last_end: int  # where the last turn ends in the file (0: no turn)

    def unpack(self) -> tuple[list[TurnSummary], list[TurnTrace]]:
        """The summaries and traces as data, in turn order."""
        summaries, traces = decode_turns(self.rows, self.traces, decode_indexes(self.indexes))
        summaries.reverse()
        traces.reverse()
        return summaries, traces


class ConversationState:
    """One conversation file: its reading position, its observer and its summary."""

    def __init__(self, path: Path, rule: TransientRule, matcher: CorrectionMatcher, max_line: int) -> None:
        self.path = path
        self.tail = JsonlTail(path, max_line=max_line)
        self.observer = ConversationObserver(path.stem, rule, matcher)
        self.malformed = 0  # lines skipped: not a spec event, or over the line cap
        self.long_lines: list[tuple[int, int]] = []  # (start, length) of those over the cap
        self.seen: tuple[int, int, int, int] | None = None  # (device, inode, size, mtime) when last read
        self._summaries: list[TurnSummary] = []
        self._traces: list[TurnTrace] = []
        self.packed: Packed | None = None  # restored: summaries and traces not decoded until asked for
        self.built = True  # the observer holds the turn records (False: restored from the cache, rows only)
        self.ready = True  # the observer can read on (False: restored, its records not even in place)
        self.open_turn = False  # restored with its last turn open, until the observer is readied (read_on)
        self.probe: bytes | None = None  # restored: the bytes before the offset, checked once (cache.still_matches)
        self.triggering = 0
        self.first: tuple[datetime, str] | None = None  # the earliest turn's moment and stamp
        self.unsaved: set[int] = set()  # turns folded since the cache last had this conversation
        self.saved_at = 0  # the offset the cache has this conversation up to (0: not at all)

    @property
    def stem(self) -> str:
        return self.path.stem

    def _unpack(self) -> None:
        if self.packed is not None:
            self._summaries, self._traces = self.packed.unpack()
            self.packed = None

    @property
    def summaries(self) -> list[TurnSummary]:
        """Every turn's summary, in turn order (decoded from the cache's bytes the first time)."""
        self._unpack()
        return self._summaries

    @property
    def traces(self) -> list[TurnTrace]:
        self._unpack()
        return self._traces

    def set_turns(self, summaries: list[TurnSummary], traces: list[TurnTrace]) -> None:
        self.packed = None
        self._summaries, self._traces = summaries, traces

    @property
    def count(self) -> int:
        """How many turns, without decoding a packed state."""
        return len(self.packed.keys) if self.packed is not None else len(self._summaries)

    def sort_keys(self) -> list[str]:
        if self.packed is not None:
            return self.packed.keys
        return [summary.sort_key for summary in self._summaries]

    def in_time_order(self) -> bool:
        """True when no turn ends (else starts) before the one before it: newest first is then
        simply the turns from the last."""
        keys = self.sort_keys()
        return all(map(operator.le, keys, keys[1:]))

    def triggered(self) -> Iterable[tuple[str | None, float, int]]:
        """(ended_at, score, end offset) of each triggering turn, in order."""
        if self.packed is not None:
            return self.packed.triggered
        return [(s.ended_at, s.score, t.end) for s, t in zip(self._summaries, self._traces, strict=True) if s.triggers]

    @property
    def last_end(self) -> int:
        """Where the last turn ends in the file (0: no turn yet): a read mark before it leaves a turn unseen."""
        if self.packed is not None:
            return self.packed.last_end
        return self._traces[-1].end if self._traces else 0

    def long_line_problem(self) -> str | None:
        """The problem line for the lines skipped for their length, if any."""
        if not self.long_lines:
            return None
        start, length = self.long_lines[0]
        more = f" and {len(self.long_lines) - 1} more" if len(self.long_lines) > 1 else ""
        return (
            f"{self.path}: a line of {length:,} bytes at byte {start:,}{more} is over the "
            f"{self.tail.max_line:,}-byte line cap (max_line_bytes); skipped"
        )

    def records(self) -> list[TurnRecord]:
        """The turn records (built from the summaries the first time after a restore)."""
        if not self.built:
            self.read_on()
            turns = self.observer.turns
            for seq, (summary, trace_) in enumerate(zip(self.summaries, self.traces, strict=True)):
                if turns[seq] is None:
                    turns[seq] = record_of(seq, summary, trace_)
            self.built = True
        return self.observer.turns

    def read_on(self, block: bytes = b"") -> None:
        """Ready a restored observer for new bytes: only its last turn's record is built (what a
        new event can change), unless ``block`` marks an earlier turn edited."""
        observer = self.observer
        if self.ready:
            if not self.built and b"output_edited" in block:  # (a built state: no 4 MB search)
                self.records()
            return
        self.ready = True
        count = len(self.summaries)
        observer.turns = [None] * count  # type: ignore[list-item]
        if count:
            last = observer.turns[-1] = record_of(count - 1, self.summaries[-1], self.traces[-1])
            if self.open_turn and count > 1:  # its prompt may be still to come, and mark the turn before edited
                observer.turns[-2] = record_of(count - 2, self.summaries[-2], self.traces[-2])
            observer._index = last.skills_indexed
            observer.open = last if self.open_turn else None
            observer.context.resumed(count, None if self.open_turn else last.status)
        self.open_turn = False  # the observer says from now on
        if b"output_edited" in block:
            self.records()

    def fold(self, changed: Iterable[TurnRecord], settings: Settings, weak: frozenset[str], uses: Uses) -> None:
        """Fold the ``changed`` records (of this observer) into the summary, one turn at a time,
        and what they change into ``uses``, the agent's skill-use counts."""
        summaries, traces = self.summaries, self.traces
        for record in sorted(changed, key=_seq):
            seq = record.seq
            score = score_turn(record, settings, weak)
            summary, trace_ = summarize(record, score), trace(record)
            if seq < len(summaries):
                self.triggering -= summaries[seq].triggers
                count_uses(uses, [counted(summaries[seq], traces[seq])], -1)
                summaries[seq], traces[seq] = summary, trace_
            else:
                summaries.append(summary)
                traces.append(trace_)
            self.triggering += summary.triggers
            count_uses(uses, [counted(summary, trace_)])
            self._first(summary)
            self.unsaved.add(seq)

    def fold_all(self, settings: Settings, weak: frozenset[str], uses: Uses) -> None:
        """The summary made again from every record (a file read from its start, or new scoring
        inputs), and ``uses``, the agent's skill-use counts, changed to match."""
        records = self.records()
        self.forget(uses)
        self.set_turns([summarize(r, score_turn(r, settings, weak)) for r in records], [trace(r) for r in records])
        count_uses(uses, map(counted, self._summaries, self._traces))
        self.triggering = sum(summary.triggers for summary in self._summaries)
        self.first = None
        for summary in self._summaries:
            self._first(summary)
        self.unsaved = set(range(len(self._summaries)))
        self.saved_at = 0

    def forget(self, uses: Uses) -> None:
        """Take what this conversation's turns contribute out of ``uses`` (it is gone, or is counted again)."""
        if self.count:
            count_uses(uses, map(counted, self.summaries, self.traces), -1)

    def _first(self, summary: TurnSummary) -> None:
        stamp = summary.started_at or summary.ended_at
        if stamp is not None and (moment := parse_ts(stamp)) is not None and (self.first is None or moment < self.first[0]):
            self.first = (moment, stamp)


def _seq(record: TurnRecord) -> int:
    return record.seq


def activity_since(states: Iterable[ConversationState], marks: dict[str, int]) -> Activity:
    """The agent's activity no reflection has seen: a turn past its conversation's read mark (``marks``,
    by conversation; a conversation without one was never read) is unseen, whatever its time, so a
    history imported after a reflection is still pending. Trigger scores of the unseen triggering
    turns are added in listing order, turn by turn."""
    first: tuple[datetime, str] | None = None
    pending = triggered = False
    total = 0.0
    for state in states:
        if state.first is not None and (first is None or state.first[0] < first[0]):
            first = state.first
        mark = marks.get(state.stem, 0)
        if state.last_end <= mark:
            continue
        pending = True
        if not state.triggering:
            continue
        for ended_at, score, end in state.triggered():
            if end > mark and parse_ts(ended_at) is not None:
                triggered = True
                total += score
    return Activity(first[1] if first else None, pending, round(total, 6), triggered)


def newest_order(states: Iterable[ConversationState]) -> list[tuple[ConversationState, int]]:
    """(state, seq) of every turn newest first: by end (else start) time, conversation, turn order
    (what status prints), without decoding a packed state."""
    keyed: list[tuple] = []
    for state in states:
        stem = state.stem
        keyed += [(key, stem, seq, state) for seq, key in enumerate(state.sort_keys())]
    keyed.sort(reverse=True)  # (conversation, seq) is unique: states themselves are never compared
    return [(item[3], item[2]) for item in keyed]


Run = tuple[ConversationState, Sequence[int]]  # turns of one conversation, next to each other in the order


def newest_runs(states: Iterable[ConversationState]) -> list[Run]:
    """:func:`newest_order` as runs of one conversation each. When no conversation runs back in
    time and none overlaps another in time (the usual history: one session after another),
    each conversation is one run, its turns from the last, and no turn is sorted one by one."""
    states = list(states)
    spans = []
    for state in states:
        keys = state.sort_keys()
        if not keys:
            continue
        if not state.in_time_order():
            return pair_runs(newest_order(states))
        spans.append((keys[-1], state.stem, keys[0], state))
    spans.sort(reverse=True)
    for (_, stem, low, _), (high, next_stem, _, _) in itertools.pairwise(spans):
        if (low, stem) < (high, next_stem):  # its oldest turn is not newer than the next one's newest
            return pair_runs(newest_order(states))
    return [(state, range(state.count - 1, -1, -1)) for _, _, _, state in spans]


def pair_runs(order: list[tuple[ConversationState, int]]) -> list[Run]:
    """(state, seq) pairs in their order, as runs of one conversation each."""
    return [(state, [seq for _, seq in run]) for state, run in itertools.groupby(order, key=operator.itemgetter(0))]


def newest_first(states: Iterable[ConversationState]) -> list[TurnSummary]:
    """Every turn's summary in :func:`newest_order`."""
    return [state.summaries[seq] for state, seq in newest_order(states)]


def newest(states: Iterable[ConversationState], count: int) -> list[TurnSummary]:
    """The first ``count`` rows of :func:`newest_first`, decoding only the conversations they are in."""
    return [state.summaries[seq] for state, seq in newest_pairs(states, count)]


def newest_pairs(states: Iterable[ConversationState], count: int) -> list[tuple[ConversationState, int]]:
    """The first ``count`` (state, seq) of :func:`newest_order`, without decoding a packed state.
    Conversations are visited newest turn first, and the visit stops at one whose newest turn
    is older than every row already kept: most are never looked into."""
    if count <= 0:
        return []
    by_top = sorted(((max(keys), state.stem, state) for state in states if (keys := state.sort_keys())), reverse=True)
    kept: list[tuple[str, str, int, ConversationState]] = []
    for top, stem, state in by_top:
        if len(kept) == count and top < kept[0][0]:
            break
        for seq, key in enumerate(state.sort_keys()):
            item = (key, stem, seq, state)
            if len(kept) < count:
                heapq.heappush(kept, item)
            elif item[:3] > kept[0][:3]:
                heapq.heapreplace(kept, item)
    kept.sort(reverse=True)
    return [(state, seq) for _, _, seq, state in kept]
