"""An applied operation's diff is the change as it was applied, not a second application of it to
today's file; counts say what they count; a figure not recorded reads n/a with why, never None."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.proposals import create_proposal
from orkas_tui.tui.widgets.proposals import ProposalsPane
from tests.conftest import NOW
from tests.reflection.conftest import run_json
from tests.tui.conftest import SIZE, open_agent, wait_until

ADDED = "+4. When a rollout exceeds its progress deadline"


async def test_an_applied_patch_shows_its_change_once_and_says_what_is_counted(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        await pilot.press("4")
        pane = app.query_one(ProposalsPane)
        await wait_until(pilot, lambda: pane.ops.row_count == 1)
        body = app.query_one("#op-diff-body", Static)
        await wait_until(pilot, lambda: "as applied" in str(body.content))
        shown = str(body.content)
        assert shown.count(ADDED) == 1 and "as applied (ops.c1" in shown
        assert "-patchCount: 0" in shown and "+patchCount: 1" in shown  # the file as the store wrote it
        assert str(pane.proposals.get_cell("ops.p1", "ops")) == "1 of 1 applied"
        header = str(app.query_one("#proposal-summary", Static).content)
        assert "None" not in header and "bundle n/a (not recorded with this proposal)" in header


async def test_a_pending_patch_is_diffed_as_approving_it_would_write(app_factory, demo_ws: Path) -> None:
    workspace = Workspace.open(demo_ws)
    paths = workspace.agent("ops")
    ops = [
        {"op": "patch_skill", "skill": "terraform-fmt", "find": "terraform fmt", "replace": "terraform fmt -recursive"},
        {"op": "patch_skill", "skill": "terraform-fmt", "find": "no such text", "replace": "x"},
    ]
    proposal = create_proposal(
        paths, workspace.settings, "two patches", ops, NOW, {"model": "m", "bundle_tokens": 1200, "redactions": 0}
    )
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        await pilot.press("4")
        pane = app.query_one(ProposalsPane)
        await wait_until(pilot, lambda: proposal.id in pane.by_id)
        pane.proposals.move_cursor(row=pane.proposals.get_row_index(proposal.id))
        await wait_until(pilot, lambda: pane.ops.row_count == 2)
        assert str(pane.proposals.get_cell(proposal.id, "ops")) == "1 of 2 pending"  # the other: invalid
        assert "bundle 1,200 tokens · redactions 0" in str(app.query_one("#proposal-summary", Static).content)
        body = app.query_one("#op-diff-body", Static)
        await wait_until(pilot, lambda: "+patchCount: 1" in str(body.content))
        assert "-patchCount: 0" in str(body.content)
        pane.ops.focus()
        await pilot.press("down")
        await wait_until(pilot, lambda: "n/a: it cannot be applied now" in str(body.content))


def test_proposals_show_diff_gives_the_same_texts(demo_ws: Path, capsys) -> None:
    shown = run_json(capsys, "proposals", "show", "ops.p1", "--diff", "--workspace", str(demo_ws))
    preview = shown["previews"]["0"]
    assert preview["note"].startswith("as applied (ops.c1")
    assert sum(line.startswith(ADDED) for line in preview["diff"]) == 1
