"""The observer's fast paths give exactly what the plain per-event path gives."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ConversationObserver
from orkas_tui.core.read.events import decode_line
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import _parse_any, parse_ts

OFFSETS = st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30))])
STAMPS = st.one_of(
    st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat().replace("+00:00", "Z")),
    st.datetimes(timezones=OFFSETS).map(lambda d: d.isoformat()),  # offsets other than Z
    st.datetimes().map(lambda d: d.isoformat()),  # naive: read as UTC
    st.sampled_from(["9999-12-31T23:59:59-01:00", "0001-01-01T00:30:00+01:00"]),  # past the ends of UTC
    st.datetimes().map(lambda d: d.isoformat() + "Z"),
    st.text(alphabet="0123456789-T:.Zz+ W", max_size=26),
    st.none(),
    st.integers(-(10**12), 10**12),
)


@settings(max_examples=600, deadline=None)
@given(STAMPS)
def test_fast_timestamps_equal_the_general_parse(value) -> None:
    assert parse_ts(value) == _parse_any(value)


EVENTS = st.one_of(
    st.builds(
        lambda t, ts: {"ts": ts, "type": "turn_start", "turn": t, "skills_indexed": ["a", "b"]},
        st.sampled_from(["t1", "t2"]),
        STAMPS,
    ),
    st.builds(lambda text: {"type": "user", "text": text}, st.sampled_from(["hello", "wrong file", "try again"])),
    st.builds(lambda i: {"type": "tool_call", "id": f"c{i}", "name": "bash", "args": {}}, st.integers(0, 3)),
    st.builds(
        lambda i, ok: {"type": "tool_result", "id": f"c{i}", "ok": ok, "error": "timed out"}, st.integers(0, 3), st.booleans()
    ),
    st.builds(lambda s: {"type": "skill_read", "skill": s}, st.sampled_from(["a", "c"])),
    st.builds(
        lambda t, s: {"type": "turn_end", "turn": t, "status": s, "error": "boom"},
        st.sampled_from(["t1", "t2"]),
        st.sampled_from(["ok", "error", "aborted", "weird"]),
    ),
    st.builds(lambda t: {"type": "output_edited", "turn": t}, st.sampled_from(["t1", "t2", 3])),
)
LINES = st.lists(st.one_of(EVENTS.map(orjson.dumps), st.sampled_from([b"", b"junk", b"[]", b'{"type": 1}'])), max_size=40)


def _observer() -> ConversationObserver:
    settings_ = Settings()
    return ConversationObserver("c", TransientRule.from_settings(settings_), matcher_for(settings_.correction_phrases))


@settings(max_examples=300, deadline=None)
@given(LINES)
def test_feed_block_equals_feeding_each_parsed_line(lines: list[bytes]) -> None:
    data = b"".join(line + b"\n" for line in lines)
    fast = _observer()
    touched, malformed = fast.feed_block(data, 100)
    plain = _observer()
    changed, bad, pos = {}, 0, 100
    for raw in lines:
        event = decode_line(raw)
        if event is None:
            bad += 1
        else:
            record = plain.feed(event, pos, pos + len(raw) + 1)
            for earlier in plain.marked:
                changed[id(earlier)] = earlier
            plain.marked.clear()
            if record is not None:
                changed[id(record)] = record
        pos += len(raw) + 1
    assert fast.turns == plain.turns and malformed == bad
    assert list(touched.values()) == list(changed.values())
    assert (fast.orphans, fast.latest_at, fast.latest_ts) == (plain.orphans, plain.latest_at, plain.latest_ts)


WELL_TIMED = st.lists(
    st.one_of(
        st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat().replace("+00:00", "Z")),
        st.datetimes(timezones=OFFSETS).map(lambda d: d.isoformat()),
        st.datetimes().map(lambda d: d.isoformat()),
    ),
    max_size=30,
)


@settings(max_examples=400, deadline=None)
@given(WELL_TIMED, st.one_of(st.none(), STAMPS))
def test_the_newest_time_of_a_block_is_what_feeding_each_event_keeps(stamps: list[str], odd) -> None:
    """Blocks whose times all parse take the bulk path; one odd time sends them one by one."""
    for times in (stamps, [*stamps, odd]):
        lines = [orjson.dumps({"ts": ts, "type": "user", "text": "hi"}) for ts in times]
        fast = _observer()
        fast.feed_block(b"".join(line + b"\n" for line in lines), 0)
        plain = _observer()
        for raw in lines:
            plain.feed(decode_line(raw), 0, 0)
        assert (fast.latest_at, fast.latest_ts) == (plain.latest_at, plain.latest_ts)
        assert fast.latest_at is None or fast.latest_at.tzinfo is not None
