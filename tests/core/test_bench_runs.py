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
        "cold scan: status --json --all-turns",
        "warm start: status text again",
        "warm start: status --json --all-turns again",
        "warm status --json against text (4 skills indexed per conversation)",
        "warm status --json against text (4 skills indexed per turn)",
        "status --json --all-turns after 1000 turn(s) appended",
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


def test_the_claude_history_rows_hold_one_agent_s_cold_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 35's rows: the copied real history's cold status against the orjson loop, at 1, 2 and 4 jobs."""
    from benchmarks import claude_scale
    from benchmarks.__main__ import _scale_rows

    monkeypatch.setenv("ORKAS_BENCH_CACHE", str(tmp_path))
    size = claude_scale.measure(5, 1, False, cold_rounds=1)
    assert set(size["cold"]["cold_s"]) == {"1", "2", "4"}
    labels = [row[0] for row in _scale_rows({"sizes": [size]}, 0.02)]
    assert any(label.endswith("(one agent)") and "cold status --json --all-turns, no cache" in label for label in labels)
    for jobs in ("1", "2", "4"):
        assert any(f"cold status --json --all-turns --jobs {jobs} (one agent" in label for label in labels), jobs
