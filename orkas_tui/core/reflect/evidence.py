"""What a triggering turn teaches, read back from its conversation file: the bundle's first part.

:func:`triggering_turns` is the only place the bundle asks the summary layer for
turns and their scores. Each turn's events are re-read from its byte span (the
observer recorded where the turn starts and ends), confined to the workspace, and
turned into :class:`TurnEvidence`: the opening prompt, the corrections in full,
and every real error with the call that caused it (arguments cut) and what the
agent did next. Every verdict (transient or real, which messages correct) comes
from the turn's summary and trace: nothing is judged again here. Transient errors
are counted, never shown as lessons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.core.observe.turns import Correction
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.transcript import Spans, Step
from orkas_tui.core.summary.turn import Turn, TurnSummary

ARGS_CHARS = 160  # a failed call's arguments, cut
NEXT_CHARS = 160  # what the agent did next, cut
ERROR_CHARS = 400  # an error message, cut head and tail
OUTPUT_CHARS = 240  # a failed call's output (when it says more than the error), head and tail


@dataclass(frozen=True)
class Triggering:
    """A triggering turn (its summary holds its score), and the file its events are in."""

    turn: Turn
    path: Path
    ended_at: datetime

    @property
    def summary(self) -> TurnSummary:
        return self.turn.summary


def triggering_turns(scan: AgentScan, marks: dict[str, int]) -> list[Triggering]:
    """Unseen (past their conversation's read mark) ended turns whose score reaches the threshold, most
    recent first (ties: conversation, order).

    Scores come from the summary (:meth:`AgentScan.turns`), never computed here."""
    found = []
    for turn in scan.turns():
        summary = turn.summary
        if not summary.triggers:
            continue
        ended = parse_ts(summary.ended_at)
        if ended is None or turn.trace.end <= marks.get(summary.conversation, 0):
            continue
        found.append(Triggering(turn, scan.conversations[summary.conversation].path, ended))
    found.sort(key=lambda t: (t.ended_at, *t.turn.key), reverse=True)
    return found


@dataclass
class TurnError:
    """A real error: the failed result (or the turn's end), the call before it, what came next."""

    result: Step
    call: Step | None
    next: Step | None


@dataclass
class TurnEvidence:
    events: list[Step]
    prompt: Step | None = None
    corrections: list[tuple[Step, Correction]] = field(default_factory=list)  # (message, what the summary found)
    errors: list[TurnError] = field(default_factory=list)
    transient: int = 0


def _next_step(steps: list[Step], index: int) -> Step | None:
    for step in steps[index + 1 :]:
        if step.event.type in ("tool_call", "assistant", "user", "turn_end"):
            return step
    return None


def turn_evidence(steps: list[Step], turn: Turn) -> TurnEvidence:
    """The evidence of one turn from its steps (read with their verdicts) and its trace (which messages correct)."""
    evidence = TurnEvidence(steps)
    correcting = {c.offset: c for c in turn.trace.corrections}
    calls: dict[str, Step] = {}
    for index, step in enumerate(steps):
        event = step.event
        kind = event.type
        if kind == "user":
            if evidence.prompt is None:
                evidence.prompt = step
            if (correction := correcting.get(step.offset)) is not None:
                evidence.corrections.append((step, correction))
        elif kind == "tool_call" and isinstance(event.id, str):
            calls[event.id] = step
        verdict = step.verdict
        if verdict is None:
            continue
        if verdict.transient:
            evidence.transient += 1
        else:
            call = calls.get(event.id) if kind == "tool_result" and isinstance(event.id, str) else None
            evidence.errors.append(TurnError(step, call, _next_step(steps, index)))
    return evidence


def gather(triggering: Triggering, spans: Spans) -> TurnEvidence:
    """The evidence of one triggering turn, read from its span of the conversation file."""
    return turn_evidence(spans.turn(triggering.path, triggering.turn), triggering.turn)


def cut_chars(text: str, limit: int) -> str:
    """``text`` within about ``limit`` characters: its head and tail, the cut marked."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]} … [cut {len(text) - limit:,} chars] … {text[-tail:]}"


def one_line(value: object) -> str:
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    return " ".join(text.split())
