"""A turn appended to a conversation file shows up without a keypress, keeping the cursor."""

from __future__ import annotations

import asyncio
from pathlib import Path

from orkas_tui.core.read.workspace import Area
from orkas_tui.core.reflect.queue import workspace_queue
from orkas_tui.core.runtime import AgentRuntime
from orkas_tui.tui.watch import classify, group_changes
from orkas_tui.tui.widgets import turns
from orkas_tui.tui.widgets.turns import TurnsPane
from tests.conftest import NOW
from tests.tui.conftest import SIZE, fixed_clock, open_agent, settle


async def _wait_for(pilot, predicate, timeout: float = 8.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
        await pilot.pause()
    raise AssertionError("the condition never held")


async def test_appended_turn_appears_without_a_keypress(app_factory, demo_ws: Path) -> None:
    app = app_factory(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        pane = app.query_one(TurnsPane)
        table = pane.table
        table.focus()
        table.sort_by("score")  # a sort the person chose: highest score first
        await pilot.press("down", "down")
        cursor_key = table.current_key()
        sort_before = table.sort_spec
        rows_before = table.row_count
        scanned_before = {c: s.tail.offset for c, s in app.data.agents["ops"].scan.conversations.items()}
        await asyncio.sleep(0.3)  # let the watcher start

        conv = AgentRuntime(demo_ws, "ops", clock=fixed_clock).conversation("live-check")
        conv.start_turn()
        conv.user("Check the pods of the api deployment")  # the task: a conversation's first prompt never corrects
        conv.assistant("The api runs 3 pods on the prod cluster.")
        conv.end_turn("ok")
        conv.start_turn()
        conv.user("Actually, that's not the right cluster; try again on staging")
        call = conv.tool_call("kubectl", {"cmd": "get pods"})
        conv.tool_result(call, ok=True, output="3 pods")
        conv.end_turn("ok")

        await _wait_for(pilot, lambda: "live-check#1" in pane.rows)
        await settle(pilot)
        assert table.row_count == rows_before + 2
        assert table.current_key() == cursor_key  # the cursor stayed on the same turn
        assert table.sort_spec == sort_before
        scores = [pane.rows[table.coordinate_to_cell_key((i, 0)).row_key.value].summary.score for i in range(table.row_count)]
        assert scores == sorted(scores, reverse=True)  # still sorted by score, the new turn in its place
        assert pane.rows["live-check#1"].summary.triggers
        # only new bytes were read: every old file's offset is where it was
        after = app.data.agents["ops"].scan.conversations
        assert all(after[c].tail.offset == offset for c, offset in scanned_before.items())


def test_changes_are_grouped_by_agent_and_area(tmp_path: Path) -> None:
    root = tmp_path
    paths = [
        root / "agents" / "coder" / "conversations" / "a.jsonl",
        root / "agents" / "coder" / "skills" / "x.md",
        root / "agents" / "ops" / "self" / "profile.md",
        root / "agents" / "ops" / "skills" / ".x.md.abc.tmp",
        root / "agents" / "ops" / ".orkas" / "state.json",
        root / "agents" / "coder" / ".orkas" / "summary-cache.jsonl",  # the app's own scans and status write it
        root / "elsewhere.txt",
    ]
    assert group_changes(root, paths) == {"coder": {Area.CONVERSATIONS, Area.SKILLS}, "ops": {Area.SELF, Area.STATE}}
    assert classify(root, root / "orkas.toml") == ("*", Area.SETTINGS)
    assert classify(root, root / "agents" / "new-agent") == ("new-agent", Area.AGENT)


async def test_rows_beyond_the_first_screenful_follow_in_chunks(app_factory, monkeypatch) -> None:
    monkeypatch.setattr(turns, "FIRST_ROWS", 2)
    monkeypatch.setattr(turns, "CHUNK_ROWS", 3)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        pane = app.query_one(TurnsPane)
        table = pane.table
        assert len(pane.rows) > 2 + 3  # more than the first rows and one chunk
        shown = [table.coordinate_to_cell_key((i, 0)).row_key.value for i in range(table.row_count)]
        assert shown == list(pane.rows)  # every turn, newest first, as a sort by time would put them
        assert table.cursor_row == 0


async def test_the_queue_after_an_append_matches_a_full_plan(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        conv = AgentRuntime(demo_ws, "archivist", clock=fixed_clock).conversation("late")
        conv.start_turn()
        conv.user("No, that's wrong, file it under invoices")
        conv.end_turn("ok")
        app.reload_agent("archivist", Area.CONVERSATIONS)
        await settle(pilot)
        assert app.plan == workspace_queue(app.workspace, NOW)  # only archivist was weighed again
        assert app.plan.decision("archivist").pending_changes


async def test_a_turn_that_ends_is_updated_in_place_and_the_skill_rates_follow(app_factory, demo_ws: Path) -> None:
    from orkas_tui.core.observe.skill_metrics import SkillMetrics, skill_metrics

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        pane = app.query_one(TurnsPane)
        runtime = AgentRuntime(demo_ws, "ops", clock=fixed_clock)
        slug = sorted(p.stem for p in (demo_ws / "agents" / "ops" / "skills").glob("*.md"))[0]
        conv = runtime.conversation("in-place")
        conv.start_turn(skills_indexed=[slug])
        conv.user("That's wrong, try again on staging")
        app.reload_agent("ops", Area.CONVERSATIONS)
        await settle(pilot)
        key = "in-place#0"
        assert "running" in str(pane.table.get_row(key))

        conv.read_skill(slug)
        for _ in range(6):
            conv.tool_result(conv.tool_call("kubectl", {"cmd": "get pods"}), ok=True, output="3 pods")
        conv.end_turn("error", error="exit 1: cluster unreachable")
        app.reload_agent("ops", Area.CONVERSATIONS)
        await settle(pilot)
        row = str(pane.table.get_row(key))
        assert "running" not in row and "▲" in row  # the same row, its cells redone

        def rates_as_if_counted_again() -> None:
            everything = skill_metrics(app.data.agents["ops"].scan.records())
            assert [(r.skill.slug, r.metrics) for r in app.views["ops"].skills] == [
                (r.skill.slug, everything.get(r.skill.slug, SkillMetrics())) for r in app.views["ops"].skills
            ]
            assert everything[slug].invocations >= 1

        rates_as_if_counted_again()
        conv.start_turn(skills_indexed=[slug])  # the same conversation grows again: its old counts are replaced
        conv.end_turn("ok")
        app.reload_agent("ops", Area.CONVERSATIONS)
        await settle(pilot)
        rates_as_if_counted_again()


def test_skill_rates_follow_a_conversation_emptied_or_removed(demo_ws: Path) -> None:
    from orkas_tui.core.picture import AgentPicture as AgentData
    from orkas_tui.core.read.workspace import AGENT_AREAS, Workspace

    workspace = Workspace.open(demo_ws)
    paths = workspace.agent("archivist")
    data = AgentData(paths, workspace)
    data.load(AGENT_AREAS)
    first, second = sorted(paths.conversations.glob("*.jsonl"))[:2]

    def rates(view) -> list:
        return [(row.skill.slug, row.metrics) for row in view.skills]

    first.write_bytes(b"")  # read again from its start, with no turn left
    assert rates(data.load(frozenset({Area.CONVERSATIONS}))) == rates(AgentData(paths, workspace).load(AGENT_AREAS))
    second.unlink()
    assert rates(data.load(frozenset({Area.CONVERSATIONS}))) == rates(AgentData(paths, workspace).load(AGENT_AREAS))


async def test_a_hook_log_line_appears_in_the_events_tab_without_a_keypress(app_factory, demo_ws: Path) -> None:
    from orkas_tui.core.read.workspace import AgentPaths
    from orkas_tui.importers.hook_log import append_log
    from orkas_tui.tui.widgets.keyed_table import KeyedTable

    app = app_factory(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        await pilot.press("6")
        table = app.query_one("#events-table", KeyedTable)
        await asyncio.sleep(0.3)  # let the watcher start
        append_log(AgentPaths(demo_ws / "agents" / "ops").private, "problem", tool="claude-code", message="input is not JSON")
        await _wait_for(pilot, lambda: any(str(key.value).startswith("hook-") for key in table.rows))


async def test_enter_on_an_event_shows_it_whole(app_factory, demo_ws: Path) -> None:
    """The Events tab cuts details to the width; enter shows the highlighted event in full (issue 33)."""
    from orkas_tui.core.read.workspace import AgentPaths
    from orkas_tui.importers.hook_log import append_log
    from orkas_tui.tui.screens.text_view import TextView
    from orkas_tui.tui.widgets.keyed_table import KeyedTable

    long = "the hook could not read its input: " + "x" * 300 + " END-OF-MESSAGE"
    append_log(AgentPaths(demo_ws / "agents" / "ops").private, "problem", tool="claude-code", message=long)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        await pilot.press("6")
        table = app.query_one("#events-table", KeyedTable)
        await _wait_for(pilot, lambda: any(str(key.value).startswith("hook-") for key in table.rows))
        row = next(
            i for i in range(table.row_count) if str(table.coordinate_to_cell_key((i, 0)).row_key.value).startswith("hook-")
        )
        table.focus()
        table.move_cursor(row=row, animate=False)
        await pilot.pause()
        await pilot.press("enter")
        await _wait_for(pilot, lambda: isinstance(app.screen, TextView))
        assert "hook_problem" in app.screen.title_text and "hooks.log" in app.screen.title_text
        assert "END-OF-MESSAGE" in app.screen.text and '"tool": "claude-code"' in app.screen.text
        await pilot.press("escape")
        await _wait_for(pilot, lambda: not isinstance(app.screen, TextView))


async def test_hook_problems_not_looked_at_are_badged_until_the_events_tab_is_seen(app_factory, demo_ws: Path) -> None:
    """Two hook problems logged for ops: its sidebar row says ✗2 from any tab; opening its Events tab
    marks them seen (the badge goes, and stays gone on the next start); a later problem badges again."""
    from orkas_tui.core.read.workspace import AgentPaths
    from orkas_tui.importers.hook_log import append_log
    from orkas_tui.tui.widgets.sidebar import Sidebar

    private = AgentPaths(demo_ws / "agents" / "ops").private
    for message in ("input is not JSON", "no transcript_path"):
        append_log(private, "problem", tool="claude-code", message=message)

    def agent_cell(app) -> str:
        return str(app.query_one(Sidebar).get_cell("ops", "agent"))

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await _wait_for(pilot, lambda: agent_cell(app).startswith("✗2 "))
        await open_agent(pilot, "ops")
        await pilot.press("6")
        await _wait_for(pilot, lambda: not agent_cell(app).startswith("✗"))
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        assert not agent_cell(app).startswith("✗")
        append_log(private, "problem", tool="claude-code", message="a third")
        app.reload_agent("ops", Area.PRIVATE)
        await _wait_for(pilot, lambda: agent_cell(app).startswith("✗1 "))
