"""The spec's observation and scoring rules, including its worked examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary.scan import AgentScan
from tests.core.helpers import make_agent, turn, write_lines

REAL = {"ok": False, "error": "exit 1: assertion failed"}
TIMEOUT = {"ok": False, "error": "request timed out"}


def score(tmp_path: Path, events: list[dict], profile: str | None = None, settings: Settings | None = None):
    agent = make_agent(tmp_path)
    if profile is not None:
        (agent / "self").mkdir(exist_ok=True)
        (agent / "self" / "profile.md").write_text(profile)
    opening = turn("t0", user="set up the project", ts="2026-11-20T09:00:00Z")  # the task: never a correction
    write_lines(agent / "conversations" / "c1.jsonl", [*opening, *events])
    scan = AgentScan(AgentPaths(agent), settings or Settings())
    scan.refresh()
    return {row.summary.turn: row.summary for row in scan.newest_turns()}


def test_correction_plus_complexity_is_1_4_and_triggers(tmp_path: Path) -> None:
    row = score(tmp_path, turn("t1", user="Actually, use the other branch", calls=8))["t1"]
    assert row.signals == {"user_correction": 0.9, "complex_task": 0.5}
    assert row.score == pytest.approx(1.4)
    assert row.triggers
    assert "'Actually'" in row.evidence["user_correction"]
    assert "8 tool calls" in row.evidence["complex_task"]


def test_complexity_alone_does_not_trigger(tmp_path: Path) -> None:
    row = score(tmp_path, turn("t1", calls=9))["t1"]
    assert row.score == pytest.approx(0.5) and not row.triggers


def test_transient_timeout_alone_scores_zero(tmp_path: Path) -> None:
    row = score(tmp_path, turn("t1", calls=1, results=[TIMEOUT], status="error", end={"error": "request timed out"}))["t1"]
    assert row.score == 0 and row.signals == {} and not row.triggers
    assert row.transient_errors == 2 and not row.real_errors


def test_transient_error_after_a_skill_read_is_not_ineffective(tmp_path: Path) -> None:
    events = turn("t1", read=["deploy"], calls=1, results=[TIMEOUT], status="error", end={"error": "429 Too Many Requests"})
    assert score(tmp_path, events)["t1"].signals == {}


def test_real_error_after_a_skill_read_is_ineffective(tmp_path: Path) -> None:
    events = turn("t1", read=["deploy"], status="error", end={"error": "deploy script failed: exit 3"})
    row = score(tmp_path, events)["t1"]
    assert row.signals == {"skill_ineffective": 0.8} and row.triggers
    assert "deploy" in row.evidence["skill_ineffective"] and "exit 3" in row.evidence["skill_ineffective"]


def test_error_recovery_needs_a_real_tool_error_and_an_ok_end(tmp_path: Path) -> None:
    rows = score(
        tmp_path,
        turn("t1", calls=2, results=[REAL])
        + turn("t2", calls=2, results=[REAL], status="error", end={"error": "gave up"})
        + turn("t3", calls=2, results=[TIMEOUT]),
    )
    assert rows["t1"].signals == {"error_recovery": 0.6}
    assert "error_recovery" not in rows["t2"].signals
    assert rows["t3"].signals == {}


def test_known_weakness_comes_from_a_tool_named_in_backticks_in_the_profile(tmp_path: Path) -> None:
    rows = score(
        tmp_path,
        turn("t1", calls=1, results=[REAL]) + turn("t2", calls=1, results=[TIMEOUT]),
        profile="I stumble with `bash` when quoting.\n",
    )
    assert rows["t1"].signals == {"error_recovery": 0.6, "known_weakness": 0.6}
    assert "`bash`" in rows["t1"].evidence["known_weakness"]
    assert rows["t2"].signals == {}


def test_known_weakness_needs_the_backticks(tmp_path: Path) -> None:
    rows = score(tmp_path, turn("t1", calls=1, results=[REAL]), profile="I stumble with bash.\n")
    assert "known_weakness" not in rows["t1"].signals


@pytest.mark.parametrize(
    "text",
    [
        "That's wrong",
        "that’s not it",
        "I meant the other file",
        "It should be 3",
        "try again please",
        "use X instead",
        "这个不对",
        "应该是二月",
        "请重新做",
        "错了",
        "Incorrecto",
        "En realidad no",
        "Debería ser azul",
        "en vez de eso",
        "otra vez",
    ],
)
def test_corrections_in_english_chinese_and_spanish(tmp_path: Path, text: str) -> None:
    assert score(tmp_path, turn("t1", user=text))["t1"].signals == {"user_correction": 0.9}


@pytest.mark.parametrize("text", ["wrongly indexed? no", "instead_of is a variable", "please continue", "我们继续"])
def test_no_correction_without_a_whole_phrase(tmp_path: Path, text: str) -> None:
    assert score(tmp_path, turn("t1", user=text))["t1"].signals == {}


def test_correction_phrases_are_a_setting(tmp_path: Path) -> None:
    settings = Settings(correction_phrases=("nope",))
    rows = score(tmp_path, turn("t1", user="Nope, do it differently") + turn("t2", user="actually fine"), settings=settings)
    assert rows["t1"].signals == {"user_correction": 0.9} and rows["t2"].signals == {}


def test_weights_and_threshold_are_settings(tmp_path: Path) -> None:
    settings = Settings(weights={**Settings().weights, "complex_task": 0.75}, threshold=0.7)
    assert score(tmp_path, turn("t1", calls=8), settings=settings)["t1"].triggers


def test_aborted_and_running_turns(tmp_path: Path) -> None:
    events = turn("t1", user="wrong", status="aborted")
    events += [
        {"ts": "2026-11-20T11:00:00Z", "type": "turn_start", "turn": "t2", "skills_indexed": []},
        {"ts": "2026-11-20T11:00:00Z", "type": "user", "text": "wrong again"},
    ]
    rows = score(tmp_path, events)
    assert rows["t1"].status == "aborted" and rows["t1"].triggers
    assert rows["t2"].status == "running" and rows["t2"].score == 0 and not rows["t2"].triggers


@pytest.mark.parametrize(
    ("message", "status", "flag", "transient"),
    [
        ("boom", None, True, True),
        ("connection reset by peer", None, False, False),  # explicit false wins over the patterns
        ("boom", 429, None, True),
        ("boom", 503, None, True),
        ("boom", 404, None, False),
        ("ETIMEDOUT", None, None, True),
        ("Connection refused", None, None, True),
        ("getaddrinfo ENOTFOUND api.example.com", None, None, True),
        ("Temporary failure in name resolution", None, None, True),
        ("Resource temporarily unavailable", None, None, True),
        ("rate limit exceeded", None, None, True),
        ("Too Many Requests", None, None, True),
        ("model is overloaded", None, None, True),
        ("SyntaxError: invalid syntax", None, None, False),
        ("", None, None, False),
    ],
)
def test_transient_rule_order(message, status, flag, transient) -> None:
    verdict = TransientRule.from_settings(Settings()).classify(message, status, flag)
    assert verdict.transient is transient
    assert verdict.reason


def test_output_edited_marks_the_earlier_turn(tmp_path: Path) -> None:
    events = [*turn("t1"), {"ts": "2026-11-20T12:00:00Z", "type": "output_edited", "turn": "t1"}]
    assert score(tmp_path, events)["t1"].edited


def test_orphan_turn_end_and_unknown_events_are_tolerated(tmp_path: Path) -> None:
    events = [
        {"ts": "2026-11-20T09:00:00Z", "type": "turn_end", "turn": "zz", "status": "ok"},
        {"ts": "2026-11-20T09:00:00Z", "type": "mystery", "payload": [1]},
        *turn("t1", user="fine", calls=1),
    ]
    events[3]["extra_field"] = {"kept": True}
    rows = score(tmp_path, events)
    assert list(rows) == ["t1", "t0"] and rows["t1"].tool_calls == 1


def test_read_skill_tool_call_counts_as_an_invocation(tmp_path: Path) -> None:
    events = turn("t1", status="error", end={"error": "fatal"})
    events.insert(
        2, {"ts": "2026-11-20T10:00:00Z", "type": "tool_call", "id": "r", "name": "read_skill", "args": {"name": "deploy"}}
    )
    row = score(tmp_path, events)["t1"]
    assert row.skills_read == ["deploy"] and "skill_ineffective" in row.signals


def test_a_refresh_folds_only_the_turns_it_changed(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    write_lines(
        agent / "conversations" / "c1.jsonl", turn("t1", calls=2) + turn("t2", user="wrong, again", ts="2026-11-20T11:00:00Z")
    )
    write_lines(agent / "conversations" / "c2.jsonl", turn("u1", calls=9, ts="2026-11-21T09:00:00Z")[:-1])  # running
    scan = AgentScan(AgentPaths(agent), Settings(), persist=False)
    scan.refresh()
    first = {row.summary.turn: row.summary for row in scan.newest_turns()}
    write_lines(
        agent / "conversations" / "c2.jsonl", [{"ts": "2026-11-21T09:30:00Z", "type": "turn_end", "turn": "u1", "status": "ok"}]
    )
    scan.refresh()
    second = {row.summary.turn: row.summary for row in scan.newest_turns()}
    fresh = AgentScan(AgentPaths(agent), Settings(), persist=False)
    fresh.refresh()
    assert fresh.newest_turns() == scan.newest_turns()
    assert scan.rows() == fresh.rows()
    assert second["u1"] is not first["u1"] and second["u1"].signals  # the changed turn folded again
    assert second["t1"] is first["t1"] and second["t2"] is first["t2"]  # the others kept as they were
    (agent / "conversations" / "c1.jsonl").unlink()
    scan.refresh()
    assert [row.summary.turn for row in scan.newest_turns()] == ["u1"]
