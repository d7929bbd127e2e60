"""Layout that fits: no table wider than its place, tab labels with their keys, focus where the keys go."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, TabbedContent
from textual.widgets._footer import FooterKey

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.first_run import create_workspace
from orkas_tui.demo.proposal import add_demo_proposal
from orkas_tui.tui.intents import OpenSkill
from orkas_tui.tui.widgets.keyed_table import KeyedTable
from orkas_tui.tui.widgets.self_notes import SelfPane
from orkas_tui.tui.widgets.sidebar import Sidebar
from orkas_tui.tui.widgets.skills import SkillsPane
from tests.conftest import NOW
from tests.tui.conftest import SIZE, open_agent, settle

TAB_KEYS = ["1", "2", "3", "4", "5", "6"]


def _overflowing(app) -> list[str]:
    """Tables on screen whose columns need more width than they have (a header would be cut)."""
    bad = []
    for table in app.screen.query(KeyedTable):
        if not table.display or not table.region.width or not table.is_on_screen:
            continue
        needed = sum(c.get_render_width(table) for c in table.columns.values())
        if needed > table.scrollable_content_region.width:
            bad.append(f"{table.id}: {needed} > {table.scrollable_content_region.width}")
    return bad


@pytest.mark.parametrize("size", [(120, 40), (100, 30), (80, 24), (60, 20)])
async def test_every_table_fits_its_width_on_every_tab(app_factory, size) -> None:
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await open_agent(pilot, "coder")
        for key in TAB_KEYS:
            app.query_one("#sidebar").focus()  # keys to the app, not an editor
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause()
            assert _overflowing(app) == [], (size, key)


async def test_at_120_columns_every_table_on_every_tab_shows_every_column(app_factory, demo_ws) -> None:
    add_demo_proposal(demo_ws, NOW)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        for key in TAB_KEYS:
            app.query_one("#sidebar").focus()
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause()
            tables = [t for t in app.screen.query(KeyedTable) if t.display and t.is_on_screen]
            assert len(tables) >= (0 if key == "5" else 2), key  # the sidebar and the tab's table(s)
            assert {t.id: t.hidden_columns() for t in tables} == {t.id: [] for t in tables}, key


async def test_long_claude_code_conversation_ids_shrink_instead_of_hiding_the_column(app_factory, tmp_path) -> None:
    root = create_workspace(tmp_path / "ws")
    (root / "agents" / "claude" / "conversations").mkdir(parents=True)
    paths = Workspace.open(root).agent("claude")
    conversation = "claude-8463c716-a2ea-4c14-9efa-87158ebd9f20"
    turn = [
        {"ts": "2026-11-30T08:00:00Z", "type": "turn_start", "turn": "t1"},
        {"ts": "2026-11-30T08:00:00Z", "type": "user", "text": "hi"},
        {"ts": "2026-11-30T08:00:05Z", "type": "turn_end", "turn": "t1", "status": "ok"},
    ]
    (paths.conversations / f"{conversation}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in turn))
    app = app_factory(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "claude")
        table = app.query_one("#turns-table", KeyedTable)
        assert table.hidden_columns() == []
        cell = table.get_cell_at((0, list(table.columns).index("conversation")))
        assert cell.plain == conversation  # whole in the cell; the column is fitted narrower and ends in "…"
        assert table.columns["conversation"].get_render_width(table) - 2 < len(conversation)


async def test_narrow_terminals_drop_whole_columns_by_priority(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_agent(pilot, "coder")
        sidebar = app.query_one(Sidebar)
        assert sidebar.hidden_columns() == ["reflected", "skills"]
        names = [cell.plain for cell in sidebar.get_column("agent")]
        assert "⚠1 researcher" in names  # read after the first paint: the column grew to fit it
        assert sidebar.columns["agent"].get_render_width(sidebar) - 2 == max(len(n) for n in names)
        hidden = app.query_one("#turns-table", KeyedTable).hidden_columns()
        assert "conversation" in hidden and "time" not in hidden and "signals" not in hidden


async def test_below_70_columns_the_sidebar_hides_and_ctrl_b_brings_it_back(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        assert not app.query_one(Sidebar).display
        await pilot.press("ctrl+b")
        assert app.query_one(Sidebar).display


async def test_tab_labels_show_their_keys_even_when_rebound(app_factory, demo_ws) -> None:
    (demo_ws / "orkas.toml").write_text('[keys]\ntab_queue = "w"\n')
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tabs = app.query_one(TabbedContent)
        labels = [str(tabs.get_tab(t).label) for t in ("turns", "queue", "proposals")]
        assert labels == ["1 Turns", "w Queue", "4 Proposals"]


async def test_switching_to_the_self_tab_focuses_its_editor_and_esc_gives_keys_back(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("5")
        await settle(pilot)
        area = app.query_one(SelfPane).editor("profile").area
        assert app.focused is area
        before = area.text
        await pilot.press("z")
        assert area.text != before  # typing works at once
        await pilot.press("escape", "1")
        await settle(pilot)
        assert app.query_one(TabbedContent).active == "turns"


async def test_the_focused_pane_is_marked(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        app.query_one(Sidebar).focus()
        await pilot.pause()
        sidebar_border = app.query_one(Sidebar).styles.border_right
        header_bg = app.query_one("#agent-header").styles.background
        await pilot.press("1")
        await pilot.pause()
        assert app.query_one(Sidebar).styles.border_right != sidebar_border
        assert app.query_one("#agent-header").styles.background != header_bg


async def test_resizing_to_80_columns_shortens_the_tab_labels_so_all_fit(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        tabs = app.query_one(TabbedContent)
        assert str(tabs.get_tab("proposals").label) == "4 Proposals"
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.pause()
        assert str(tabs.get_tab("proposals").label) == "4 Props"
        assert app.query_one("#main").has_class("-narrow")


async def test_at_80_columns_the_footer_shows_every_key_of_every_tab_whole(app_factory, demo_ws) -> None:
    add_demo_proposal(demo_ws, NOW)  # the Proposals tab has the most keys
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_agent(pilot, "coder")
        for key in TAB_KEYS:
            app.query_one("#sidebar").focus()
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause()
            shown = [k for k in app.screen.query(FooterKey) if k.display]
            assert shown and (key == "5" or any(k.key == "q" for k in shown)), key  # on Self, q types into the note
            assert [k.key for k in shown if k.region.right > 80 or not k.region.width] == [], key


async def test_overlay_screens_cover_what_is_below(app_factory) -> None:
    """Help, settings, the bundle and a skill's history paint an opaque background: an editor
    or table showing through would read as part of them."""
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        seen = []
        for key in ("question_mark", "comma", "b"):
            app.query_one(Sidebar).focus()
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause()
            screen = app.screen
            assert screen is not app.screen_stack[0], key
            seen.append(type(screen).__name__)
            assert screen.styles.background.a == 1, (key, screen.styles.background)
            await pilot.press("escape")
            await settle(pilot)
        app.post_message(OpenSkill("coder", "python-type-hints"))
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        await pilot.pause()
        seen.append(type(app.screen).__name__)
        assert app.screen.styles.background.a == 1
    assert seen == ["HelpScreen", "SettingsScreen", "TextView", "SkillHistory"]


async def test_esc_leaves_the_skills_filter_and_enter_keeps_it(app_factory) -> None:
    """Issue 33: esc did not leave the Skills filter; now it clears it and goes back to the table."""
    from textual.widgets import Input

    from orkas_tui.tui.widgets.skills import SkillsPane

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("3")
        pane = app.query_one(SkillsPane)
        await settle(pilot)
        every = pane.table.row_count
        await pilot.press("slash", "d", "e", "p")
        await settle(pilot)
        assert isinstance(app.focused, Input) and pane.table.row_count < every
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is pane.table and pane.query_one(Input).value == "" and pane.table.row_count == every
        await pilot.press("slash", "d", "e", "p", "enter")
        await settle(pilot)
        assert app.focused is pane.table and pane.table.row_count < every  # enter keeps the filter


async def test_at_80x24_the_skills_filter_is_wide_enough_to_type_in(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("3")
        await settle(pilot)
        field = app.query_one(SkillsPane).query_one("#skills-filter", Input)
        assert field.region.width >= 24  # was 4: the summary took the rest
        assert app.query_one("#skills-summary").region.right <= app.query_one(SkillsPane).region.right


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_agent_header_is_never_cut(app_factory, size) -> None:
    """The archivist's description wraps: its counts ("7 turns · 1 triggering") still show, below it."""
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        for agent in ("archivist", "coder"):
            await open_agent(pilot, agent)
            header = app.query_one("#agent-header")
            width = header.content_region.width
            needed = header.get_content_height(header.content_region.size, app.size, width)
            assert needed <= header.content_region.height, (agent, needed, header.content_region.height)
