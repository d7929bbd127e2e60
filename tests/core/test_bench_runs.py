"""``python -m benchmarks`` runs end to end on a small workspace (untimed: its figures are not checked).

The benchmark drives the app, the scan and the cache through their own APIs; a rename there
broke its live-latency child once and nothing noticed until the next full run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.__main__ import main


def test_every_row_of_the_table_is_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("ORKAS_BENCH_CACHE", str(tmp_path))
    argv = [
        "--events",
        "3000",
        "--agents",
        "2",
        "--skills",
        "12",
        "--indexed",
        "4",
        "--appends",
        "2",
        "--no-claude",
        "--scale",
        "",
    ]
    assert main(argv) == 0
    table = capsys.readouterr().out
    for row in (
        "cold scan: status --json",
        "warm start: status text again",
        "status --json after 1000 turn(s) appended",
        "bundle:",
        "bundle of one 3,000-turn conversation",
        "effects of 20 changes",
        "one turn appended to a 3,000-turn conversation",
        "TUI first paint (warm cache)",
        "the app, every agent read (4 skills indexed per conversation): peak RSS",
        "the app, every agent read (4 skills indexed per turn): peak RSS",
        "live latency, 2 appends (missed 0)",
        "4 skills indexed per turn: warm status text",
    ):
        assert row in table, row
