"""``orkas-tui`` with no command: open the app on a workspace, the demo, or the simulated demo."""

from __future__ import annotations

import argparse
import tempfile
from datetime import timedelta
from pathlib import Path

from orkas_tui.cli import warn_settings
from orkas_tui.core.demo import write_demo
from orkas_tui.core.timefmt import utc_now
from orkas_tui.core.workspace import Workspace


def demo_root(base: Path) -> Path:
    """A fresh demo workspace whose 'now' is this minute, so its ages look live."""
    from orkas_tui.tui.demo_proposal import add_demo_proposal

    now = utc_now()
    anchor = now - timedelta(seconds=now.second)
    root = write_demo(base / "orkas-demo", anchor=anchor)
    add_demo_proposal(root, anchor)
    return root


def run_app(args: argparse.Namespace) -> int:
    from orkas_tui.tui.app import make_app

    if args.simulate and not args.demo:
        raise ValueError("--simulate needs --demo (it appends made-up turns to the demo workspace)")
    if not args.demo:
        make_app(workspace=_open(args.workspace)).run()
        return 0
    with tempfile.TemporaryDirectory(prefix="orkas-demo-") as base:
        root = demo_root(Path(base))
        app = make_app(root)
        if args.simulate:
            from orkas_tui.tui.simulate import start_simulator

            stop = start_simulator(root)
            try:
                app.run()
            finally:
                stop()
        else:
            app.run()
        print(f"the demo workspace was {root} (removed)")
    return 0


def _open(explicit: str | None) -> Workspace:
    workspace = Workspace.open(explicit)
    warn_settings(workspace)  # a bad orkas.toml fails here, on one line, before the screen opens
    return workspace
