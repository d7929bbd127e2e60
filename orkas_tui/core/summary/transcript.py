"""A conversation's events read back by byte span, each failure with the verdict its turn's summary holds.

The observer judged every failure once, when it read the line (transient or real, and why),
and recorded where each turn starts and ends in its file. The bundle and the app's
transcript read only the spans they show and take each verdict from the summary, so
what they call transient is what the score counted, and nothing is judged twice.
:func:`describe` is the one line a person (the app) and the model (the bundle) read for
an event.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.core.observe.origins import Origin, tool_kind
from orkas_tui.core.observe.turns import ObservedError, failed
from orkas_tui.core.read.events import Event
from orkas_tui.core.read.tail import read_span
from orkas_tui.core.summary.turn import Turn


@dataclass(frozen=True, slots=True)
class Step:
    """One event of a transcript: where its line starts (its identity), the event, and for a failed
    tool result or a turn ended in error the verdict its turn's summary holds (``None``: not a
    failure, or outside every turn and so never scored)."""

    offset: int
    event: Event
    verdict: ObservedError | None = None
    tool: str | None = None  # a tool result's tool: the name its call gave (``None``: no call seen)

    @property
    def origin(self) -> Origin:
        """Who wrote the line's text: the user, the agent, a tool, or the runtime (its own records)."""
        kind = self.event.type
        if kind == "user":
            return Origin.USER
        if kind in ("assistant", "tool_call"):
            return Origin.AGENT
        return Origin.TOOL if kind == "tool_result" else Origin.SYSTEM

    @property
    def tool_kind(self) -> str | None:
        """What a tool result is the output of (``command``, ``file``, ``web``, ``mcp``, ``subagent``, ``other``)."""
        if self.event.type != "tool_result":
            return None
        return tool_kind(self.tool, isinstance(self.event.subagent, str))


def with_verdicts(events: Sequence[tuple[int, Event | None]], turns: Sequence[Turn]) -> list[Step]:
    """The decoded ``events`` (malformed lines left out) as steps, each failure inside a turn's span given
    the verdict its summary holds: a turn's failed tool results take its errors in order, a turn end in
    error the last. ``turns``: the conversation's turns that may hold these events, in file order."""
    spans = sorted(turns, key=lambda turn: turn.trace.start)
    steps: list[Step] = []
    at = 0  # the turn the next event may be in
    used = 0  # errors of that turn taken so far
    names: dict[str, str] = {}  # call id: the tool it called
    for offset, event in events:
        if event is None:
            continue
        tool = None
        if isinstance(event.id, str):
            if event.type == "tool_call" and isinstance(event.name, str):
                names[event.id] = event.name
            elif event.type == "tool_result":
                tool = names.get(event.id)
        while at < len(spans) and spans[at].trace.end <= offset:
            at, used = at + 1, 0
        verdict = None
        if at < len(spans) and spans[at].trace.start <= offset and failed(event):
            summary, trace = spans[at].summary, spans[at].trace
            errors = summary.errors
            if event.type == "turn_end":
                verdict = errors[-1] if trace.end_error and errors else None
            elif used < len(errors) - trace.end_error:
                verdict, used = errors[used], used + 1
        steps.append(Step(offset, event, verdict, tool))
    return steps


class Spans:
    """Reads byte spans of conversation files, each file opened once (confined) however many spans are read."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self.handles: dict[Path, BinaryIO | None] = {}
        self.problems: dict[Path, str] = {}

    def __enter__(self) -> Spans:
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self.handles.values():
            if handle is not None:
                handle.close()

    def read(self, path: Path, start: int, end: int | None = None) -> list[tuple[int, Event | None]]:
        """The events of bytes ``start``..``end`` (``None``: to the end of the file) with their offsets;
        over-long lines skipped; a file that cannot be read reads as empty (why: :attr:`problems`)."""
        if path not in self.handles:
            try:
                self.handles[path] = open_regular(path)
            except FileNotFoundError:
                self.handles[path] = None
            except OSError as exc:
                self.handles[path] = None
                self.problems[path] = exc.strerror or str(exc)
        handle = self.handles[path]
        if handle is None:
            return []
        try:
            return read_span(handle, path, start, end, self.max_line)
        except OSError as exc:
            self.problems[path] = exc.strerror or str(exc)
            return []

    def turn(self, path: Path, turn: Turn) -> list[Step]:
        """One turn's events, read from its span, with their verdicts."""
        return with_verdicts(self.read(path, turn.trace.start, turn.trace.end), [turn])


@dataclass(frozen=True)
class Description:
    text: str
    output: str | None = None  # a tool's output, kept apart: the bundle cuts it before anything else


def describe(step: Step) -> Description:
    """The text of a conversation event and its tool output (if any); a failure says whether it counted
    as transient (the verdict the score used)."""
    event, verdict = step.event, step.verdict
    kind = event.type
    if kind in ("user", "assistant"):
        return Description(_text(event.text))
    if kind == "turn_start":
        indexed = event.skills_indexed
        listed = ", ".join(s for s in indexed if isinstance(s, str)) if isinstance(indexed, list) else ""
        return Description(f"turn {event.turn} (skills indexed: {listed or 'none'})")
    if kind == "tool_call":
        args = orjson.dumps(event.args if event.args is not None else {}, default=str).decode()
        return Description(f"{event.name} {args} (call {event.id})")
    if kind == "tool_result":
        output = event.output if isinstance(event.output, str) and event.output else None
        if event.ok is True:
            return Description(f"ok (call {event.id})", output)
        status = event.status
        code = f" status {status}" if isinstance(status, int) and not isinstance(status, bool) else ""
        return Description(f"{_label(verdict)}{code} (call {event.id}): {_text(event.error)}", output)
    if kind == "skill_read":
        return Description(str(event.skill))
    if kind == "turn_end":
        text = f"turn {event.turn} ended {event.status}"
        if failed(event):
            transient = verdict is not None and verdict.transient
            text += f" with a {'TRANSIENT (environment) ' if transient else ''}error: {_text(event.error)}"
        return Description(text)
    if kind == "output_edited":
        return Description(f"the user edited the output of turn {event.turn} by hand")
    rest = event.fields()
    return Description(orjson.dumps(rest, default=str).decode() if rest else "")


def _label(verdict: ObservedError | None) -> str:
    if verdict is None:
        return "error (outside any turn: not scored)"
    return "TRANSIENT error (the environment's, not the agent's)" if verdict.transient else "error"


def _text(value: object) -> str:
    return "" if value is None else str(value)
