"""No session left behind: what a reflection has seen is a read mark per conversation, never a timestamp.

A history imported after a reflection, however old its events, is unseen, makes the agent pending
and goes into its next bundle; a reflection with nothing unseen is not sent and starts no cooldown;
a workspace from before read marks gets them once from its last reflection's time."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from orkas_tui.core.read.workspace import read_state
from orkas_tui.core.reflect.queue import workspace_queue
from orkas_tui.core.reflect.reflection import prepare, reflect
from tests.modelserver import reply
from tests.reflection.conftest import CORRECTION, NOW, add_events, add_turn, configure, run_cli, set_reflected, trigger_turn, ts

NOTHING = {"summary": "nothing to keep", "operations": []}


def test_a_history_older_than_the_last_reflection_is_still_unseen(root: Path, server) -> None:
    trigger_turn(root, "a1", NOW - timedelta(hours=8), conversation="new")
    workspace = configure(root, server)
    server.steps = [reply(NOTHING)]
    assert reflect(workspace, "a1", NOW - timedelta(hours=6)).status == "nothing_to_save"
    queue = workspace_queue(workspace, NOW)
    assert queue.decision("a1").reason == "no changes"

    # a backlog imported afterwards: its turns are weeks older than the reflection
    trigger_turn(root, "a1", NOW - timedelta(days=20), conversation="backlog")
    queue = workspace_queue(configure(root, server), NOW)
    decision = queue.decision("a1")
    assert decision.pending_changes and decision.selected and decision.trigger_score > 0
    bundle = prepare(configure(root, server), "a1").bundle
    assert bundle.conversations == ["backlog"] and CORRECTION in bundle.text
    assert [t["conversation"] for t in bundle.turns] == ["backlog"]


def test_a_second_reflection_in_a_row_sends_nothing_and_says_why(root: Path, server, capsys) -> None:
    trigger_turn(root, "a1", NOW - timedelta(hours=5))
    configure(root, server)
    server.steps = [reply(NOTHING)]
    assert reflect(configure(root, server), "a1", NOW - timedelta(hours=4)).status == "nothing_to_save"
    state = read_state(configure(root, server).agent("a1"))
    sent = len(server.requests)

    code, out, err = run_cli(capsys, "reflect", "a1", "--workspace", str(root), "--now", "2026-11-30T09:00:00Z")
    assert code == 0 and "nothing new since the last reflection" in err + out
    assert len(server.requests) == sent  # nothing sent
    assert read_state(configure(root, server).agent("a1")) == state  # no cooldown started, no mark moved


def test_a_reflection_marks_only_what_it_read(root: Path, server) -> None:
    """Six conversations with unseen turns: the bundle takes five, the sixth stays unseen for the next."""
    for i in range(6):
        add_turn(root, "a1", NOW - timedelta(hours=10 - i), conversation=f"c{i}")
    workspace = configure(root, server)
    server.steps = [reply(NOTHING)]
    reflect(workspace, "a1", NOW - timedelta(hours=2))
    marks = read_state(workspace.agent("a1"))["read_marks"]
    assert sorted(marks) == ["c1", "c2", "c3", "c4", "c5"]
    assert prepare(configure(root, server), "a1").bundle.conversations == ["c0"]


def test_marks_come_once_from_the_last_reflection_time(root: Path, server) -> None:
    add_turn(root, "a1", NOW - timedelta(days=3), conversation="old")
    trigger_turn(root, "a1", NOW - timedelta(hours=1), conversation="old")
    set_reflected(root, "a1", NOW - timedelta(days=1))  # a workspace from before read marks
    bundle = prepare(configure(root, server), "a1").bundle
    marks = read_state(configure(root, server).agent("a1"))["read_marks"]
    assert list(marks) == ["old"] and marks["old"] > 0  # written once: the turn three days old is seen
    assert "please deploy the docs" not in bundle.text  # the seen turn: only its last reply, for context
    assert (
        "old assistant" in bundle.text
        and len(bundle.turns) == 1
        and bundle.turns[0]["ended_at"] > (NOW - timedelta(days=1)).isoformat()
    )


def test_an_import_after_an_upgrade_never_takes_old_history_for_seen(root: Path, server) -> None:
    """Reflected on by a version before read marks, then an old Claude Code history imported: its marks
    are fixed before the import writes, so the imported session is unseen and goes into the next bundle."""
    from orkas_tui.importers.run import import_files

    trigger_turn(root, "a1", NOW - timedelta(hours=8), conversation="new")
    set_reflected(root, "a1", NOW - timedelta(hours=6))
    workspace = configure(root, server)
    sample = Path(__file__).parents[1] / "data" / "samples" / "claude-code" / "marot-spotter__short.jsonl"
    import_files(workspace.agent("a1"), workspace.settings, "claude-code", [sample], settle=0)

    marks = read_state(workspace.agent("a1"))["read_marks"]
    assert list(marks) == ["new"]  # fixed before the import: the February session has none
    bundle = prepare(configure(root, server), "a1").bundle
    assert bundle.conversations == ["claude-marot-spotter__short"] and "mix phx.server" in bundle.text


def test_a_running_turn_is_read_as_far_as_it_went_and_unseen_once_it_grows(root: Path, server) -> None:
    trigger_turn(root, "a1", NOW - timedelta(hours=5))
    add_events(root, "a1", "c1", [{"ts": ts(NOW - timedelta(hours=4)), "type": "turn_start", "turn": "open"}])
    add_events(root, "a1", "c1", [{"ts": ts(NOW - timedelta(hours=4)), "type": "user", "text": "and the staging one"}])
    server.steps = [reply(NOTHING)]
    assert reflect(configure(root, server), "a1", NOW - timedelta(hours=3)).status == "nothing_to_save"
    assert reflect(configure(root, server), "a1", NOW - timedelta(hours=2)).status == "nothing_new"

    add_events(root, "a1", "c1", [{"ts": ts(NOW - timedelta(hours=1)), "type": "turn_end", "turn": "open", "status": "ok"}])
    bundle = prepare(configure(root, server), "a1").bundle
    assert bundle.conversations == ["c1"] and "and the staging one" in bundle.text  # the whole turn, once it ended
