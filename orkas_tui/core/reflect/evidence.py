"""What a triggering turn teaches, read back from its conversation file: the bundle's first part.

:func:`triggering_turns` is the only place the bundle asks the summary layer for
turns and their scores. Each turn's events are re-read from its byte span (the
observer recorded where the turn starts and ends), confined to the workspace, and
turned into :class:`TurnEvidence`: the opening prompt, the corrections in full,
and every real error with the call that caused it (arguments cut) and what the
agent did next. Transient errors are counted, never shown as lessons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import orjson

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.core.observe.corrections import CorrectionMatcher
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import end_failure, tool_failure
from orkas_tui.core.read.tail import parse_line
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.summary.scan import AgentScan
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


def triggering_turns(scan: AgentScan, since: datetime | None) -> list[Triggering]:
    """Ended turns after ``since`` whose score reaches the threshold, most recent first (ties: conversation, order).

    Scores come from the summary (:meth:`AgentScan.turns`), never computed here."""
    found = []
    for turn in scan.turns():
        summary = turn.summary
        if not summary.triggers:
            continue
        ended = parse_ts(summary.ended_at)
        if ended is None or (since is not None and ended <= since):
            continue
        found.append(Triggering(turn, scan.conversations[summary.conversation].path, ended))
    found.sort(key=lambda t: (t.ended_at, *t.turn.key), reverse=True)
    return found


@dataclass(frozen=True)
class Event:
    """One event of a turn and the byte where its line starts (its identity in the bundle)."""

    offset: int
    data: dict


@dataclass
class TurnError:
    """A real error: the failed result (or the turn's end), the call before it, what came next."""

    result: Event
    call: Event | None
    next: Event | None


@dataclass
class TurnEvidence:
    events: list[Event]
    prompt: Event | None = None
    corrections: list[tuple[Event, str]] = field(default_factory=list)  # (message, the phrase matched)
    errors: list[TurnError] = field(default_factory=list)
    transient: int = 0


class Spans:
    """Reads turns' byte spans, each conversation file opened once (confined) however many of its turns are read."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self.handles: dict[Path, BinaryIO | None] = {}

    def __enter__(self) -> Spans:
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self.handles.values():
            if handle is not None:
                handle.close()

    def read(self, path: Path, start: int, end: int) -> list[Event]:
        """The events of bytes ``start``..``end`` of ``path``; malformed or over-long lines skipped, an
        unreadable file read as empty."""
        if path not in self.handles:
            try:
                self.handles[path] = open_regular(path)
            except OSError:
                self.handles[path] = None
        handle = self.handles[path]
        if handle is None:
            return []
        try:
            handle.seek(start)
            data = handle.read(max(0, end - start))
        except OSError:
            return []
        events = []
        offset = start
        for raw in data.split(b"\n"):
            if raw and len(raw) <= self.max_line and (event := parse_line(raw)) is not None:
                events.append(Event(offset, event))
            offset += len(raw) + 1
        return events


def _failed(event: dict, rule: TransientRule) -> bool | None:
    """For a failed tool result or error turn end: whether it is transient (as the score judged it);
    ``None`` for anything else."""
    kind, get = event.get("type"), event.get
    if kind == "tool_result" and get("ok") is not True:
        _, _, verdict = tool_failure(rule, event)
        return verdict.transient
    if kind == "turn_end" and (ended := end_failure(rule, event)):
        return ended[1].transient
    return None


def _next_step(events: list[Event], index: int) -> Event | None:
    for event in events[index + 1 :]:
        if event.data.get("type") in ("tool_call", "assistant", "user", "turn_end"):
            return event
    return None


def turn_evidence(events: list[Event], rule: TransientRule, matcher: CorrectionMatcher) -> TurnEvidence:
    evidence = TurnEvidence(events)
    calls: dict[str, Event] = {}
    for index, event in enumerate(events):
        data = event.data
        kind = data.get("type")
        if kind == "user":
            if evidence.prompt is None:
                evidence.prompt = event
            phrase = matcher.find(data.get("text"))
            if phrase is not None:
                evidence.corrections.append((event, phrase))
        elif kind == "tool_call" and isinstance(data.get("id"), str):
            calls[data["id"]] = event
        transient = _failed(data, rule)
        if transient is True:
            evidence.transient += 1
        elif transient is False:
            call_id = data.get("id")
            call = calls.get(call_id) if kind == "tool_result" and isinstance(call_id, str) else None
            evidence.errors.append(TurnError(event, call, _next_step(events, index)))
    return evidence


def gather(scan: AgentScan, triggering: Triggering, spans: Spans) -> TurnEvidence:
    """The evidence of one triggering turn, read from its span of the conversation file."""
    trace = triggering.turn.trace
    events = spans.read(triggering.path, trace.start, trace.end)
    return turn_evidence(events, scan.rule, scan.matcher)


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
