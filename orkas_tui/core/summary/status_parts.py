"""An agent's history-derived status, put together from one part per conversation file.

A part holds the sums one conversation contributes to the agent's figures (skill
metric counts, triggering turns, malformed lines, the queue's facts); its turns,
scored and rendered as ``status --json`` prints them, go into the agent's
:class:`Printed` array. Parts combine into exactly what scoring the whole history
at once gives (the float sum of trigger scores is added in the same order), so
when one conversation grows only its part and its turns are made again, and the
array is spliced, not rebuilt (:mod:`orkas_tui.core.summary.status_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import accumulate, repeat
from operator import add, sub

import orjson

from orkas_tui.core.observe.signals import score_turn
from orkas_tui.core.observe.skill_metrics import SkillMetrics, skill_metrics
from orkas_tui.core.observe.turns import TurnRecord
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.store.skills import Skill
from orkas_tui.core.summary.report import HistoryFacts, ScoredTurn, SkillRow
from orkas_tui.core.summary.scan import ConversationState

_DUMP = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
INDENT = b"\n      "  # the turns array sits three levels deep in the status document
_ITEM = b"\n        "  # and each turn one level deeper
_OPEN, _SEP, _CLOSE = b"[" + INDENT + b"  ", b"," + INDENT + b"  ", INDENT + b"]"
_COUNTS = ("impressions", "invocations", "edited", "ineffective", "effective_base")
_NONE = [0] * len(_COUNTS)

Row = tuple[str, str, int, bytes]  # a turn: sort time (end, else start), conversation, seq, printed JSON


@dataclass
class Part:
    """What one conversation adds to its agent's figures. ``metrics`` is kept apart in the
    cache (:class:`Metrics` adds it to and takes it from the agent's totals)."""

    metrics: dict[str, list[int]]  # slug -> the SkillMetrics counts, in _COUNTS order
    triggering: int
    malformed: int
    orphans: int
    first_turn: str | None  # the stamp of its earliest turn
    pending: bool  # has activity after the last reflection (any turn at all when there was none)
    trigger_scores: list[float]  # scores of its triggering turns ended after the last reflection, in order
    long_lines: str | None = None  # the problem line for its lines over the line cap

    def to_json(self) -> dict:
        return {
            "triggering": self.triggering,
            "malformed": self.malformed,
            "orphans": self.orphans,
            "first_turn": self.first_turn,
            "pending": self.pending,
            "trigger_scores": self.trigger_scores,
            "long_lines": self.long_lines,
        }

    @classmethod
    def from_json(cls, entry: dict, metrics: dict[str, list[int]]) -> Part:
        """Raises ``KeyError``/``TypeError``/``ValueError``/``AttributeError`` on anything malformed."""
        first_turn, long_lines = entry["first_turn"], entry["long_lines"]
        if first_turn is not None and first_turn.__class__ is not str:
            raise ValueError("first turn")
        if long_lines is not None and long_lines.__class__ is not str:
            raise ValueError("long lines")
        return cls(
            metrics,
            int(entry["triggering"]),
            int(entry["malformed"]),
            int(entry["orphans"]),
            first_turn,
            bool(entry["pending"]),
            list(map(float, entry["trigger_scores"])),
            long_lines,
        )


class Metrics:
    """An agent's skill metric counts, summed over its parts; a part is added or taken back whole."""

    def __init__(self, totals: dict[str, list[int]] | None = None) -> None:
        self.totals = totals if totals is not None else {}

    def add(self, metrics: dict[str, list[int]]) -> None:
        totals = self.totals
        for slug, counts in metrics.items():
            total = totals.get(slug)
            totals[slug] = list(counts) if total is None else list(map(add, total, counts))

    def take(self, metrics: dict[str, list[int]]) -> None:
        """Take back what :meth:`add` added; ``ValueError`` if the totals never held it."""
        totals = self.totals
        for slug, counts in metrics.items():
            left = list(map(sub, totals.get(slug, _NONE), counts))
            if min(left) < 0:
                raise ValueError(f"more {slug} counts taken back than there were")
            if any(left):
                totals[slug] = left
            else:
                totals.pop(slug, None)

    def of(self, slug: str) -> SkillMetrics:
        counts = self.totals.get(slug)
        return SkillMetrics(*counts) if counts else SkillMetrics()

    @staticmethod
    def checked(value: object) -> dict[str, list[int]]:
        """``value`` if it is a table of counts, else ``ValueError``."""
        if not isinstance(value, dict) or not all(
            isinstance(counts, list) and len(counts) == len(_COUNTS) and all(c.__class__ is int and c >= 0 for c in counts)
            for counts in value.values()
        ):
            raise ValueError("metric counts")
        return value


def conversation_part(
    state: ConversationState, settings: Settings, weak: frozenset[str], last: datetime | None
) -> tuple[Part, list[Row]]:
    """One observed conversation's part and its turns."""
    observer = state.observer
    records = observer.turns
    rows, trigger_scores = [], []
    triggering = 0
    first: tuple[datetime, str] | None = None
    after_last = False
    for record in records:
        score = score_turn(record, settings, weak)
        triggering += score.triggers
        text = orjson.dumps(ScoredTurn(record, score).to_json(), option=_DUMP).replace(b"\n", _ITEM)
        rows.append((record.ended_at or record.started_at or "", record.conversation, record.seq, text))
        stamp = record.started_at or record.ended_at
        if (moment := parse_ts(stamp)) is not None and (first is None or moment < first[0]):
            first = (moment, stamp)
        ended = parse_ts(record.ended_at)
        if ended is None or (last is not None and ended <= last):
            continue
        after_last = True
        if score.triggers:
            trigger_scores.append(score.score)
    if last is None:
        pending = bool(records)
    else:
        pending = after_last or (observer.latest_at is not None and observer.latest_at > last)
    part = Part(
        conversation_metrics(records),
        triggering,
        state.malformed,
        observer.orphans,
        first[1] if first else None,
        pending,
        trigger_scores,
        state.long_line_problem(),
    )
    return part, rows


def conversation_metrics(records: list[TurnRecord]) -> dict[str, list[int]]:
    """One conversation's skill metric counts, as :class:`Metrics` sums them."""
    return {slug: [getattr(m, name) for name in _COUNTS] for slug, m in skill_metrics(records).items()}


@dataclass
class Printed:
    """The ``turns`` array as printed (newest first) and, in the same order, each turn's sort
    time, conversation, seq and printed length: enough to cut a conversation's turns out
    and put new ones in without rendering the others again."""

    text: bytes | bytearray
    when: list[str]
    stem: list[str]
    seq: list[int]
    length: list[int]

    @classmethod
    def empty(cls) -> Printed:
        return cls(b"[]", [], [], [], [])

    def splice(self, redo: set[str], rows: list[Row]) -> Printed:
        """This array without the turns of the ``redo`` conversations and with ``rows`` in their
        places by time. Kept turns are copied in runs, as bytes, never rendered again."""
        when, stem, seq, length = self.when, self.stem, self.seq, self.length
        keep = [i for i, s in enumerate(stem) if s not in redo] if redo else list(range(len(stem)))
        rows = sorted(rows, reverse=True)
        cuts = [_position(row, keep, when, stem, seq) for row in rows]  # kept turns before each row
        starts = list(accumulate(map(add, length, repeat(len(_SEP))), initial=len(_OPEN)))
        breaks = {p for p in range(1, len(keep)) if keep[p] != keep[p - 1] + 1}
        bounds = sorted({0, len(keep), *breaks, *cuts})
        view = memoryview(self.text)
        out = Printed(b"", [], [], [], [])
        pieces: list[bytes | memoryview] = [_OPEN]
        r = 0
        for a, b in zip(bounds, bounds[1:]):
            while r < len(rows) and cuts[r] == a:
                r = out._add_row(rows, r, pieces)
            first, last = keep[a], keep[b - 1]
            pieces += (view[starts[first] : starts[last] + length[last]], _SEP)
            out.when += when[first : last + 1]
            out.stem += stem[first : last + 1]
            out.seq += seq[first : last + 1]
            out.length += length[first : last + 1]
        while r < len(rows):
            r = out._add_row(rows, r, pieces)
        pieces[-1] = _CLOSE
        out.text = b"".join(pieces) if out.when else b"[]"  # one copy of what may be megabytes
        return out

    def _add_row(self, rows: list[Row], r: int, pieces: list) -> int:
        when, stem, seq, text = rows[r]
        pieces += (text, _SEP)
        self.when.append(when)
        self.stem.append(stem)
        self.seq.append(seq)
        self.length.append(len(text))
        return r + 1

    def columns(self) -> dict:
        return {"when": self.when, "stem": self.stem, "seq": self.seq, "length": self.length}

    @classmethod
    def from_columns(cls, text: bytes | bytearray, columns: dict) -> Printed:
        """Raises ``ValueError`` (or ``KeyError``/``TypeError``) unless the columns describe ``text`` exactly."""
        when, stem, seq, length = columns["when"], columns["stem"], columns["seq"], columns["length"]
        if not (isinstance(when, list) and isinstance(stem, list) and isinstance(seq, list) and isinstance(length, list)):
            raise ValueError("columns")
        if not len(when) == len(stem) == len(seq) == len(length):
            raise ValueError("columns of different lengths")
        if not (
            all(map(str.__instancecheck__, when))
            and all(map(str.__instancecheck__, stem))
            and all(map(int.__instancecheck__, seq))
            and all(map(int.__instancecheck__, length))
        ):
            raise ValueError("column types")
        if length and min(length) < 0:
            raise ValueError("a negative length")
        expected = len(_OPEN) + sum(length) + len(_SEP) * (len(length) - 1) + len(_CLOSE) if length else 2
        if len(text) != expected or not text.startswith(_OPEN if length else b"[]"):
            raise ValueError("the columns do not describe the text")
        return cls(text, when, stem, seq, length)


def _position(row: Row, keep: list[int], when: list[str], stem: list[str], seq: list[int]) -> int:
    """How many kept turns sort before ``row`` (the array is newest first)."""
    key = row[:3]
    lo, hi = 0, len(keep)
    while lo < hi:
        mid = (lo + hi) // 2
        i = keep[mid]
        if (when[i], stem[i], seq[i]) > key:
            lo = mid + 1
        else:
            hi = mid
    return lo


def blank_skill_rows(skills: list[Skill]) -> list[dict]:
    """The ``skills`` rows before any use is counted (:func:`combine` puts the counts in)."""
    return [SkillRow(skill, SkillMetrics()).to_json() for skill in skills]


def combine(parts: dict[str, Part], metrics: Metrics, rows: list[dict], problems: list[str]) -> tuple[dict, HistoryFacts]:
    """The status fields besides ``turns``, and the queue's facts, from the parts in listing order
    (the order the trigger scores are added in) and their summed ``metrics``; ``rows``:
    :func:`blank_skill_rows`, or the rows of an earlier status of the same skills."""
    fields = {
        "malformed_lines": sum(p.malformed for p in parts.values()),
        "orphan_events": sum(p.orphans for p in parts.values()),
        "triggering_turns": sum(p.triggering for p in parts.values()),
        "skills": [_with_metrics(row, metrics.of(row["slug"])) for row in rows],
        "skill_problems": problems,
        "line_problems": [p.long_lines for p in parts.values() if p.long_lines],
    }
    first: tuple[datetime, str] | None = None
    score = 0.0
    for part in parts.values():
        if (moment := parse_ts(part.first_turn)) is not None and (first is None or moment < first[0]):
            first = (moment, part.first_turn)
        for value in part.trigger_scores:
            score += value
    facts = HistoryFacts(
        first_turn=first[1] if first else None,
        pending=any(p.pending for p in parts.values()),
        trigger_score=round(score, 6),
        triggered=any(p.trigger_scores for p in parts.values()),
    )
    return fields, facts


def _with_metrics(row: dict, m: SkillMetrics) -> dict:
    return {
        **row,
        "impressions": m.impressions,
        "invocations": m.invocations,
        "invocation_rate": m.invocation_rate,
        "edit_rate": m.edit_rate,
        "ineffective_rate": m.ineffective_rate,
    }
