"""Per-skill metrics exactly as the spec defines them; n/a never shown as 0."""

from __future__ import annotations

from pathlib import Path

from orkas_tui.core.observe.skill_metrics import skill_metrics
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary.scan import AgentScan
from tests.core.helpers import make_agent, turn, write_lines


def metrics(tmp_path: Path, events: list[dict]):
    agent = make_agent(tmp_path)
    write_lines(agent / "conversations" / "c1.jsonl", events)
    scan = AgentScan(AgentPaths(agent), Settings())
    scan.refresh()
    return skill_metrics(scan.records())


def test_rates_over_ended_turns(tmp_path: Path) -> None:
    idx = ["a", "b"]
    events = [
        *turn("t1", indexed=idx, read=["a", "a"]),  # read twice: one invocation
        {"ts": "2026-11-20T10:05:00Z", "type": "output_edited", "turn": "t1"},
        *turn("t2", indexed=idx, read=["a"], status="error", end={"error": "real failure"}),
        *turn("t3", indexed=idx, read=["a"], status="aborted"),
        *turn("t4", indexed=idx, read=["a"], status="error", end={"error": "connection reset"}),
        *turn("t5", indexed=idx),
        # running: not counted
        {"ts": "2026-11-20T11:00:00Z", "type": "turn_start", "turn": "t6", "skills_indexed": idx},
        {"ts": "2026-11-20T11:00:00Z", "type": "skill_read", "skill": "a"},
    ]
    table = metrics(tmp_path, events)
    a, b = table["a"], table["b"]
    assert (a.impressions, a.invocations) == (5, 4)
    assert a.invocation_rate == 0.8
    assert a.edit_rate == 0.25
    # aborted (t3) and transient-ended (t4) turns leave the denominator: 1 real error / 2
    assert a.ineffective_rate == 0.5
    assert (b.impressions, b.invocations) == (5, 0)
    assert b.invocation_rate == 0.0
    assert b.edit_rate is None and b.ineffective_rate is None


def test_a_skill_never_indexed_has_no_invocation_rate(tmp_path: Path) -> None:
    table = metrics(tmp_path, turn("t1", read=["ghost"]))
    assert table["ghost"].invocations == 1 and table["ghost"].invocation_rate is None


def test_only_aborted_invocations_leave_ineffectiveness_undefined(tmp_path: Path) -> None:
    table = metrics(tmp_path, turn("t1", indexed=["a"], read=["a"], status="aborted"))
    assert table["a"].ineffective_rate is None and table["a"].edit_rate == 0.0
