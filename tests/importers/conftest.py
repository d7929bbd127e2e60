"""Fixtures for the importers: the vendored real transcripts and a fresh workspace with one agent."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from orkas_tui.core.read.workspace import AgentPaths, Workspace

DATA = Path(__file__).resolve().parents[1] / "data" / "samples"
BIG_SESSION = "claude-code/marot-spotter__8463c716/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"


@pytest.fixture(scope="session")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tests/data/samples`` in the real on-disk layout, ``*.jsonl.gz`` unpacked (read-only: tests copy before changing)."""
    root = tmp_path_factory.mktemp("samples")
    for source in sorted(DATA.rglob("*")):
        if not source.is_file() or source.name == "README.md":
            continue
        target = root / source.relative_to(DATA)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".gz":
            with gzip.open(source, "rb") as packed, open(target.with_suffix(""), "wb") as out:
                shutil.copyfileobj(packed, out)
        else:
            shutil.copyfile(source, target)
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "agents" / "coder").mkdir(parents=True)
    return Workspace(root)


@pytest.fixture
def agent(workspace: Workspace) -> AgentPaths:
    return workspace.agent("coder")
