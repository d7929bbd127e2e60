"""``orkas-tui hook claude-code|codex``: what the installed hooks run (importers/spool.py, importers/hook.py).

The installed command starts with ``hook``, which ``cli.main`` hands to the spool before
argparse or the core is imported; this parser serves ``--help`` and a ``hook`` placed
after the global options (``orkas-tui --workspace PATH hook ...``). It always exits 0 and
prints nothing on stdout: Claude Code reads a Stop hook's output.
"""

from __future__ import annotations

import argparse

from orkas_tui.commands.io import add_workspace


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("hook", help="run by Claude Code's and Codex's hooks: import the session that just ran")
    parser.add_argument("format", choices=["claude-code", "codex"])
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        help="--agent ID (default: the format's name), --workspace PATH (the hook's JSON comes on stdin; an "
        "earlier install's Codex notify passes its JSON last)",
    )
    add_workspace(parser)
    parser.set_defaults(func=run_hook)


def run_hook(args: argparse.Namespace) -> int:
    from orkas_tui.importers.spool import main

    workspace = getattr(args, "workspace", None)
    return main([args.format, *(["--workspace", workspace] if workspace else []), *args.options])
