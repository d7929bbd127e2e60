"""Approving in the app for an agent linked in orkas.toml: the export's result is shown, and a
SKILL.md edited by hand where it was exported is flagged in the Skills tab with the way out."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.changes import approve
from orkas_tui.core.store.proposals import create_proposal
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.widgets.proposals import ProposalsPane
from orkas_tui.tui.widgets.skills import SkillsPane
from tests.conftest import NOW
from tests.importers.test_export import edit_by_hand, export_linked_demo
from tests.tui.conftest import SIZE, open_agent, settle, wait_until


async def test_approving_shows_the_export_and_flags_a_hand_edited_skill(
    app_factory, demo_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    (demo_ws / "orkas.toml").write_text('[agents.coder]\nformat = "claude-code"\nexport_skills = "~/.claude/skills"\n')
    workspace = Workspace.open(demo_ws)
    paths = workspace.agent("coder")
    store = SkillStore(paths, workspace.settings)
    slug, other = store.slugs()[:2]
    ops = [
        {"op": "update_self", "note": "profile", "content": "I stumble on `npm`."},
        *(
            {"op": "patch_skill", "skill": s, "find": line, "replace": line + " (checked)"}
            for s in (slug, other)
            for line in [store.get(s).body.strip().splitlines()[0]]
        ),
    ]
    proposal = create_proposal(paths, workspace.settings, "fixes", ops, NOW, {})
    approve(workspace, proposal.id, NOW, 0)  # the first export: every skill written
    edited = home / ".claude" / "skills" / slug / "SKILL.md"
    edited.write_text(edited.read_text("utf-8") + "\nA line of my own.\n", "utf-8")
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("4")
        pane = app.query_one(ProposalsPane)
        await wait_until(pilot, lambda: pane.ops.row_count == 3)
        pane.ops.focus()
        await pilot.press("down", "down")
        assert pane.current_op().index == 2
        await pilot.press("a")  # the other skill: exported; the hand-edited one is left alone
        await wait_until(pilot, lambda: any("exported" in n.message for n in app._notifications))
        (note,) = [n for n in app._notifications if "exported" in n.message]
        assert "1 SKILL.md edited by hand left alone" in note.message and note.severity == "warning"
        assert "(checked)" in (home / ".claude" / "skills" / other / "SKILL.md").read_text("utf-8")
        events = [e for _, e in app.views["coder"].events if e["type"] == "skill_exported"]
        assert events[-1]["conflicts"] == [slug] and events[-1]["written"] == [other]  # the Events tab's rows
        await pilot.press("3")
        skills = app.query_one(SkillsPane)
        await wait_until(pilot, lambda: "hand-edited" in str(skills.table.get_cell(slug, "flag")))
        assert "hand-edited" not in str(skills.table.get_cell(other, "flag"))
        skills.table.focus()
        skills.table.move_cursor(row=skills.table.get_row_index(slug))
        await settle(pilot)
        detail = str(app.query_one("#skill-detail").render())
        assert f"~/.claude/skills/{slug}/SKILL.md was edited by hand" in detail  # the home folder written ~
        assert "orkas-tui export claude-code coder ~/.claude/skills --force" in detail
        assert app.query_one("#skill-detail").has_class("hand-edited")  # room for the file and the way out
    assert "A line of my own." in edited.read_text("utf-8")


async def test_a_skill_left_out_of_the_listing_is_flagged_with_why(app_factory, demo_ws: Path, tmp_path: Path) -> None:
    """With room in the linked agent's listing for one skill, the others are flagged "unlisted" and the
    line under the table says why, as ``export`` does."""
    workspace = Workspace.open(demo_ws)
    store = SkillStore(workspace.agent("coder"), workspace.settings)
    room = max(len(slug) + len(store.get(slug).description) + 4 for slug in store.slugs())
    (demo_ws / "orkas.toml").write_text(
        f'[agents.coder]\nformat = "claude-code"\nexport_skills = "{tmp_path / "skills"}"\n'
        f"[export]\nlisting_chars_claude_code = {room}\n"
    )
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("3")
        skills = app.query_one(SkillsPane)
        await wait_until(pilot, lambda: skills.table.row_count == len(store.slugs()))
        flags = {slug: str(skills.table.get_cell(slug, "flag")) for slug in store.slugs()}
        assert sum("unlisted" in flag for flag in flags.values()) == len(flags) - 1
        left = next(slug for slug, flag in flags.items() if "unlisted" in flag)
        skills.table.focus()
        skills.table.move_cursor(row=skills.table.get_row_index(left))
        await settle(pilot)
        detail = str(app.query_one("#skill-detail").render())
        assert "not exported: claude-code over the listing budget" in detail and "benefit" in detail


async def test_an_edit_to_an_exported_skill_is_flagged_without_a_keypress(app_factory, demo_ws: Path, tmp_path: Path) -> None:
    """The linked agent's export folder is watched as the workspace is: a hand edit there shows at once."""
    import asyncio

    _workspace, _paths, slug, edited = export_linked_demo(demo_ws, tmp_path / "skills")
    app = app_factory(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("3")
        skills = app.query_one(SkillsPane)
        await wait_until(pilot, lambda: skills.table.row_count > 0)
        assert "hand-edited" not in str(skills.table.get_cell(slug, "flag"))
        await asyncio.sleep(0.3)  # let the watcher start
        edit_by_hand(edited)
        for _ in range(100):
            await pilot.pause(0.05)
            if "hand-edited" in str(skills.table.get_cell(slug, "flag")):
                break
        assert "hand-edited" in str(skills.table.get_cell(slug, "flag"))


async def test_e_shows_a_hand_edit_and_adopts_it_into_the_skill(app_factory, demo_ws: Path, tmp_path: Path) -> None:
    from orkas_tui.tui.screens.text_view import TextView

    workspace, paths, slug, edited = export_linked_demo(demo_ws, tmp_path / "skills")
    edit_by_hand(edited)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("3")
        skills = app.query_one(SkillsPane)
        await wait_until(pilot, lambda: "hand-edited" in str(skills.table.get_cell(slug, "flag")))
        skills.table.focus()
        skills.table.move_cursor(row=skills.table.get_row_index(slug))
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, TextView))
        assert "+A line of my own." in app.screen.text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, Choose))
        app.screen.dismiss("adopt")
        await wait_until(pilot, lambda: "hand-edited" not in str(skills.table.get_cell(slug, "flag")))
    assert "A line of my own." in SkillStore(paths, workspace.settings).get(slug).body
