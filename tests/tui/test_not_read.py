"""The agent's header names the imported records no importer could read (importers/not_read.py)."""

from __future__ import annotations

from pathlib import Path

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.first_run import create_workspace
from orkas_tui.importers.run import import_files
from tests.importers.test_claude_code import session
from tests.importers.transcripts import write_lines
from tests.tui.conftest import SIZE, open_agent


async def test_the_header_counts_the_records_not_read(app_factory, tmp_path: Path) -> None:
    root = create_workspace(tmp_path / "ws")
    (root / "agents" / "coder").mkdir()
    workspace = Workspace(root)
    source = write_lines(tmp_path / "src" / "s1.jsonl", session())
    import_files(workspace.agent("coder"), workspace.settings, "claude-code", [source], settle=0)
    app = app_factory(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        header = str(app.query_one("#agent-header").render())
        assert "3 imported records not read (assistant block/hologram, mystery-record, system/brand_new_subtype)" in header
