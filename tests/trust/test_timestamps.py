"""Timestamps come from other programs: any text parses to an aware UTC time or to nothing."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from orkas_tui.core.read.timefmt import UTC, format_ts, parse_ts
from tests.trust.conftest import FUZZ

ISOISH = st.from_regex(
    r"\A[0-9]{4}-?[0-9]{2}-?[0-9]{2}([T ][0-9]{2}(:?[0-9]{2}(:?[0-9]{2}(\.[0-9]{1,9})?)?)?)?([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?\Z"
)


@FUZZ
@given(text=st.one_of(st.text(max_size=40), ISOISH, ISOISH.map(lambda s: s + "Z")))
def test_any_text_is_a_utc_time_or_none(text) -> None:
    moment = parse_ts(text)
    assert moment is None or (moment.tzinfo is not None and moment.utcoffset() == timedelta(0))


@FUZZ
@given(moment=st.datetimes(timezones=st.just(UTC)))
def test_format_then_parse_is_the_same_time_to_the_millisecond(moment) -> None:
    parsed = parse_ts(format_ts(moment))
    assert parsed == moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    assert parsed.utcoffset() == timedelta(0)


def test_times_past_the_ends_of_utc_are_nothing_not_a_crash() -> None:
    for text in ("9999-12-31T23:59:59-01:00", "0001-01-01T00:30:00+01:00", "9999-12-31 23:00:00-23:59"):
        assert parse_ts(text) is None
    assert parse_ts("9999-12-31T22:59:59-01:00") == parse_ts("9999-12-31T23:59:59Z")
