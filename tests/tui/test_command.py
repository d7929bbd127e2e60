"""``orkas-tui`` without a command: the demo workspace it opens, and the simulator behind --simulate."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui import cli
from orkas_tui.commands.app import demo_root
from orkas_tui.core.read.timefmt import parse_ts, utc_now
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.proposals import list_proposals
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.demo.simulate import start_simulator
from tests.conftest import NOW


def test_demo_looks_live_and_has_a_proposal_to_review(tmp_path: Path) -> None:
    root = demo_root(tmp_path)
    workspace = Workspace.open(root)
    assert len(workspace.agent_ids()) == 5
    proposal = list_proposals(workspace.agent("coder"))[0]
    assert proposal.operations[0].status == "pending"
    anchor = parse_ts(proposal.created_at)  # the demo's "now": this very minute, rounded down
    assert anchor.second == 0 and timedelta(0) <= utc_now() - anchor < timedelta(minutes=2)


def test_simulate_without_demo_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--simulate"]) == 2
    assert "--simulate needs --demo" in capsys.readouterr().err


def test_simulator_keeps_appending_turns(demo_ws: Path) -> None:
    workspace = Workspace.open(demo_ws)
    before = {a: len(workspace.agent(a).conversation_files()) for a in workspace.agent_ids()}
    stop = start_simulator(demo_ws, seed=3, clock=lambda: NOW, speed=200)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            now = {a: len(workspace.agent(a).conversation_files()) for a in workspace.agent_ids()}
            if now != before:
                break
            time.sleep(0.05)
    finally:
        stop()
    live = [p for a in workspace.agent_ids() for p in workspace.agent(a).conversation_files() if p.stem.startswith("live-")]
    assert live, "no live conversation was written"
    scan = AgentScan(workspace.agent(live[0].parent.parent.name), workspace.settings)
    scan.refresh()
    assert any(t.conversation == live[0].stem for t in scan.records())
