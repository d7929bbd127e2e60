"""Typed decoding (msgspec Structs) reads each line as parsing it to a dict (orjson) reads it,
and the observer sees the same whichever of the two paths took a line.

The lines are hostile on purpose: every field of every type, integers past 64 bits, floats
past the double range, invalid UTF-8, lone surrogates, nesting past the parser's limit,
duplicate and unknown keys, non-objects, cut and mutated bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from itertools import pairwise

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ConversationObserver
from orkas_tui.core.read.events import SLICE, Event, decode_line, decode_lines, decode_stream
from orkas_tui.core.read.settings import Settings

KINDS = ["turn_start", "user", "assistant", "tool_call", "tool_result", "skill_read", "turn_end", "output_edited", "other"]
DECLARED = [name for name in Event.__struct_fields__ if name != "rest"]  # rest: the fallback's other fields
KEYS = [*DECLARED, "type", "unknown", "t\\u0079pe", "n\\u0061me", "Type"]
# literals a serialiser would not write, where the two parsers could disagree
ODD = [
    b"1e400",
    b"-1e309",
    b"1e-400",
    b"1" + b"0" * 400,
    b"1" + b"0" * 400 + b".0",
    b"123456789012345678901234567890",
    b"18446744073709551615",
    b"18446744073709551616",
    b"9223372036854775808",
    b"-9223372036854775808",
    b"-9223372036854775809",
    b"-0",
    b"-0.0",
    b"1E+2",
    b"0.1e1",
    b'"\xff"',
    b'"\xed\xa0\x80"',
    b'"\xc0\x80"',
    b'"caf\xc3\xa9"',
    b'"\\ud800"',
    b'"\\ud83d\\ude00"',
    b'"\\u0000"',
    b'"\x01"',
    b"NaN",
    b"Infinity",
    b"[" * 1100 + b"]" * 1100,
    b"[" * 1022 + b"]" * 1022,
    b"[" * 1021 + b"]" * 1021,
    b"[" * 600 + b"]" * 600,
    b'{"name": "a", "name": 1}',
    b'{"name": "x\xffy"}',
    b'{"name": "s", "k": {"a": [1, {"b": [2]}]}}',
    b'[{"a": [[1]]}]',
    b"[1,]",
    b"tru",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(
        [*KINDS, "ok", "error", "aborted", "read_skill", "bash", "t1", "wrong file", "timed out", "2026-11-20T10:00:00Z"]
    ),
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
)


@st.composite
def value_text(draw) -> bytes:
    if draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(ODD))
    return json.dumps(draw(VALUES), ensure_ascii=draw(st.booleans())).encode()


def _text(value) -> st.SearchStrategy[bytes]:
    return st.builds(lambda v, ascii_: json.dumps(v, ensure_ascii=ascii_).encode(), value, st.booleans())


ODD_NUMBERS = st.sampled_from([o for o in ODD if o[:1].isdigit() or o[:1] == b"-"])
ODD_STRINGS = st.sampled_from([o for o in ODD if o[:1] == b'"'])
STR = st.one_of(_text(SCALARS.filter(lambda v: isinstance(v, str))), ODD_STRINGS)
INT = st.one_of(_text(st.integers()), ODD_NUMBERS)
BOOL = st.sampled_from([b"true", b"false", b"null"])
SCALAR_TEXT = st.one_of(STR, INT, BOOL, _text(st.floats(allow_nan=False, allow_infinity=False)))
ARG = st.one_of(
    SCALAR_TEXT,
    st.lists(SCALAR_TEXT, max_size=3).map(lambda items: b"[" + b",".join(items) + b"]"),
    st.sampled_from([b'{"a": [1, {"b": 2}]}', b'[[["x"]]]', b'{"a": {"b": {"c": 1}}}', b"[" * 1100 + b"]" * 1100]),
)
# the type each field has in a well-formed line; the fast path sees only those
TYPED = {
    "skills_indexed": st.lists(STR, max_size=3).map(lambda items: b"[" + b",".join(items) + b"]"),
    "args": st.dictionaries(STR, ARG, max_size=3).map(lambda d: b"{" + b",".join(k + b":" + v for k, v in d.items()) + b"}"),
    "status": st.one_of(INT, STR),
    "exit_code": INT,
    **dict.fromkeys(["ok", "transient", "delegated"], BOOL),
}


@st.composite
def hostile_line(draw) -> bytes:
    shape = draw(st.sampled_from(range(10)))
    if shape == 0:
        return draw(st.binary(max_size=30))
    if shape == 1:
        return draw(value_text())
    members = [
        b'"type": ' + (json.dumps(draw(st.sampled_from(KINDS))).encode() if draw(st.integers(0, 5)) else draw(value_text()))
    ]
    clean = shape >= 4  # every field of its type: the lines the fast path takes, odd numbers and bytes inside
    for _ in range(draw(st.integers(1, 4) if clean else st.integers(0, 5))):
        key = draw(st.sampled_from(Event.__struct_fields__ if clean else KEYS))
        typed = key in Event.__struct_fields__ and (clean or draw(st.booleans()))
        value = draw(TYPED.get(key, STR)) if typed else draw(value_text())
        members.append(b'"' + key.encode() + b'": ' + value)
    members = draw(st.permutations(members))
    line = draw(st.sampled_from([b"", b" ", b"\t"])) + b"{" + b", ".join(members) + b"}"
    line += draw(st.sampled_from([b"", b" ", b"\r", b"\x0c", b"}", b",", b" x"]))
    if shape == 2 and line:  # cut or flip one byte
        at = draw(st.integers(0, len(line) - 1))
        line = line[:at] + draw(st.sampled_from([b"", b"\xff", b'"', b"\\", b"{", b"9"])) + line[at + 1 :]
    return line.replace(b"\n", b" ")


def _same(a: object, b: object) -> bool:
    """Equal and of the same types all the way down (1, 1.0 and True differ)."""
    return repr(a) == repr(b)


@settings(max_examples=500, deadline=None)
def parse_line(raw: bytes) -> dict | None:
    """The reference: the line as orjson parses it, malformed unless an object with a string ``type``."""
    try:
        value = orjson.loads(raw)
    except (orjson.JSONDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) and isinstance(value.get("type"), str) else None


@given(hostile_line())
def test_a_line_decodes_to_what_orjson_parses_field_by_field(line: bytes) -> None:
    event = decode_line(line)
    parsed = parse_line(line)
    assert (event is None) == (parsed is None)
    if parsed is not None:
        for name in DECLARED:
            assert _same(getattr(event, name), parsed.get(name)), name
    assert _same(decode_lines([line, b'{"type": "user"}']), [event, decode_line(b'{"type": "user"}')])


GOOD = [
    b'{"ts": "2026-11-20T10:00:00Z", "type": "turn_start", "turn": "t1", "skills_indexed": ["a", "b"]}',
    b'{"ts": "2026-11-20T10:00:01Z", "type": "user", "text": "wrong file, try again"}',
    b'{"ts": "2026-11-20T10:00:02Z", "type": "tool_call", "id": "c1", "name": "read_skill", "args": {"name": "a"}}',
    b'{"ts": "2026-11-20T10:00:03Z", "type": "tool_result", "id": "c1", "ok": false, "status": 503, "output": "x"}',
    b'{"ts": "2026-11-20T10:00:04Z", "type": "skill_read", "skill": "b"}',
    b'{"ts": "2026-11-20T10:00:05Z", "type": "turn_end", "turn": "t1", "status": "error", "error": "boom"}',
    b'{"ts": "2026-11-20T10:00:06Z", "type": "output_edited", "turn": "t1"}',
]


def _observer() -> ConversationObserver:
    settings_ = Settings()
    return ConversationObserver("c", TransientRule.from_settings(settings_), matcher_for(settings_.correction_phrases))


def _view(observer: ConversationObserver) -> tuple:
    turns = [{k: v for k, v in asdict(t).items() if k != "scored"} for t in observer.turns]
    return turns, observer.orphans, observer.latest_ts, observer.latest_at, sorted(observer.edited_ids)


def _fed(lines: list[bytes], cuts: list[int]) -> tuple[tuple, int, list]:
    """The observer's view, its malformed count and the (turn, seq) it reported touched, block by block,
    with the lines fed in blocks cut before each line number in ``cuts``."""
    observer = _observer()
    data = [line + b"\n" for line in lines]
    bounds = sorted({0, len(data), *(min(cut, len(data)) for cut in cuts)})
    base = malformed = 0
    touched = []
    for a, b in pairwise(bounds):
        block = b"".join(data[a:b])
        changed, bad = observer.feed_block(block, base)
        malformed += bad
        touched.append([(t.turn, t.seq) for t in changed.values()])
        base += len(block)
    return _view(observer), malformed, touched


@settings(max_examples=250, deadline=None)
@given(st.lists(st.one_of(hostile_line(), st.sampled_from(GOOD)), max_size=30), st.lists(st.integers(0, 30), max_size=4))
def test_hostile_lines_fed_in_any_blocks_are_observed_as_fed_whole(lines: list[bytes], cuts: list[int]) -> None:
    """Fed in blocks (as the tail cuts a file), the turns, malformed count, orphans and newest
    time are those of one block; a line is malformed exactly when it decodes to nothing, and a
    block reports touched each turn it changed."""
    view, malformed, _touched = _fed(lines, [])
    cut_view, cut_malformed, touched = _fed(lines, cuts)
    assert _same(cut_view, view)
    split = b"".join(line + b"\n" for line in lines).split(b"\n")[:-1]  # a binary line may hold a newline
    assert malformed == cut_malformed == sum(event is None for event in decode_lines(split))
    assert {turn for block in touched for turn in block} == {(t["turn"], t["seq"]) for t in view[0]}


def _refused(line: bytes) -> bool:
    try:
        msgspec.json.decode(line, type=Event)
    except (msgspec.DecodeError, RecursionError):
        return True
    return False


TWIN_PARTS = st.sampled_from(
    [b'"unknown": 1', b'"extra": 123456789012345678901234567890', b'"deep": {"a": [[[[1]]]]}', b'"meta": null']
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(GOOD), max_size=20), st.lists(st.tuples(st.integers(0, 20), TWIN_PARTS), min_size=1, max_size=8))
def test_a_line_the_typed_decoder_refuses_is_observed_as_its_typed_twin(lines: list[bytes], extras) -> None:
    """A field the spec does not know, of any size or depth, sends a line down the orjson
    path; what the observer makes of it is what it makes of the line without that field."""
    lines = [GOOD[0], *lines]  # a turn open from the start, so each line's fields count
    twins = list(lines)
    for at, part in extras:
        if twins:
            i = at % len(twins)
            twins[i] = twins[i][:-1] + b", " + part + b"}"
            assert _refused(twins[i]) and not _refused(lines[i])
    assert _same(_spanless(_fed(twins, [])), _spanless(_fed(lines, [])))


def _spanless(fed: tuple[tuple, int, list]) -> tuple:
    """What :func:`_fed` gives but the turns' byte spans and offsets, which differ between lines of other lengths."""
    (turns, *rest), malformed, touched = fed
    spanless = [
        {k: [(c.phrase, c.text) for c in v] if k == "corrections" else v for k, v in t.items() if k not in ("start", "end")}
        for t in turns
    ]
    return spanless, rest, malformed, touched


def test_odd_lines_have_the_records_they_always_had() -> None:
    """A corpus: each odd field is read as the rules read it, and the lines around it still count."""
    lines = [
        b'{"ts": "2026-11-20T10:00:00Z", "type": "turn_start", "turn": "t1", "skills_indexed": ["a", 3, "a", ""]}',
        b'{"type": "tool_call", "id": "c1", "name": 7}',  # a non-str name is "?"
        b'{"type": "tool_result", "id": "c1", "ok": 1, "status": "503", "error": "boom"}',  # non-bool ok fails; str status None
        b'{"type": "tool_result", "id": "c1", "ok": false, "status": 18446744073709551616, "output": [123456789012345678901234567890]}',
        b'{"type": "tool_result", "ok": false, "status": 429, "error": "x", "extra": {"deep": "\xff"}}',  # invalid UTF-8: malformed
        b'{"type": "tool_result", "ok": false, "status": 429, "error": "x", "extra": 1e400}',  # out of range: malformed
        b'{"type": "tool_result", "ok": false, "status": 9223372036854775807, "error": "x", "unknown": [1]}',
        b'{"type": "tool_call", "id": "c2", "name": "read_skill", "args": {"name": "b", "k": [[[[1]]]]}}',
        b'{"type": "skill_read", "skill": ["c"]}',
        b'{"type": 5}',
        b"[]",
        b'{"type": "turn_end", "turn": "t1", "status": "done", "transient": "yes"}',  # unknown status: an error
    ]
    observer = _observer()
    _touched, malformed = observer.feed_block(b"".join(line + b"\n" for line in lines), 0)
    assert malformed == 4
    [turn] = observer.turns
    assert turn.skills_indexed == ["a"] and turn.skills_read == ["b"] and turn.tools == {"?": 1, "read_skill": 1}
    assert [(e.source, e.message, e.status, e.transient) for e in turn.errors] == [
        ("?", "boom", None, False),
        ("?", "[1.2345678901234568e+29]", None, False),  # what orjson made of the numbers: floats
        ("?", "x", 9223372036854775807, False),
        ("turn", "turn ended in error", None, False),  # a non-bool flag is no flag
    ]
    assert (turn.status, turn.tool_calls, turn.ended_at, turn.end_error) == ("error", 2, turn.started_at, turn.errors[-1])
    assert (observer.orphans, observer.latest_ts, observer.open) == (0, "2026-11-20T10:00:00Z", None)


def test_a_block_longer_than_a_slice_is_observed_as_one() -> None:
    """Blocks of thousands of lines are decoded a slice at a time; refused lines fall anywhere in them."""
    odd = [b"junk", b'{"type": "tool_result", "ok": false, "status": 18446744073709551616}', b'{"type": "x", "k": 1e400}', b""]
    lines = [(GOOD + odd)[(i * 7) % (len(GOOD) + len(odd))] for i in range(3 * SLICE + 5)]
    assert _same(list(decode_stream(lines)), decode_lines(lines)) and len(decode_lines(lines)) == len(lines)
    view, malformed, [touched] = _fed(lines, [])
    assert _same(_fed(lines, list(range(0, len(lines), SLICE - 3)))[:2], (view, malformed))
    assert malformed == sum(decode_line(line) is None for line in lines) > SLICE // 2
    assert touched == [(t["turn"], t["seq"]) for t in view[0]]
