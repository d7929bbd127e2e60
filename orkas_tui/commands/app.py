"""No command: open the app. Until the TUI lands this prints the status table."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from orkas_tui.cli import open_workspace
from orkas_tui.commands.status import RECENT_TURNS, render_status, workspace_status
from orkas_tui.core.demo import write_demo
from orkas_tui.core.timefmt import utc_now


def run_app(args: argparse.Namespace) -> int:
    now = utc_now().replace(second=0)
    if args.demo:
        args.workspace = str(write_demo(Path(tempfile.mkdtemp(prefix="orkas-demo-")) / "workspace", anchor=now))
    workspace = open_workspace(args)
    print(render_status(workspace_status(workspace, now), RECENT_TURNS))
    return 0
