"""Shared fixtures: real files in temp dirs, a fixed clock, no ambient workspace."""

from __future__ import annotations

import gc
import os
from datetime import datetime
from pathlib import Path

import pytest

from orkas_tui.core.read.timefmt import UTC
from orkas_tui.demo.workspace import DEFAULT_ANCHOR, write_demo

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Import litellm once, up front, and move it out of the garbage collector's way.

    litellm leaves ~370,000 long-lived objects that every full collection walks again (about
    0.4 s each, seconds on a busy machine). At the end of a run pytest collects five times
    after an xdist worker has reported done, and execnet interrupts a worker still busy 5 s
    later: that SIGINT surfaced as a KeyboardInterrupt traceback in hypothesis's gc callback.
    Frozen objects are never walked again, so those collections (and the ones during the
    run) are quick. The xdist controller runs no tests and skips it.
    """
    if session.config.getoption("numprocesses", None) and not hasattr(session.config, "workerinput"):
        return
    from orkas_tui.core.reflect.llm import preload

    env = dict(os.environ)
    preload()
    os.environ.clear()
    os.environ.update(env)  # preload's litellm switches are not left for subprocesses started by tests
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Collect once and freeze what is left before the worker reports done.

    The run leaves app and cache objects behind, and the app's own collector unfreezes
    what :func:`pytest_sessionstart` froze. pytest's closing collections happen after an
    xdist worker has reported done, inside execnet's 5 s grace; one collection here, before
    that report, and a freeze make those closing collections walk nothing.
    """
    gc.collect()
    gc.freeze()


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
