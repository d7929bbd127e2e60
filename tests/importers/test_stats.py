"""An import's totals: the latest read of each skill is kept, compared as times (``--watch`` folds imports)."""

from orkas_tui.importers.writer import ImportStats


def test_the_latest_read_wins_compared_as_times() -> None:
    stats = ImportStats()
    stats.read_at("deploy", "2026-11-20T10:00:00.500Z")
    stats.read_at("deploy", "2026-11-20T09:59:59Z")  # earlier, though it sorts later as text
    assert stats.last_read == {"deploy": "2026-11-20T10:00:00.500Z"}


def test_a_time_that_does_not_parse_never_wins_and_never_stops_the_import() -> None:
    stats = ImportStats()
    stats.read_at("deploy", "2026-11-20T10:00:00Z")
    stats.read_at("deploy", "yesterday")  # used to raise TypeError (None > datetime)
    assert stats.last_read == {"deploy": "2026-11-20T10:00:00Z"}
    damaged = ImportStats(last_read={"deploy": "not a time"})
    damaged.add(stats)
    assert damaged.last_read == {"deploy": "2026-11-20T10:00:00Z"}
