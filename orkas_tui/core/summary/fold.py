"""The fold: each conversation's turns folded into its summary, the one producer of status facts.

A :class:`ConversationState` is one conversation file: how far it was read (its tail),
the observer that turns its events into turn records, and its summary: every turn as
data (``rows``, each exactly as ``status --json`` prints it, and ``facts``, what the
record holds besides), its skill-use counts (the :class:`SkillMetrics` counts), its
triggering turns, its first turn's stamp, its malformed and orphan counts and long lines.
A turn that changed is folded on its own: what its previous row contributed is taken
back and what its new row contributes is added, so an append costs what its new turns
cost, never a re-fold of the conversation. Summaries are what the cache keeps
(:mod:`orkas_tui.core.summary.cache`); a state restored from it builds its turn records
only when new bytes arrive or a view asks for them (:meth:`ConversationState.records`).
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.core.observe.corrections import CorrectionMatcher
from orkas_tui.core.observe.signals import Score, score_turn
from orkas_tui.core.observe.skill_metrics import SkillMetrics, skill_metrics
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ConversationObserver, ObservedError, TurnRecord
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.tail import JsonlTail
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.summary.report import HistoryFacts, ScoredTurn

Uses = dict[str, list[int]]  # slug -> [impressions, invocations, edited, ineffective, effective_base]


@dataclass
class Packed:
    """A restored conversation's rows and facts still as the cache's bytes (validated when read):
    counts, the newest turns and the queue's facts need only the columns kept beside them."""

    # compact JSON arrays, last turn first (the order status prints a conversation in): the rows,
    # each row's skills_indexed a position in ``indexes``, and their facts
    rows: bytes | memoryview
    facts: bytes | memoryview
    indexes: list[list[str]]
    keys: list[str]  # per turn, in turn order: its end (else start) time, what newest-first sorts by
    triggered: list[tuple[str | None, float]]  # (ended_at, score) of the triggering turns, in turn order

    def unpack(self) -> tuple[list[dict], list[list]]:
        """The rows and facts as data, in turn order."""
        rows, facts = orjson.loads(self.rows), orjson.loads(self.facts)
        rows.reverse()
        facts.reverse()
        indexes = self.indexes
        for row in rows:
            row["skills_indexed"] = indexes[row["skills_indexed"]]
        return rows, facts


class ConversationState:
    """One conversation file: its reading position, its observer and its summary."""

    def __init__(self, path: Path, rule: TransientRule, matcher: CorrectionMatcher, max_line: int) -> None:
        self.path = path
        self.tail = JsonlTail(path, max_line=max_line)
        self.observer = ConversationObserver(path.stem, rule, matcher)
        self.malformed = 0  # lines skipped: not a spec event, or over the line cap
        self.long_lines: list[tuple[int, int]] = []  # (start, length) of those over the cap
        self.seen: tuple[int, int, int, int] | None = None  # (device, inode, size, mtime) when last read
        self._rows: list[dict] = []
        self._facts: list[list] = []  # per turn: [tools, ended with an error, correction, its text, start, end]
        self.packed: Packed | None = None  # restored: rows and facts not decoded until asked for
        self.scored: list[ScoredTurn] = []
        self.built = True  # the observer holds the turn records (False: restored from the cache, rows only)
        self.ready = True  # the observer can read on (False: restored, its records not even in place)
        self.open_turn = False  # restored with its last turn open, until the observer is readied (read_on)
        self.probe: bytes | None = None  # restored: the bytes before the offset, checked once (cache.still_matches)
        self.uses: Uses = {}
        self.triggering = 0
        self.first: tuple[datetime, str] | None = None  # the earliest turn's moment and stamp
        self.unsaved: set[int] = set()  # turns folded since the cache last had this conversation
        self.saved_at = 0  # the offset the cache has this conversation up to (0: not at all)

    @property
    def stem(self) -> str:
        return self.path.stem

    def _unpack(self) -> None:
        if self.packed is not None:
            self._rows, self._facts = self.packed.unpack()
            self.packed = None

    @property
    def rows(self) -> list[dict]:
        """Every turn as ``status --json`` prints it (decoded from the cache's bytes the first time)."""
        self._unpack()
        return self._rows

    @rows.setter
    def rows(self, rows: list[dict]) -> None:
        self.packed = None
        self._rows = rows

    @property
    def facts(self) -> list[list]:
        self._unpack()
        return self._facts

    @facts.setter
    def facts(self, facts: list[list]) -> None:
        self._facts = facts

    @property
    def count(self) -> int:
        """How many turns, without decoding a packed state."""
        return len(self.packed.keys) if self.packed is not None else len(self._rows)

    def sort_keys(self) -> list[str]:
        if self.packed is not None:
            return self.packed.keys
        return [row["ended_at"] or row["started_at"] or "" for row in self._rows]

    def in_time_order(self) -> bool:
        """True when no turn ends (else starts) before the one before it: newest first is then
        simply the turns from the last."""
        keys = self.sort_keys()
        return all(map(operator.le, keys, keys[1:]))

    def triggered(self) -> Iterable[tuple[str | None, float]]:
        """(ended_at, score) of each triggering turn, in order."""
        if self.packed is not None:
            return self.packed.triggered
        return [(row["ended_at"], row["score"]) for row in self._rows if row["triggers"]]

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
        """The turn records (built from the summary's rows the first time after a restore)."""
        if not self.built:
            self.read_on()
            turns, scored, stem = self.observer.turns, self.scored, self.stem
            for seq, (row, facts) in enumerate(zip(self.rows, self.facts, strict=True)):
                if turns[seq] is None:
                    turns[seq] = _record(stem, seq, row, facts)
                    scored[seq] = ScoredTurn(turns[seq], _score(row))
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
        count = len(self.rows)
        observer.turns, self.scored = [None] * count, [None] * count  # type: ignore[list-item]
        if count:
            last = observer.turns[-1] = _record(self.stem, count - 1, self.rows[-1], self.facts[-1])
            self.scored[-1] = ScoredTurn(last, _score(self.rows[-1]))
            observer._index = last.skills_indexed
            observer.open = last if self.open_turn else None
        self.open_turn = False  # the observer says from now on
        if b"output_edited" in block:
            self.records()

    def fold(self, changed: Iterable[TurnRecord], settings: Settings, weak: frozenset[str]) -> None:
        """Fold the ``changed`` records (of this observer) into the summary, one turn at a time."""
        rows, facts, scored, uses = self.rows, self.facts, self.scored, self.uses
        for record in sorted(changed, key=_seq):
            seq = record.seq
            turn = ScoredTurn(record, score_turn(record, settings, weak))
            row, fact = _row(turn), _facts(record)
            if seq < len(rows):
                self.triggering -= rows[seq]["triggers"]
                _contribute(uses, rows[seq], facts[seq][1], -1)
                rows[seq], facts[seq], scored[seq] = row, fact, turn
            else:
                rows.append(row)
                facts.append(fact)
                scored.append(turn)
            self.triggering += row["triggers"]
            _contribute(uses, row, fact[1], 1)
            self._first(row)
            self.unsaved.add(seq)

    def fold_all(self, settings: Settings, weak: frozenset[str]) -> None:
        """The summary made again from every record (a file read from its start, or new scoring inputs)."""
        records = self.records()
        self.scored = [ScoredTurn(r, score_turn(r, settings, weak)) for r in records]
        self.rows = [_row(turn) for turn in self.scored]
        self.facts = [_facts(r) for r in records]
        self.uses = {
            slug: [m.impressions, m.invocations, m.edited, m.ineffective, m.effective_base]
            for slug, m in skill_metrics(records).items()
        }
        self.triggering = sum(row["triggers"] for row in self.rows)
        self.first = None
        for row in self.rows:
            self._first(row)
        self.unsaved = set(range(len(self.rows)))
        self.saved_at = 0

    def _first(self, row: dict) -> None:
        stamp = row["started_at"] or row["ended_at"]
        if (moment := parse_ts(stamp)) is not None and (self.first is None or moment < self.first[0]):
            self.first = (moment, stamp)


def _seq(record: TurnRecord) -> int:
    return record.seq


def _row(turn: ScoredTurn) -> dict:
    row = turn.to_json()
    row["skills_read"] = list(row["skills_read"])  # the observer appends to the record's own list
    return row


def _facts(record: TurnRecord) -> list:
    return [dict(record.tools), record.end_error is not None, record.correction, record.correction_text, record.start, record.end]


def _score(row: dict) -> Score:
    return Score(row["signals"], row["evidence"], row["score"], row["triggers"])


def _record(conversation: str, seq: int, row: dict, facts: list) -> TurnRecord:
    tools, end_error, correction, correction_text, start, end = facts
    errors = [ObservedError(e["source"], e["message"], e["status"], e["transient"], e["reason"]) for e in row["errors"]]
    return TurnRecord(
        conversation,
        row["turn"],
        seq,
        row["started_at"],
        row["ended_at"],
        row["status"],
        row["tool_calls"],
        dict(tools),
        errors,
        errors[-1] if end_error else None,
        correction,
        correction_text,
        row["skills_indexed"],
        list(row["skills_read"]),
        row["edited"],
        start,
        end,
    )


def _contribute(uses: Uses, row: dict, end_error: bool, sign: int) -> None:
    """Add (``sign`` 1) or take back (-1) what one turn adds to the skill-use counts, as
    :func:`skill_metrics` counts them: ended turns only."""
    status = row["status"]
    if status == "running":
        return
    for slug in row["skills_indexed"]:
        _counts(uses, slug)[0] += sign
    if read := row["skills_read"]:
        end = row["errors"][-1] if end_error else None
        ended_in_error = status == "error" and end is not None
        transient = ended_in_error and end is not None and end["transient"]
        real = ended_in_error and end is not None and not end["transient"]
        for slug in dict.fromkeys(read):
            counts = _counts(uses, slug)
            counts[1] += sign
            counts[2] += sign * row["edited"]
            if status != "aborted" and not transient:
                counts[4] += sign
                counts[3] += sign * real
    if sign < 0:
        for slug in [slug for slug, counts in uses.items() if not any(counts)]:
            del uses[slug]


def _counts(uses: Uses, slug: str) -> list[int]:
    counts = uses.get(slug)
    if counts is None:
        counts = uses[slug] = [0, 0, 0, 0, 0]
    return counts


def skill_use(states: Iterable[ConversationState]) -> dict[str, SkillMetrics]:
    """The skill metrics over conversations, from their summed counts."""
    totals: Uses = {}
    for state in states:
        for slug, counts in state.uses.items():
            total = totals.get(slug)
            if total is None:
                totals[slug] = list(counts)
            else:  # the five counts, added in place (a warm status sums 40,000 of these)
                total[0] += counts[0]
                total[1] += counts[1]
                total[2] += counts[2]
                total[3] += counts[3]
                total[4] += counts[4]
    return {slug: SkillMetrics(*counts) for slug, counts in totals.items()}


def history_facts(states: Iterable[ConversationState], last: datetime | None) -> HistoryFacts:
    """The queue's facts given the last reflection. Trigger scores are added in listing order,
    turn by turn. A turn ended after ``last`` has an event after it, so activity after the last
    reflection is the newest event time alone."""
    first: tuple[datetime, str] | None = None
    pending = triggered = False
    total = 0.0
    for state in states:
        if state.first is not None and (first is None or state.first[0] < first[0]):
            first = state.first
        latest = state.observer.latest_at
        pending = pending or (bool(state.count) if last is None else latest is not None and latest > last)
        if not state.triggering:
            continue
        for ended_at, score in state.triggered():
            if (ended := parse_ts(ended_at)) is not None and (last is None or ended > last):
                triggered = True
                total += score
    return HistoryFacts(first[1] if first else None, pending, round(total, 6), triggered)


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
            return _runs(newest_order(states))
        spans.append((keys[-1], state.stem, keys[0], state))
    spans.sort(reverse=True)
    for (_, stem, low, _), (high, next_stem, _, _) in itertools.pairwise(spans):
        if (low, stem) < (high, next_stem):  # its oldest turn is not newer than the next one's newest
            return _runs(newest_order(states))
    return [(state, range(state.count - 1, -1, -1)) for _, _, _, state in spans]


def _runs(order: list[tuple[ConversationState, int]]) -> list[Run]:
    return [(state, [seq for _, seq in run]) for state, run in itertools.groupby(order, key=operator.itemgetter(0))]


def newest_first(states: Iterable[ConversationState]) -> list[dict]:
    """Every turn row in :func:`newest_order`."""
    return [state.rows[seq] for state, seq in newest_order(states)]


def newest(states: Iterable[ConversationState], count: int) -> list[dict]:
    """The first ``count`` rows of :func:`newest_first`, decoding only the conversations they are in.
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
    return [state.rows[seq] for _, _, seq, state in kept]
