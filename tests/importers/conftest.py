"""Fixtures for the importers: the shared real transcripts and a fresh workspace with one agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_tui.core.workspace import AgentPaths, Workspace

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"


@pytest.fixture
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(f"shared sample transcripts not found at {SAMPLES} (CI keeps a copy of shared/ beside the repo)")
    return SAMPLES


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "agents" / "coder").mkdir(parents=True)
    return Workspace(root)


@pytest.fixture
def agent(workspace: Workspace) -> AgentPaths:
    return workspace.agent("coder")
