"""A turn's transcript in the app describes each event as the bundle does, and a failure
says whether the score counted it as transient, and why."""

from __future__ import annotations

from pathlib import Path

import orjson

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.events import decode_line
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.transcript import Step, describe
from orkas_tui.tui.turn_detail import transcript
from tests.conftest import NOW

EVENTS = [
    {"ts": "2026-11-30T08:00:00Z", "type": "turn_start", "turn": "t1"},
    {"ts": "2026-11-30T08:00:01Z", "type": "tool_call", "id": "k1", "name": "fetch", "args": {"url": "x"}},
    {"ts": "2026-11-30T08:00:02Z", "type": "tool_result", "id": "k1", "ok": False, "status": 503, "error": "upstream down"},
    {"ts": "2026-11-30T08:00:03Z", "type": "tool_call", "id": "k2", "name": "bash", "args": {"cmd": "ls nope"}},
    {"ts": "2026-11-30T08:00:04Z", "type": "tool_result", "id": "k2", "ok": False, "error": "exit 2: no such file"},
    {"ts": "2026-11-30T08:00:05Z", "type": "turn_end", "turn": "t1", "status": "ok"},
]


def test_the_transcript_says_transient_or_real_with_the_rules_reason(tmp_path: Path) -> None:
    paths = AgentPaths(tmp_path / "agents" / "a1")
    paths.conversations.mkdir(parents=True)
    (paths.conversations / "c1.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in EVENTS))
    settings = Settings()
    scan = AgentScan(paths, settings, autosave=False)
    scan.refresh()
    (row,) = scan.newest_turns()

    lines = transcript(paths, row, settings, NOW).plain.splitlines()

    rule = TransientRule.from_settings(settings)
    transient, real = (rule.classify(EVENTS[i]["error"], EVENTS[i].get("status"), None) for i in (2, 4))
    assert transient is not None and transient.transient and real is not None and not real.transient
    assert [e.reason for e in row.summary.errors] == [transient.reason, real.reason]  # the verdicts the score counted
    assert lines[2].endswith(f"[transient: {transient.reason}]") and "TRANSIENT error" in lines[2]
    assert lines[4].endswith(f"[real: {real.reason}]") and "exit 2: no such file" in lines[4]
    assert describe(Step(0, decode_line(orjson.dumps(EVENTS[1])))).text in lines[1]  # the bundle's own line
