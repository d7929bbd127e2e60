"""AgentScan: incremental refresh reads only new bytes and re-observes replaced files."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary.fold import ConversationState, newest, newest_first, newest_order, newest_runs
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.turn import TurnSummary
from tests.core.helpers import make_agent, turn, write_lines


def test_refresh_reports_only_changed_turns(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    conv = agent / "conversations" / "c1.jsonl"
    write_lines(conv, turn("t1") + turn("t2"))
    scan = AgentScan(AgentPaths(agent), Settings())
    assert scan.refresh().changed == [("c1", 0), ("c1", 1)]
    assert not scan.refresh()
    write_lines(conv, turn("t3", user="wrong"))
    result = scan.refresh()
    assert result.changed == [("c1", 2), ("c1", 1)] and not result.reset  # the correction marks t2 edited
    assert [t.turn for t in scan.records()] == ["t1", "t2", "t3"]


def test_a_turn_grows_from_running_to_ended(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    conv = agent / "conversations" / "c1.jsonl"
    events = turn("t1", calls=2)
    write_lines(conv, events[:-1])
    scan = AgentScan(AgentPaths(agent), Settings())
    scan.refresh()
    assert [t.status for t in scan.records()] == ["running"]
    write_lines(conv, events[-1:])
    assert scan.refresh().changed == [("c1", 0)]
    assert [t.status for t in scan.records()] == ["ok"]


def test_truncated_conversation_is_observed_again(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    conv = agent / "conversations" / "c1.jsonl"
    write_lines(conv, turn("t1") + turn("t2") + [b"garbage\n"])
    scan = AgentScan(AgentPaths(agent), Settings())
    scan.refresh()
    assert scan.malformed_lines == 1
    write_lines(conv, turn("only"), mode="wb")
    result = scan.refresh()
    assert result.reset == ["c1"]
    assert [t.turn for t in scan.records()] == ["only"] and scan.malformed_lines == 0


def test_new_and_removed_conversations(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    write_lines(agent / "conversations" / "c1.jsonl", turn("t1"))
    scan = AgentScan(AgentPaths(agent), Settings())
    scan.refresh()
    write_lines(agent / "conversations" / "c2.jsonl", turn("u1"))
    (agent / "conversations" / "c1.jsonl").unlink()
    (agent / "conversations" / "notes.txt").write_text("ignored")
    result = scan.refresh()
    assert result.removed == ["c1"] and [t.turn for t in scan.records()] == ["u1"]


def test_malformed_lines_are_counted_per_agent(tmp_path: Path) -> None:
    a1, a2 = make_agent(tmp_path, "a1"), make_agent(tmp_path, "a2")
    write_lines(a1 / "conversations" / "c.jsonl", [b"{bad\n", b"[]\n", *turn("t1")])
    write_lines(a2 / "conversations" / "c.jsonl", turn("t1"))
    s1, s2 = AgentScan(AgentPaths(a1), Settings()), AgentScan(AgentPaths(a2), Settings())
    s1.refresh(), s2.refresh()
    assert (s1.malformed_lines, s2.malformed_lines) == (2, 0)
    assert [t.turn for t in s1.records()] == ["t1"]


STAMPS = st.sampled_from(["", "2026-11-20T09:00:00Z", "2026-11-20T10:00:00Z", "2026-11-21T09:00:00Z", "2026-11-22T09:00:00Z"])


@given(st.lists(st.lists(st.tuples(STAMPS, STAMPS), max_size=6), max_size=6), st.integers(0, 12))
def test_the_newest_turns_are_the_head_of_the_whole_order(conversations: list, count: int) -> None:
    """Ties in time, turns without one, empty conversations: visiting conversations newest first
    and stopping early keeps exactly the first rows of the full newest-first order."""
    states = []
    for n, turns in enumerate(conversations):
        state = ConversationState(Path(f"/nowhere/c{n}.jsonl"), TransientRule((), ()), matcher_for(()), 1024)
        state.set_turns([_summary(n, seq, start or None, end or None) for seq, (start, end) in enumerate(turns)], [])
        states.append(state)
    assert newest(states, count) == newest_first(states)[:count]


def _summary(n: int, seq: int, start: str | None, end: str | None) -> TurnSummary:
    return TurnSummary(f"c{n}", str(seq), start, end, "ok", 0, 0, 0, {}, 0.0, False, {}, [], [], [], False)


def _state_at(n: int, minutes: list[int | None]) -> ConversationState:
    state = ConversationState(Path(f"/nowhere/c{n}.jsonl"), TransientRule((), ()), matcher_for(()), 1024)
    stamps = [None if m is None else f"2026-11-20T{m // 60:02d}:{m % 60:02d}:00Z" for m in minutes]
    state.set_turns([_summary(n, seq, None, stamp) for seq, stamp in enumerate(stamps)], [])
    return state


@given(
    st.lists(st.lists(st.one_of(st.none(), st.integers(0, 40)), max_size=5), max_size=5),
    st.booleans(),
    st.booleans(),
)
def test_runs_of_conversations_are_the_whole_order(conversations: list, in_time: bool, apart: bool) -> None:
    """Each conversation a run of its own when none runs back in time or overlaps another;
    else runs cut from the full order. Either way, read in turn they are the order."""
    states = []
    for n, minutes in enumerate(conversations):
        if in_time:
            minutes = sorted(minutes, key=lambda m: -1 if m is None else m)
        if apart:
            minutes = [None if m is None else m + 100 * n for m in minutes]
        states.append(_state_at(n, minutes))
    runs = newest_runs(states)
    assert [(state, seq) for state, seqs in runs for seq in seqs] == newest_order(states)
    if in_time and apart and all(None not in minutes for minutes in conversations):  # one after another
        assert len(runs) == sum(1 for minutes in conversations if minutes)


def test_sessions_one_after_another_are_one_run_each() -> None:
    states = [_state_at(0, [1, 2, 2, 5]), _state_at(1, [7, 9]), _state_at(2, []), _state_at(3, [5, 6])]
    assert [(state.stem, list(seqs)) for state, seqs in newest_runs(states)] == [
        ("c1", [1, 0]),
        ("c3", [1, 0]),
        ("c0", [3, 2, 1, 0]),
    ]
