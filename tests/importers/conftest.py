"""Fixtures for the importers: the vendored real transcripts and a fresh workspace with one agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_tui.core.read.workspace import AgentPaths, Workspace
from scripts.error_corpus import unpack

BIG_SESSION = "claude-code/marot-spotter__8463c716/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
# the samples of shared/samples (other tests' figures were counted on these); the rest test the importers' formats
SHARED = {
    "claude-code": [
        "claude-code/marot-spotter__short.jsonl",
        "claude-code/marot-spotter__tool_heavy.jsonl",
        "claude-code/marot-spotter__8463c716",
    ],
    "codex": ["codex/AcidicSoil-codex-session-view__rollout-2025-11-17T15-30-28-019a93b9.jsonl"],
}


@pytest.fixture(scope="session")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tests/data/samples`` in the real on-disk layout, ``*.jsonl.gz`` unpacked (read-only: tests copy before changing)."""
    root = tmp_path_factory.mktemp("samples")
    unpack(root)  # the same unpacking the error corpus is built from
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "agents" / "coder").mkdir(parents=True)
    return Workspace(root)


@pytest.fixture
def agent(workspace: Workspace) -> AgentPaths:
    return workspace.agent("coder")
