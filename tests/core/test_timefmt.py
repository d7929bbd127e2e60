"""Human time formats used by the CLI and the TUI."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from orkas_tui.core.read.timefmt import format_age


def test_ages_show_the_largest_unit_and_the_next_one() -> None:
    now = datetime(2026, 1, 10, tzinfo=UTC)
    cases = {
        timedelta(days=2, seconds=5): "2d",
        timedelta(days=2, hours=4, minutes=3): "2d4h",
        timedelta(hours=5): "5h",
        timedelta(seconds=42): "42s",
        timedelta(0): "0s",
        timedelta(minutes=-90): "in 1h30m",
    }
    for delta, text in cases.items():
        assert format_age(now - delta, now) == text
    assert format_age(None, now) == "never"
