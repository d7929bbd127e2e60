"""An agent's history-derived status, put together from one part per conversation file.

A part holds what one conversation contributes: each turn scored and rendered as
``status --json`` prints it, and the sums the agent's figures are made of (skill
metric counts, triggering turns, malformed lines, the queue's facts). Parts
combine into exactly what scoring the whole history at once gives (the float sum
of trigger scores is added in the same order), so when one conversation grows,
only its part is made again (:mod:`orkas_tui.core.status_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from operator import add

import orjson

from orkas_tui.config import Settings
from orkas_tui.core.metrics import SkillMetrics, skill_metrics
from orkas_tui.core.queue import HistoryFacts
from orkas_tui.core.report import ScoredTurn, SkillRow
from orkas_tui.core.scan import ConversationState
from orkas_tui.core.signals import score_turn
from orkas_tui.core.skills import Skill
from orkas_tui.core.timefmt import parse_ts

_DUMP = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
INDENT = b"\n      "  # the turns array sits three levels deep in the status document
_ITEM = b"\n        "  # and each turn one level deeper
_OPEN, _SEP, _CLOSE = b"[" + INDENT + b"  ", b"," + INDENT + b"  ", INDENT + b"]"
_COUNTS = ("impressions", "invocations", "edited", "ineffective", "effective_base")


@dataclass
class Part:
    """One conversation's contribution. ``turns``: (sort time, seq) in file order; ``texts``: each
    turn as printed (bytes, or a view into the cached array it was printed in)."""

    turns: list[tuple[str, int]]
    texts: list[bytes | memoryview]
    metrics: dict[str, list[int]]  # slug -> the SkillMetrics counts, in _COUNTS order
    triggering: int
    malformed: int
    orphans: int
    first_turn: str | None  # the stamp of its earliest turn
    pending: bool  # has activity after the last reflection (any turn at all when there was none)
    trigger_scores: list[float]  # scores of its triggering turns ended after the last reflection, in order


def conversation_part(state: ConversationState, settings: Settings, weak: frozenset[str], last: datetime | None) -> Part:
    observer = state.observer
    records = observer.turns
    turns, texts, trigger_scores = [], [], []
    triggering = 0
    first: tuple[datetime, str] | None = None
    after_last = False
    for record in records:
        score = score_turn(record, settings, weak)
        triggering += score.triggers
        texts.append(orjson.dumps(ScoredTurn(record, score).to_json(), option=_DUMP).replace(b"\n", _ITEM))
        turns.append((record.ended_at or record.started_at or "", record.seq))
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
    metrics = {slug: [getattr(m, name) for name in _COUNTS] for slug, m in skill_metrics(records).items()}
    return Part(turns, texts, metrics, triggering, state.malformed, observer.orphans, first[1] if first else None, pending,
                trigger_scores)


def skill_rows(skills: list[Skill]) -> list[dict]:
    """The ``skills`` rows before any use is counted (:func:`combine` puts the counts in)."""
    return [SkillRow(skill, SkillMetrics()).to_json() for skill in skills]


@dataclass
class Combined:
    fields: dict  # the status fields besides ``turns``
    turns: bytes  # the ``turns`` array as printed
    facts: HistoryFacts
    spans: dict[str, list[tuple[str, int, int, int]]]  # per conversation: (sort time, seq, offset, length) in ``turns``


def combine(parts: dict[str, Part], rows: list[dict], problems: list[str]) -> Combined:
    """The agent's status from its parts, in listing order (the order the trigger scores are added in);
    ``rows``: :func:`skill_rows`, or the rows of an earlier status of the same skills."""
    ordered = sorted(
        ((when, stem, seq, text) for stem, part in parts.items() for (when, seq), text in zip(part.turns, part.texts, strict=True)),
        reverse=True,
    )
    pieces: list[bytes | memoryview] = [_OPEN]
    spans: dict[str, list[tuple[str, int, int, int]]] = {stem: [] for stem in parts}
    offset = len(_OPEN)
    for when, stem, seq, text in ordered:
        pieces += (text, _SEP)
        spans[stem].append((when, seq, offset, len(text)))
        offset += len(text) + len(_SEP)
    pieces[-1] = _CLOSE
    turns = b"".join(pieces) if ordered else b"[]"  # one copy of what may be megabytes
    for spans_of in spans.values():
        spans_of.sort(key=lambda span: span[1])

    totals: dict[str, list[int]] = {}
    for part in parts.values():
        for slug, counts in part.metrics.items():
            total = totals.get(slug)
            totals[slug] = counts if total is None else list(map(add, total, counts))
    fields = {
        "malformed_lines": sum(p.malformed for p in parts.values()),
        "orphan_events": sum(p.orphans for p in parts.values()),
        "triggering_turns": sum(p.triggering for p in parts.values()),
        "skills": [_with_metrics(row, totals.get(row["slug"])) for row in rows],
        "skill_problems": problems,
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
    return Combined(fields, turns, facts, spans)


def _with_metrics(row: dict, counts: list[int] | None) -> dict:
    m = SkillMetrics(*counts) if counts else SkillMetrics()
    return {**row, "impressions": m.impressions, "invocations": m.invocations, "invocation_rate": m.invocation_rate,
            "edit_rate": m.edit_rate, "ineffective_rate": m.ineffective_rate}


def part_to_json(part: Part, spans: list[tuple[str, int, int, int]]) -> dict:
    return {"spans": spans, "metrics": part.metrics, "triggering": part.triggering, "malformed": part.malformed,
            "orphans": part.orphans, "first_turn": part.first_turn, "pending": part.pending,
            "trigger_scores": part.trigger_scores}


def part_from_json(entry: dict, turns: bytes) -> Part:
    """A part read back from the cache's index, its printed turns sliced from the cached ``turns``.

    Raises ``KeyError``/``TypeError``/``ValueError`` on anything malformed."""
    view = memoryview(turns)
    spans = sorted(entry["spans"], key=lambda span: span[1])
    texts = []
    for _, _, offset, length in spans:
        if offset.__class__ is not int or length.__class__ is not int or offset < 0 or offset + length > len(turns):
            raise ValueError("a span outside the cached turns")
        texts.append(view[offset:offset + length])
    metrics = {str(slug): list(map(int, counts)) for slug, counts in entry["metrics"].items()}
    if any(len(counts) != len(_COUNTS) for counts in metrics.values()):
        raise ValueError("metric counts")
    first_turn = entry["first_turn"]
    if first_turn is not None and first_turn.__class__ is not str:
        raise ValueError("first turn")
    return Part([(str(when), int(seq)) for when, seq, _, _ in spans], texts, metrics, int(entry["triggering"]),
                int(entry["malformed"]), int(entry["orphans"]), first_turn, bool(entry["pending"]),
                [float(s) for s in entry["trigger_scores"]])
