"""Observation: one turn's facts, counted at its ``turn_end``, with no model call.

A :class:`ConversationObserver` is fed the events of one conversation file in
order and keeps a :class:`TurnRecord` per turn. Records hold facts only (counts,
classified errors, the matched correction phrase, skills); the score is derived
from them in :mod:`orkas_tui.core.observe.signals`, so a change of weights or of the
profile never needs the files read again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import msgspec

from orkas_tui.core.observe.corrections import CorrectionMatcher, one_line
from orkas_tui.core.observe.in_context import TYPED_HEAD, Context, judge, words_of
from orkas_tui.core.observe.origins import split_pasted
from orkas_tui.core.observe.transient import INTERRUPTED, REJECTED, ErrorVerdict, TransientRule, error_facts
from orkas_tui.core.read.events import Event, decode_stream
from orkas_tui.core.read.timefmt import _fromisoformat, parse_ts

ENDED = ("ok", "error", "aborted")


class ObservedError(msgspec.Struct, gc=False):
    """A failed tool result or a turn that ended in error, with the verdict's reason (as a turn's
    summary keeps and prints it)."""

    source: str  # tool name, "?" for an unknown tool id, or "turn" for a turn_end error
    message: str
    status: int | None
    transient: bool
    reason: str


class Correction(msgspec.Struct, array_like=True, gc=False):
    """A user message of the turn that reads as a correction: where its line starts in the file
    (the bundle finds the message there), the words that decided it, the message, shortened,
    and the reason in a person's words (:func:`~orkas_tui.core.observe.in_context.judge`)."""

    offset: int
    phrase: str
    text: str
    reason: str = ""

    @property
    def why(self) -> str:
        """What a person reads beside the message: the reason and the words that decided it."""
        return f"{self.reason}: {self.phrase!r}" if self.reason else f"matched {self.phrase!r}"


@dataclass(slots=True)
class TurnRecord:
    conversation: str
    turn: str
    seq: int
    started_at: str | None
    ended_at: str | None = None
    status: str = "running"
    tool_calls: int = 0
    tools: dict[str, int] = field(default_factory=dict)
    errors: list[ObservedError] = field(default_factory=list)
    end_error: ObservedError | None = None
    corrections: list[Correction] = field(default_factory=list)
    skills_indexed: list[str] = field(default_factory=list)
    skills_read: list[str] = field(default_factory=list)
    edited: bool = False
    start: int = 0
    end: int = 0
    scored: tuple | None = field(default=None, compare=False, repr=False)  # score_turn's memo

    @property
    def ended(self) -> bool:
        return self.status != "running"

    @property
    def correction(self) -> str | None:
        """The phrase the first correcting message matched (``None``: no correction)."""
        return self.corrections[0].phrase if self.corrections else None

    @property
    def real_errors(self) -> list[ObservedError]:
        return [e for e in self.errors if not e.transient] if self.errors else []

    @property
    def transient_errors(self) -> list[ObservedError]:
        return [e for e in self.errors if e.transient] if self.errors else []

    @property
    def ended_with_real_error(self) -> bool:
        return self.status == "error" and self.end_error is not None and not self.end_error.transient

    @property
    def ended_with_transient_error(self) -> bool:
        return self.status == "error" and self.end_error is not None and self.end_error.transient

    @property
    def acted(self) -> bool:
        """A tool call of the turn ran: it made more calls than the user refused or stopped. What the
        prompt after an interruption is read against (an interruption before it ran anything
        stopped no work of the agent's)."""
        stopped = sum(1 for error in self.errors if error.source != "turn" and error.reason in (REJECTED, INTERRUPTED))
        return self.tool_calls > stopped


def _short(text: object, limit: int = 240) -> str:
    return one_line(text if isinstance(text, str) else ("" if text is None else str(text)), limit)


def _status(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def failed(event: Event) -> bool:
    """A failed tool result, or a turn that did not end ok or aborted: what the observer judges (its
    hot loop checks ``ok`` inline), and what the summary's verdicts are handed back to."""
    return (event.type == "tool_result" and event.ok is not True) or (
        event.type == "turn_end" and event.status not in ("ok", "aborted")
    )


def tool_failure(rule: TransientRule, event: Event) -> tuple[str, int | None, ErrorVerdict]:
    """A failed tool result as it is scored: its message (the error, else the head of its output),
    its HTTP status and the transient rule's verdict. Judged once, here, when the observer reads
    it: the summary keeps the verdict, and every view reads it from there."""
    error = event.error
    message = error if isinstance(error, str) else (_short(event.output) or "tool failed")
    facts = error_facts(event.failure)
    code = _status(event.status)
    if code is None and facts is not None:
        code = _status(facts.http_status)
    return message, code, rule.classify(message, code, _flag(event.transient), facts, event.reason)


def end_failure(rule: TransientRule, event: Event) -> tuple[str, ErrorVerdict] | None:
    """A turn end as it is scored: ``None`` when it ended ok or aborted, else (an unknown status is
    an error) its message and the transient rule's verdict. Only an imported end has an HTTP status
    (its ``failure.http_status``: its ``status`` is the turn's)."""
    if not failed(event):
        return None
    error = event.error
    message = error if isinstance(error, str) else "turn ended in error"
    facts = error_facts(event.failure)
    code = _status(facts.http_status) if facts is not None else None
    return message, rule.classify(message, code, _flag(event.transient), facts, event.reason)


class ConversationObserver:
    """Turns the event stream of one conversation into turn records."""

    def __init__(self, conversation: str, rule: TransientRule, matcher: CorrectionMatcher) -> None:
        self.conversation = conversation
        self.rule = rule
        self.matcher = matcher
        self.turns: list[TurnRecord] = []
        self.open: TurnRecord | None = None
        self.tool_names: dict[str, str] = {}
        self.edited_ids: set[str] = set()
        self.marked: list[TurnRecord] = []  # earlier turns an event just marked edited: changed too
        self.orphans = 0
        self.context = Context()  # what the next prompt is read against
        self.latest_ts: str | None = None
        self.latest_at: datetime | None = None
        self._index_seen: list | None = None
        self._index: list[str] = []

    def feed_block(self, data: bytes, base: int) -> tuple[dict[int, TurnRecord], int]:
        """Feed every line of ``data`` (whole lines starting at byte ``base``).

        Returns the changed records (by id) and the number of malformed lines. The
        same as decoding each line and calling :meth:`feed`: the lines are decoded
        into Structs by a C loop, a slice at a time, and this loop runs once per event of the whole
        history, so the two commonest events (a tool call and its result inside a
        turn) are written out here rather than called.
        """
        touched: dict[int, TurnRecord] = {}
        last_touched = None
        record: TurnRecord | None
        malformed = 0
        apply = self._apply
        start = base
        stamps: list = []
        stamp = stamps.append
        lines = data.split(b"\n")
        lines.pop()
        for raw, event in zip(lines, decode_stream(lines), strict=True):
            end = start + len(raw) + 1
            if event is None:
                malformed += 1
                start = end
                continue
            kind = event.type
            ts = event.ts
            stamp(ts)
            turn = self.open
            if turn is not None and kind == "tool_result":
                turn.end = end
                if event.ok is not True:
                    self._tool_error(turn, event)
                record = turn
            elif turn is not None and kind == "tool_call":
                turn.end = end
                name = event.name
                if name.__class__ is not str or not name:
                    name = "?"
                turn.tool_calls += 1
                tools = turn.tools
                tools[name] = tools.get(name, 0) + 1
                call_id = event.id
                if call_id.__class__ is str:
                    self.tool_names[call_id] = name
                if name == "read_skill":
                    self._read_skill(turn, event)
                record = turn
            else:
                record = apply(event, kind, ts, start, end)
                if self.marked:
                    for earlier in self.marked:
                        touched[id(earlier)] = earlier
                    self.marked.clear()
            if record is not None and record is not last_touched:
                touched[id(record)] = last_touched = record
            start = end
        self._note_newest(stamps)
        return touched, malformed

    def _note_newest(self, stamps: list) -> None:
        """Keep the newest of a block's event times, as :meth:`feed` does one event at a time
        (the first of equal times). Parsed by one C loop (``map``): a third of the per-event
        cost when it was done in the loop above."""
        if not stamps:
            return
        try:
            moments = list(map(_fromisoformat, stamps))
            newest = stamps[moments.index(max(moments))]
        except (TypeError, ValueError, OverflowError):  # a missing or odd time, naive beside aware
            newest = None
        if newest is not None and parse_ts(newest) is not None:  # (None: past the last time UTC can hold)
            self._note_time(newest)
        else:
            for stamp in stamps:  # one by one
                self._note_time(stamp)

    def _note_time(self, stamp: object) -> None:
        moment = parse_ts(stamp)
        if moment is not None and isinstance(stamp, str) and (self.latest_at is None or moment > self.latest_at):
            self.latest_at, self.latest_ts = moment, stamp

    def feed(self, event: Event, start: int, end: int) -> TurnRecord | None:
        """Apply one event; return the turn record it changed, if any (an earlier turn it marked
        edited waits in :attr:`marked`, which :meth:`feed_block` hands back with the rest)."""
        ts = event.ts
        self._note_time(ts)
        return self._apply(event, event.type, ts, start, end)

    def _apply(self, event: Event, kind: str, ts: object, start: int, end: int) -> TurnRecord | None:
        turn = self.open
        if turn is not None and kind in _IN_TURN:
            turn.end = end
            if kind == "tool_result":
                if event.ok is not True:
                    self._tool_error(turn, event)
                return turn
            if kind == "tool_call":
                self._tool_call(turn, event)
                return turn
        if kind == "turn_start":
            return self._start(event, ts, start, end)
        if kind == "output_edited":
            return self._mark_edited(event.turn)
        if kind == "assistant":
            if isinstance(text := event.text, str):
                self.context.said(text)
            if turn is not None:
                turn.end = end
            return turn
        if turn is None:
            if kind == "turn_end":
                self.orphans += 1
            return None
        turn.end = end
        if kind == "user":
            self._user(turn, event, start)
        elif kind == "skill_read":
            _add_read(turn, event.skill)
        elif kind == "turn_end":
            self._end(turn, event, ts)
        return turn

    def _user(self, turn: TurnRecord, event: Event, start: int) -> None:
        """Judge a typed prompt in its context; a refusal's feedback is read as what it is."""
        text = event.text
        if not isinstance(text, str) or not text:
            return
        context = self.context
        feedback = event.rejected_call is not None
        if feedback:
            context.before = "feedback"
        typed = split_pasted(text)[0]
        words = words_of(typed)  # (judged on the first 600 typed characters, compared whole: the same below 400)
        verdict = judge(text, context, self.matcher, typed, words if len(typed) <= TYPED_HEAD else None)
        if verdict is not None:
            if not feedback and not turn.corrections and turn.seq and (before := self.turns[turn.seq - 1]) is not None:
                self._edited(before)  # the turn's first correcting prompt (a refusal's feedback corrects its own turn)
            turn.corrections.append(Correction(start, verdict.phrase, _short(text), verdict.reason))
        context.prompted(typed, words)
        if feedback:
            context.before = "ok"

    def _start(self, event: Event, ts: object, start: int, end: int) -> TurnRecord:
        turn_id = event.turn
        record = TurnRecord(
            conversation=self.conversation,
            turn=turn_id if isinstance(turn_id, str) else f"#{len(self.turns) + 1}",
            seq=len(self.turns),
            started_at=ts if isinstance(ts, str) else None,
            skills_indexed=self._shared_index(event.skills_indexed),
            start=start,
            end=end,
        )
        self.turns.append(record)
        self.open = record
        self.tool_names = {}
        return record

    def _shared_index(self, value: object) -> list[str]:
        """The turn's index; consecutive turns with the same index share one list (memory)."""
        if value.__class__ is list and value == self._index_seen:
            return self._index
        self._index_seen = value if value.__class__ is list else None
        self._index = _slugs(value)
        return self._index

    def _tool_call(self, turn: TurnRecord, event: Event) -> None:
        name = event.name
        name = name if isinstance(name, str) and name else "?"
        turn.tool_calls += 1
        turn.tools[name] = turn.tools.get(name, 0) + 1
        call_id = event.id
        if isinstance(call_id, str):
            self.tool_names[call_id] = name
        if name == "read_skill":
            self._read_skill(turn, event)

    @staticmethod
    def _read_skill(turn: TurnRecord, event: Event) -> None:
        args = event.args
        if isinstance(args, dict):
            _add_read(turn, args.get("name"))

    def _tool_error(self, turn: TurnRecord, event: Event) -> None:
        message, status, verdict = tool_failure(self.rule, event)
        call_id = event.id
        source = self.tool_names.get(call_id, "?") if isinstance(call_id, str) else "?"
        turn.errors.append(ObservedError(source, _short(message), status, verdict.transient, verdict.reason))

    def _end(self, turn: TurnRecord, event: Event, ts: object) -> None:
        status = event.status
        turn.status = status if status in ENDED else "error"
        turn.ended_at = ts if isinstance(ts, str) else turn.started_at
        if (failure := end_failure(self.rule, event)) is not None:
            message, verdict = failure
            turn.end_error = ObservedError("turn", _short(message), None, verdict.transient, verdict.reason)
            turn.errors.append(turn.end_error)
        if turn.turn in self.edited_ids:
            turn.edited = True
        self.context.ended(turn.status, turn.acted)
        self.open = None

    def _mark_edited(self, turn_id: object) -> TurnRecord | None:
        if not isinstance(turn_id, str):
            self.orphans += 1
            return None
        self.edited_ids.add(turn_id)
        for record in reversed(self.turns):
            if record.turn == turn_id and record.ended:
                record.edited = True
                return record
        return None

    def _edited(self, record: TurnRecord) -> None:
        """A turn's first correcting prompt marks the turn before it edited: the person is fixing
        what that turn produced (the one judgement of a correction; docs/rules.md)."""
        self.edited_ids.add(record.turn)
        if record.ended and not record.edited:
            record.edited = True
            self.marked.append(record)


_IN_TURN = frozenset(("tool_call", "tool_result"))


def _slugs(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    seen: dict[str, None] = {}
    for item in value:
        if isinstance(item, str) and item:
            seen[item] = None
    return list(seen)


def _add_read(turn: TurnRecord, slug: object) -> None:
    if isinstance(slug, str) and slug and slug not in turn.skills_read:
        turn.skills_read.append(slug)
