"""``orkas-tui`` with no command: open the app on a workspace, the demo, or the simulated demo."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from orkas_tui.commands.io import CliError
from orkas_tui.core.read.timefmt import utc_now
from orkas_tui.core.read.workspace import Workspace, WorkspaceError, resolve_root
from orkas_tui.core.store.first_run import create_workspace
from orkas_tui.demo.workspace import write_demo


def demo_root(base: Path) -> Path:
    """A fresh demo workspace whose 'now' is this minute, so its ages look live."""
    from orkas_tui.demo.proposal import add_demo_proposal

    now = utc_now()
    anchor = now - timedelta(seconds=now.second)
    root = write_demo(base / "orkas-demo", anchor=anchor)
    add_demo_proposal(root, anchor)
    return root


def run_app(args: argparse.Namespace) -> int:
    from orkas_tui.tui.app import make_app

    if args.simulate and not args.demo:
        raise CliError("--simulate needs --demo (it appends made-up turns to the demo workspace)")
    if not args.demo:
        make_app(workspace=open_or_create(args.workspace, args.init, _ask_on_terminal)).run()
        return 0
    with tempfile.TemporaryDirectory(prefix="orkas-demo-") as base:
        root = demo_root(Path(base))
        app = make_app(root, demo=True)
        if args.simulate:
            from orkas_tui.demo.simulate import start_simulator

            stop = start_simulator(root)
            try:
                app.run()
            finally:
                stop()
        else:
            app.run()
        print(f"the demo workspace was {root} (removed)")
    return 0


def open_or_create(explicit: str | None, create: bool, ask: Callable[[Path], bool]) -> Workspace:
    """The workspace to open; a missing one is created when ``create`` (``--init``) or when ``ask`` says yes."""
    root = resolve_root(explicit)
    if not root.exists() and (create or ask(root)):
        create_workspace(root)
        print(f"created the workspace {root}", file=sys.stderr)
    elif not root.is_dir():
        raise WorkspaceError(
            f"no workspace at {root} (run `orkas-tui --init` to create it, or pass --workspace PATH / set ORKAS_HOME)"
        )
    workspace = Workspace.open(root)
    workspace.settings  # noqa: B018 - a bad orkas.toml fails here, on one line, before the screen opens
    return workspace


def _ask_on_terminal(root: Path) -> bool:
    """Ask on a terminal; with no terminal (a script, a pipe) the answer is no, and the error names ``--init``."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    try:
        answer = input(f"No orkas-tui workspace at {root} yet. Create it now? [Y/n] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("", "y", "yes")
