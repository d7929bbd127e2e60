"""Conversation events as typed Structs (msgspec), exactly as tolerant as parsing each line to a dict.

The fast path decodes a line straight into :class:`Event`: only the fields the spec and
our importers write, each of the type the rules expect, so no dict is built and no
unknown field is kept. Any line that path refuses (not JSON, not an object, a field of
another type or not in the list, nesting past three levels in ``args``, an integer
outside 64 bits) is parsed again by orjson, the parser this replaced, and judged as
before: not an object with a string ``type`` is malformed; otherwise the Struct is
built untyped from the parsed object and holds whatever the line held, so each rule
sees the value it always saw (a non-str tool name, a float ``status``). The fast path
only accepts lines orjson reads to the same values: that is why integers are bounded
(orjson reads a larger one as a float or refuses it) and unknown fields are refused
rather than skipped (msgspec skips a field without checking its UTF-8 or the range of
its numbers, both of which orjson checks).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Annotated, Any

import msgspec
import orjson

Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
_Scalar = str | Int | float | bool | None
_Nested = _Scalar | list[_Scalar] | dict[str, _Scalar]
_Value = _Scalar | list[_Nested] | dict[str, _Nested]


class Event(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One spec event; a field absent from the line and a JSON ``null`` are both ``None``.

    Typed for the fast path; an event built by :func:`decode_line`'s fallback may hold
    any JSON value in any field but ``type``, so the rules check each type they read.
    """

    type: str
    ts: str | None = None
    turn: str | None = None
    skills_indexed: list[str] | None = None
    text: str | None = None
    id: str | None = None
    name: str | None = None
    args: dict[str, _Value] | None = None
    ok: bool | None = None
    error: str | None = None
    output: str | None = None
    status: Int | str | None = None
    transient: bool | None = None
    skill: str | None = None
    # written by the importers, read by no rule: declared so their lines keep the fast path
    reason: str | None = None
    exit_code: Int | None = None
    rejected_call: str | None = None
    delegated: bool | None = None
    trigger: str | None = None
    parent: str | None = None
    subagent: str | None = None
    failure: Failure | None = None  # what an importer knew of a failed result or turn end
    # the line's fields outside the list above: only :func:`decode_line`'s fallback fills it (the fast path
    # refuses such a line), so an event of a kind we do not know is shown with all it said
    rest: dict[str, Any] | None = msgspec.field(default=None, name="~rest")  # no real line names a field so

    def fields(self, drop: tuple[str, ...] = ("ts", "type")) -> dict[str, Any]:
        """The fields the line gave (a JSON ``null`` is not told from an absent field), ``drop`` left out."""
        given = {name: value for name in _DECLARED if name not in drop and (value := getattr(self, name)) is not None}
        if self.rest:
            given.update((key, value) for key, value in self.rest.items() if key not in drop)
        return given


class Failure(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """What an importer knew of a failure, written in place of a verdict: the transient rule
    (``core/observe/transient.py``) judges it, with the words of the agent ``vocabulary`` names."""

    vocabulary: str
    kind: str | None = None  # the agent's error kind or code
    http_status: Int | None = None
    retried: bool = False  # the agent retried the request
    rejected: bool = False  # the user rejected the call
    interrupted: bool = False  # the user's interrupt cut the call short
    collateral: bool = False  # another call's error cancelled this one


_DECLARED = tuple(name for name in Event.__struct_fields__ if name != "rest")
_FIELDS = frozenset(_DECLARED)
_decode = msgspec.json.Decoder(Event).decode
_Refused = (msgspec.DecodeError, RecursionError)  # (msgspec's ValidationError is a DecodeError)


def decode_line(raw: bytes) -> Event | None:
    """One line's event, or ``None`` when it is malformed (not JSON, not an object, no string ``type``)."""
    try:
        return _decode(raw)
    except _Refused:
        return _parsed(raw)


def decode_lines(lines: list[bytes]) -> list[Event | None]:
    """:func:`decode_line` of each line, in order; the common case in one C loop (``map``)."""
    events: list[Event | None] = []
    rest = iter(lines)
    while True:
        try:
            events.extend(map(_decode, rest))  # keeps the events decoded before a refusal
            return events
        except _Refused:  # the refused line is the one after the last decoded (``rest`` is past it)
            events.append(_parsed(lines[len(events)]))


SLICE = 1024  # lines decoded at a time by :func:`decode_stream`


def decode_stream(lines: list[bytes]) -> Iterator[Event | None]:
    """:func:`decode_lines` of a long list a slice at a time, so only a slice's Structs are alive
    at once (a 4 MB block holds 20,000 events) and each is read while still in the CPU's cache."""
    if len(lines) <= SLICE:
        return iter(decode_lines(lines))
    return chain.from_iterable(map(decode_lines, (lines[at : at + SLICE] for at in range(0, len(lines), SLICE))))


def _parsed(raw: bytes) -> Event | None:
    """The line as orjson reads it, held untyped in an :class:`Event` (fields outside the list dropped)."""
    try:
        value = orjson.loads(raw)
    except (orjson.JSONDecodeError, RecursionError):
        return None
    if value.__class__ is not dict or value.get("type").__class__ is not str:  # orjson: exact types
        return None
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, item in value.items():
        (fields if key in _FIELDS else rest)[key] = item
    return Event(**fields, rest=rest or None)


class SystemEvent(msgspec.Struct, frozen=True, gc=False):
    """A line of an agent's ``events.jsonl`` (orkas-tui's own events and the runtime's): its kind and
    time, and the whole object it holds, any fields at all (what the Events tab and the bundle show)."""

    type: str
    ts: str | None
    data: dict[str, Any]

    def details(self, drop: tuple[str, ...] = ("ts", "type", "source")) -> str:
        """Its other fields as compact JSON (the bundle's line for it)."""
        rest = {key: value for key, value in self.data.items() if key not in drop}
        return orjson.dumps(rest, default=str).decode() if rest else ""


def decode_system_line(raw: bytes) -> SystemEvent | None:
    """One ``events.jsonl`` line, or ``None`` when it is malformed (not a JSON object with a string ``type``)."""
    try:
        value = orjson.loads(raw)
    except (orjson.JSONDecodeError, RecursionError):
        return None
    if value.__class__ is not dict or value.get("type").__class__ is not str:
        return None
    ts = value.get("ts")
    return SystemEvent(value["type"], ts if isinstance(ts, str) else None, value)
