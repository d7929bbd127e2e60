"""The Skills tab shows where each skill is exported (its repository's folder, or "global"), and g changes it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.scopes import learn, load_scopes
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.widgets.skills import SkillsPane
from tests.tui.conftest import SIZE, open_agent, wait_until

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


async def test_the_scope_column_and_its_key(app_factory, demo_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    repo = tmp_path / "code" / "shop"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (demo_ws / "orkas.toml").write_text('[agents.coder]\nformat = "claude-code"\nexport_skills = "~/.claude/skills"\n')
    paths = Workspace.open(demo_ws).agent("coder")
    slug, other = SkillStore(paths, Workspace.open(demo_ws).settings).slugs()[:2]
    learn(paths, slug, [str(repo)])  # its lessons came from this repository only
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("3")
        pane = app.query_one(SkillsPane)
        await wait_until(pilot, lambda: pane.table.row_count > 1)
        assert str(pane.table.get_cell(slug, "scope")) == "shop" and str(pane.table.get_cell(other, "scope")) == "global"

        pane.table.focus()
        pane.table.move_cursor(row=pane.table.get_row_index(slug))
        await wait_until(pilot, lambda: "only in " in str(app.query_one("#skill-detail").content))
        assert f"only in {repo} (learned in this repository only; g changes it)" in str(app.query_one("#skill-detail").content)
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, Choose))
        assert "Only shop" in [label for _, label in app.screen.answers]
        app.screen.dismiss("global")
        await wait_until(pilot, lambda: str(pane.table.get_cell(slug, "scope")) == "global")
        assert load_scopes(paths)[slug]["chosen"] == "global"
        assert (home / ".claude" / "skills" / slug / "SKILL.md").is_file()  # the linked agent exported at once
        assert any(f"{slug}: global (set global by a person)" in n.message for n in app._notifications)
