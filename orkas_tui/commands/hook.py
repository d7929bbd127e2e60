"""``orkas-tui hook claude-code|codex``: what the installed hooks run after each turn (see importers/hook.py).

It always exits 0 and prints nothing on stdout: Claude Code reads a Stop hook's output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orkas_tui.commands.io import add_workspace
from orkas_tui.core.read.workspace import resolve_root


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("hook", help="run by Claude Code's hooks and Codex's notify: import the session that just ran")
    parser.add_argument("format", choices=["claude-code", "codex"])
    parser.add_argument("payload", nargs="*", help="codex: the notify JSON (Claude Code gives its JSON on stdin)")
    parser.add_argument("--agent", metavar="ID", help="the agent to import into (default: the format's name)")
    add_workspace(parser)
    parser.set_defaults(func=run_hook)


def run_hook(args: argparse.Namespace) -> int:
    from orkas_tui.importers import hook

    root = Path(resolve_root(getattr(args, "workspace", None))).absolute()
    agent = args.agent or args.format
    if args.format == "codex":
        hook.run_codex(root, agent, args.payload[-1] if args.payload else None)
    else:
        hook.run_claude_code(root, agent, _stdin())
    return 0


def _stdin() -> bytes:
    """The hook's JSON; nothing when stdin is a terminal (run by hand) or closed, so it never waits."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None or sys.stdin.isatty():
        return b""
    try:
        return stream.read(1 << 20)
    except OSError:
        return b""
