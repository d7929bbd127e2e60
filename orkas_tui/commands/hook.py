"""``orkas-tui hook claude-code|codex``: what the installed hooks run after each turn (see importers/hook.py).

It always exits 0 and prints nothing on stdout: Claude Code reads a Stop hook's output.
Its options are parsed here, after the format, so that Codex's JSON argument, appended
after ``--agent ID``, is read wherever it lands; a bad option is logged, not shown.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orkas_tui.commands.io import add_workspace
from orkas_tui.core.read.workspace import resolve_root


class _Options(argparse.ArgumentParser):
    def error(self, message: str):  # never print usage into the session
        raise ValueError(message)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("hook", help="run by Claude Code's hooks and Codex's notify: import the session that just ran")
    parser.add_argument("format", choices=["claude-code", "codex"])
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        help="--agent ID (default: the format's name), --workspace PATH; codex: its notify JSON",
    )
    add_workspace(parser)
    parser.set_defaults(func=run_hook)


def _parse(options: list[str]) -> argparse.Namespace:
    inner = _Options(prog="orkas-tui hook", add_help=False)
    inner.add_argument("--agent")
    inner.add_argument("--workspace")
    inner.add_argument("payload", nargs="*")
    return inner.parse_intermixed_args(options)


def run_hook(args: argparse.Namespace) -> int:
    from orkas_tui.importers import hook

    try:
        parsed = _parse(args.options)
    except ValueError as exc:
        hook.log_refusal(Path(resolve_root(getattr(args, "workspace", None))).absolute(), args.format, f"bad hook options: {exc}")
        return 0
    root = Path(resolve_root(parsed.workspace or getattr(args, "workspace", None))).absolute()
    agent = parsed.agent or args.format
    if args.format == "codex":
        hook.run_codex(root, agent, parsed.payload[-1] if parsed.payload else None)
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
