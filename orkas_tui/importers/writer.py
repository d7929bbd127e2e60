"""Spec events out of a foreign transcript: facts, never a verdict.

One :class:`ConversationWriter` per imported session. Its whole state is a plain
dict (saved between imports) so an import can stop after any line and the next
one continues exactly there. Events are buffered and appended in one write per
import, after which the caller saves the state. A failure is written with what the
transcript says of it (its ``failure``: the agent's ``vocabulary``, and whether the user
rejected or interrupted the call, another call's error cancelled it, the agent retried,
its error kind and HTTP status); whether it is transient is the core rule's to say, when
it is read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import msgspec
import orjson

from orkas_tui.core.disk.write import append_bytes
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import end_failure, tool_failure
from orkas_tui.core.read.events import Event
from orkas_tui.core.read.timefmt import format_ts, parse_ts

OUTPUT_LIMIT = 2_000
MILLIS_Z = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", re.ASCII)
_fromisoformat = datetime.fromisoformat


def spec_time(raw: object) -> str | None:
    """``raw`` as the spec writes a time (``format_ts(parse_ts(raw))``, text for text), ``None`` if it is none.

    Claude Code and Codex write ``2026-02-11T10:12:13.456Z``, the spec's own form but for a
    ``.000`` the spec leaves out: such a text is only checked to be a real time and kept (or
    cut), since parsing and formatting it again was a third of an import's time.
    """
    if isinstance(raw, str) and MILLIS_Z.fullmatch(raw):
        try:
            _fromisoformat(raw)
        except ValueError:  # month 13, February 30: the general path says "no time"
            pass
        else:
            return raw[:19] + "Z" if raw[20:23] == "000" else raw
    moment = parse_ts(raw)
    return None if moment is None else format_ts(moment)


@dataclass
class ImportStats:
    """What an import read and wrote; ``unknown`` and ``malformed`` are skipped, never fatal.

    ``skipped`` counts, by kind, the records read but not written because they carry
    no agent work (bookkeeping, injected context, streamed copies); ``repeated``, the
    records skipped because the agent already imported them (a resumed session's
    copies); ``running`` lists the sources whose last turn is still open (not yet settled);
    ``deferred`` those left for the next import because another import held their lock
    past the deadline.
    """

    files: int = 0
    lines: int = 0
    turns: int = 0
    tool_calls: int = 0
    real_errors: int = 0
    transient_errors: int = 0
    interrupts: int = 0
    skill_reads: int = 0
    corrections: int = 0
    outputs_cut: int = 0
    repeated: int = 0
    malformed: int = 0
    skipped: Counter = field(default_factory=Counter)
    unknown: Counter = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)  # the first record of each unknown kind
    last_read: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    running: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        doc = dict(self.__dict__)
        doc["unknown"] = dict(sorted(self.unknown.items()))
        doc["skipped"] = dict(sorted(self.skipped.items()))
        return doc

    def read_at(self, slug: str, ts: str) -> None:
        """Keep the latest read of ``slug`` (compared as times: the texts differ in their fractions of a second)."""
        known = self.last_read.get(slug)
        moment, latest = parse_ts(ts), parse_ts(known)
        if latest is None or (moment is not None and moment > latest):  # a time that does not parse never wins
            self.last_read[slug] = ts

    def add(self, other: ImportStats) -> None:
        """Fold ``other`` into these totals (``--watch`` sums its imports)."""
        for key, value in other.__dict__.items():
            if key == "last_read":
                for slug, ts in value.items():
                    self.read_at(slug, ts)
            elif key == "examples":
                for kind, text in value.items():
                    self.examples.setdefault(kind, text)
            elif key != "running":
                setattr(self, key, getattr(self, key) + value)
        self.running = list(other.running)


def new_state() -> dict:
    return {"turns": 0, "open": None, "calls": {}, "error": None, "aborted": False, "last_ts": None, "anon": 0}


class ConversationWriter:
    """``index`` gives the skills offered to a session started in a folder (``None``: unknown folder) at a turn's start;
    ``vocabulary`` names the agent's words for the transient rule (its format's name); ``rule`` only counts the errors."""

    def __init__(
        self,
        path: Path,
        state: dict,
        rule: TransientRule,
        vocabulary: str,
        stats: ImportStats,
        index: Callable[[str | None, str | None], list[str]] | None = None,
    ) -> None:
        self.path = path
        self.state = state
        self.rule = rule
        self.vocabulary = vocabulary
        self.stats = stats
        self.index = index
        self.lines: list[bytes] = []
        state.setdefault("cwd", None)

    @property
    def open(self) -> bool:
        return self.state["open"] is not None

    def stamp(self, raw: object) -> str | None:
        """The event time: the source's own timestamp, else the last one seen."""
        text = spec_time(raw)
        if text is not None:
            self.state["last_ts"] = text
        return self.state["last_ts"]

    def emit(self, ts: str | None, kind: str, **fields: object) -> None:
        event = {"ts": ts or self.state["last_ts"] or "1970-01-01T00:00:00Z", "type": kind}
        event.update(fields)
        self.lines.append(orjson.dumps(event) + b"\n")

    def skip(self, kind: str) -> None:
        """A record that carries no agent work, counted by kind."""
        self.stats.skipped[kind] += 1

    def start_turn(self, ts: str | None, text: str | None, **extra: object) -> None:
        """Close any open turn and open the next; ``text=None`` means no user wrote it. (Whether the
        prompt corrects the turn before is the observer's reading, in context: none is written here.)"""
        if self.open:
            self.end_turn(ts)
        self.state["turns"] += 1
        self.state.update(open=f"t{self.state['turns']}", calls={}, error=None, aborted=False)
        indexed = self.index(self.state["cwd"], ts or self.state["last_ts"]) if self.index is not None else []
        self.emit(ts, "turn_start", turn=self.state["open"], skills_indexed=indexed, **extra)
        if text is not None:
            self.emit(ts, "user", text=text)
        self.stats.turns += 1

    def ensure_turn(self, ts: str | None) -> None:
        """Agent work outside any turn opens one (``trigger: resumed``), so none of it is lost."""
        if not self.open:
            self.start_turn(ts, None, trigger="resumed")

    def assistant(self, ts: str | None, text: str) -> None:
        if text.strip():
            self.ensure_turn(ts)
            self.emit(ts, "assistant", text=text)

    def user_feedback(self, ts: str | None, text: str, call_id: str) -> None:
        """A rejection's feedback is what the user wants instead: a correction."""
        if not self.open:
            return
        self.emit(ts, "user", text=f"instead: {text}", rejected_call=call_id)
        self.stats.corrections += 1

    def tool_call(self, ts: str | None, call_id: str, name: str, args: dict, skills: list[str], command: object = None) -> None:
        """``skills`` are written as read when the call succeeds (a rejected read read nothing)."""
        self.ensure_turn(ts)
        self.state["calls"][call_id] = [name, command, skills]
        self.emit(ts, "tool_call", id=call_id, name=name, args=args)
        self.stats.tool_calls += 1

    def anon_id(self) -> str:
        """An id for a call the transcript gave none, stable across incremental imports."""
        self.state["anon"] += 1
        return f"anon-{self.state['anon']}"

    def call_info(self, call_id: str) -> tuple[str | None, object]:
        name, command, _skills = self.state["calls"].get(call_id, (None, None, []))
        return name, command

    def tool_ok(self, ts: str | None, call_id: str, output: str, **extra: object) -> None:
        self.ensure_turn(ts)
        self.emit(ts, "tool_result", id=call_id, ok=True, output=self._cut(output), **extra)
        self.read_skills(ts, call_id)

    def read_skills(self, ts: str | None, call_id: str) -> None:
        """The skills the call read: written once its result shows the read happened."""
        for slug in self.state["calls"].get(call_id, (None, None, []))[2]:
            self.emit(ts, "skill_read", skill=slug)
            self.stats.skill_reads += 1
            if ts is not None:
                self.stats.read_at(slug, ts)

    def _cut(self, text: str) -> str:
        if len(text) > OUTPUT_LIMIT:
            self.stats.outputs_cut += 1
            return text[:OUTPUT_LIMIT]
        return text

    def tool_interrupted(self, ts: str | None, call_id: str) -> None:
        """A call the person stopped: recorded as a failed result that teaches nothing."""
        self.tool_error(ts, call_id, "interrupted by the user", interrupted=True)

    def tool_error(self, ts: str | None, call_id: str, message: str, exit_code: int | None = None, **facts: bool | str) -> None:
        """A failed result and what the transcript says of it (``rejected``, ``interrupted``, ``collateral``, an error ``kind``)."""
        self.ensure_turn(ts)
        fields: dict[str, object] = {"id": call_id, "ok": False, "error": self._cut(message)}
        if exit_code is not None:
            fields["exit_code"] = exit_code
        fields["failure"] = self._failure(facts)
        self.emit(ts, "tool_result", **fields)
        self._count(tool_failure(self.rule, _event("tool_result", fields))[2].transient)

    def _failure(self, facts: Mapping[str, object]) -> dict[str, object]:
        """The ``failure`` object: the vocabulary, then the facts known (keys sorted: a saved state sorts them)."""
        return {"vocabulary": self.vocabulary, **{key: facts[key] for key in sorted(facts) if facts[key] not in (None, False)}}

    def _count(self, transient: bool) -> None:
        if transient:
            self.stats.transient_errors += 1
        else:
            self.stats.real_errors += 1

    def fail(self, message: str, status: int | None = None, kind: str | None = None, retried: bool = False) -> None:
        """An agent-level error; it ends the turn in error unless the agent recovers. Outside a turn it is no agent work."""
        if not self.open:
            self.skip("API error outside a turn")
        else:
            self.state["error"] = {"error": message[:OUTPUT_LIMIT], "http_status": status, "kind": kind, "retried": retried}

    def recover(self) -> None:
        self.state["error"] = None

    def abort(self, ts: str | None) -> None:
        """The user stopped the turn: it ends now, ``aborted``; with no turn open it stopped nothing."""
        if not self.open:
            self.skip("interrupt with no turn running")
        else:
            self.state["aborted"] = True
            self.stats.interrupts += 1
            self.end_turn(ts)

    def end_turn(self, ts: str | None) -> None:
        if not self.open:
            return
        fields: dict[str, object] = {"turn": self.state["open"], "status": "ok"}
        error = self.state["error"]
        if self.state["aborted"]:
            fields["status"] = "aborted"
        elif error:
            if "transient" in error:  # saved by an older import, with its verdict: kept as written
                fields.update(status="error", **error)
            else:
                facts = {key: value for key, value in error.items() if key != "error"}
                fields.update(status="error", error=error["error"], failure=self._failure(facts))
            failure = end_failure(self.rule, _event("turn_end", fields))
            self._count(failure is not None and failure[1].transient)
        self.emit(ts, "turn_end", **fields)
        self.state.update(open=None, calls={}, error=None, aborted=False)

    def flush(self) -> int:
        """Append the buffered events in one write, not yet synced (the caller syncs, then saves the state);
        return the conversation's new size."""
        if self.lines:
            append_bytes(self.path, b"".join(self.lines), sync=False)
            self.lines.clear()
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0


def _event(kind: str, fields: dict[str, object]) -> Event:
    """The event just written, typed as the observer will read it (the import counts judge it the same way)."""
    return msgspec.convert({"type": kind, **fields}, Event)
