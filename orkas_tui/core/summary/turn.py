"""A turn's summary: the one typed form of a turn after observation and scoring.

:class:`TurnSummary` is what the summary cache keeps per turn, what ``status --json``
prints as a turn (its fields are the printed keys, in order) and what every view reads.
:class:`TurnTrace` holds what a turn's summary does not print: its tool counts, whether
its last error ended it, its corrections and where it lies in its file (the app's detail
and the reflection bundle read these). A :class:`Turn` is the two with the turn's place
in its conversation: what the app, the bundle and the effects of changes read. A
:class:`~orkas_tui.core.observe.turns.TurnRecord` stays inside the observer, which
rebuilds one from these two to read on (:func:`record_of`).
"""

from __future__ import annotations

import msgspec

from orkas_tui.core.observe.signals import Score
from orkas_tui.core.observe.skill_metrics import Counted
from orkas_tui.core.observe.turns import Correction, ObservedError, TurnRecord


class TurnSummary(msgspec.Struct, gc=False):
    """One turn as ``status --json`` prints it. A field added here is printed, cached and
    shown; its value is set in :func:`summarize`."""

    conversation: str
    turn: str
    started_at: str | None
    ended_at: str | None
    status: str
    tool_calls: int
    real_errors: int
    transient_errors: int
    signals: dict[str, float | int]
    score: float
    triggers: bool
    evidence: dict[str, str]
    errors: list[ObservedError]
    skills_indexed: list[str]
    skills_read: list[str]
    edited: bool

    @property
    def sort_key(self) -> str:
        """What newest-first sorts by: its end, else its start time."""
        return self.ended_at or self.started_at or ""

    @property
    def ended(self) -> bool:
        return self.status != "running"


class TurnTrace(msgspec.Struct, array_like=True, gc=False):
    """What a turn's summary does not print (a short array per turn in the cache)."""

    tools: dict[str, int]
    end_error: bool  # the summary's last error is the one the turn ended with
    corrections: list[Correction]  # each user message that reads as a correction, where it is
    start: int  # the turn's first and last byte in its conversation file
    end: int

    @property
    def correction(self) -> str | None:
        """The phrase the first correcting message matched (``None``: no correction)."""
        return self.corrections[0].phrase if self.corrections else None


def summarize(record: TurnRecord, score: Score) -> TurnSummary:
    """The summary of an observed, scored turn (its lists copied: the observer appends to the record's own)."""
    errors = record.errors
    transient = sum(e.transient for e in errors) if errors else 0
    return TurnSummary(
        record.conversation,
        record.turn,
        record.started_at,
        record.ended_at,
        record.status,
        record.tool_calls,
        len(errors) - transient,
        transient,
        score.signals,
        score.score,
        score.triggers,
        score.evidence,
        list(errors),
        record.skills_indexed,
        list(record.skills_read),
        record.edited,
    )


def trace(record: TurnRecord) -> TurnTrace:
    return TurnTrace(dict(record.tools), record.end_error is not None, list(record.corrections), record.start, record.end)


def end_transient(summary: TurnSummary, trace: TurnTrace) -> bool | None:
    """``None`` if the turn did not end in an error, else whether the error it ended with was transient."""
    return summary.errors[-1].transient if summary.status == "error" and trace.end_error else None


def counted(summary: TurnSummary, trace: TurnTrace) -> Counted:
    """What the turn adds to the skill counts (:func:`~orkas_tui.core.observe.skill_metrics.count_uses`)."""
    return summary.status, summary.skills_indexed, summary.skills_read, summary.edited, end_transient(summary, trace)


class Turn(msgspec.Struct, frozen=True, gc=False):
    """A turn as views read it: its place in its conversation (``seq``), its summary and its trace.
    (A Struct, not a NamedTuple: the Turns tab makes one per turn on every load, and a Struct is
    made in C, 0.33 ms for 4,000 against 1.6 ms.)"""

    seq: int
    summary: TurnSummary
    trace: TurnTrace

    @property
    def key(self) -> tuple[str, int]:
        """(conversation, seq): the turn's identity across refreshes."""
        return self.summary.conversation, self.seq

    @property
    def end_transient(self) -> bool | None:
        return end_transient(self.summary, self.trace)


def record_of(seq: int, summary: TurnSummary, trace: TurnTrace) -> TurnRecord:
    """The observer's record of a turn restored from the cache, so it can read on or be shown."""
    errors = list(summary.errors)
    return TurnRecord(
        summary.conversation,
        summary.turn,
        seq,
        summary.started_at,
        summary.ended_at,
        summary.status,
        summary.tool_calls,
        dict(trace.tools),
        errors,
        errors[-1] if trace.end_error else None,
        list(trace.corrections),
        summary.skills_indexed,
        list(summary.skills_read),
        summary.edited,
        trace.start,
        trace.end,
    )
