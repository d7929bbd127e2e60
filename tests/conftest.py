"""Shared fixtures: real files in temp dirs, a fixed clock, no ambient workspace."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from orkas_tui.core.read.timefmt import UTC
from orkas_tui.demo.workspace import DEFAULT_ANCHOR, write_demo

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test may read the developer's real ~/.orkas or model keys."""
    monkeypatch.delenv("ORKAS_HOME", raising=False)
    monkeypatch.delenv("ORKAS_MODEL", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo(tmp_path_factory.mktemp("demo-template") / "ws", seed=7, anchor=DEFAULT_ANCHOR)


@pytest.fixture
def demo_ws(demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo workspace (anchor = NOW)."""
    import shutil

    target = tmp_path / "demo"
    shutil.copytree(demo_template, target)
    return target
