"""The Skills tab's flags read the figures the skill's history (F2) shows, over the turns they name:
no "ineffective" on a skill whose latest change fixed it, no "never used" on a skill just made."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from orkas_tui.core.observe.skill_metrics import SkillMetrics
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.verdict import NEVER_USED, TOO_NEW, verdict
from orkas_tui.core.store.history import record_change
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.tui.app import make_app
from orkas_tui.tui.widgets.skills import SkillsPane
from tests.conftest import NOW
from tests.tui.conftest import SIZE, open_agent, settle, wait_until


async def _detail_of(pilot, slug: str) -> tuple[str, str]:
    skills = pilot.app.query_one(SkillsPane)
    await wait_until(pilot, lambda: skills.table.row_count > 0 and slug in skills.view.verdicts)
    skills.table.focus()
    skills.table.move_cursor(row=skills.table.get_row_index(slug))
    await settle(pilot)
    return str(skills.table.get_cell(slug, "flag")), str(pilot.app.query_one("#skill-detail").render())


async def test_a_skill_its_latest_change_fixed_is_judged_on_the_turns_after_it(app_factory) -> None:
    """rollback-deployment failed in every turn before ops.c1 (54% over all its turns) and in 20% of
    the 20 after: the flag and the line under the table read the 20 after, as F2 does."""
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        await pilot.press("3")
        row = next(r for r in app.views["ops"].skills if r.skill.slug == "rollback-deployment")
        assert row.metrics.ineffective_rate is not None and row.metrics.ineffective_rate > 0.5  # all turns
        flag, detail = await _detail_of(pilot, "rollback-deployment")
        assert "ineffective" not in flag
        assert "over the 20 turns after ops.c1: invocation 25%, edit 20%, ineffective 20%" in " ".join(detail.split())
        await pilot.press("o", "f2")  # the skill's history, from its editor

        def history_says() -> bool:
            found = app.screen.query("#history-effect")
            return bool(found) and "ineffective 100% → 20% (17 turns before, 20 after)" in str(found.first().render())

        await wait_until(pilot, history_says)


async def test_a_skill_just_made_is_too_new_to_judge_not_unused(app_factory, demo_ws: Path) -> None:
    workspace = Workspace.open(demo_ws)
    paths = workspace.agent("ops")
    skill, _ = SkillStore(paths, workspace.settings).create(
        "Drain first", "Drain a node before it reboots", "Always drain.\n", NOW
    )
    record_change(paths, NOW, by="approval", action="create_skill", kind="skill", target=skill.slug, after="x")
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        await pilot.press("3")
        flag, detail = await _detail_of(pilot, skill.slug)
        assert flag == "new" and "unused" not in flag
        assert f"too new to judge: 0 of 20 turns since {paths.id}.c2" in " ".join(detail.split())


def test_a_skill_with_no_change_is_judged_once_enough_turns_showed_it() -> None:
    few, enough = SkillMetrics(impressions=4), SkillMetrics(impressions=12)
    assert verdict(None, few, None, 10).flags == (TOO_NEW,) and verdict(None, few, None, 10).over == "4 of 10 turns shown"
    assert verdict(None, enough, None, 10).flags == (NEVER_USED,)
    assert verdict(None, enough, None, 10).over == "all 12 turns that showed it"
    assert verdict(None, few, None, 3).flags == (NEVER_USED,)  # the setting


async def test_a_skills_age_moves_on_with_the_clock(demo_ws: Path) -> None:
    """The app's tick redraws the ages: a skill made at start does not read "0s" two hours later."""
    workspace = Workspace.open(demo_ws)
    skill, _ = SkillStore(workspace.agent("ops"), workspace.settings).create(
        "Drain first", "Drain a node", "Always drain.\n", NOW
    )
    moments = [NOW]
    app = make_app(demo_ws, clock=lambda: moments[-1], watch=False, blink=False, preload=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        await pilot.press("3")
        skills = app.query_one(SkillsPane)
        await wait_until(pilot, lambda: skills.table.row_count > 0)
        assert str(skills.table.get_cell(skill.slug, "created")) == "0s"
        moments.append(NOW + timedelta(hours=2, minutes=5))
        app.tick()
        await settle(pilot)
        assert str(skills.table.get_cell(skill.slug, "created")) == "2h5m"
