"""``orkas-tui demo PATH [--seed N]``: write the demo workspace."""

from __future__ import annotations

import argparse
from pathlib import Path

from orkas_tui.commands.io import CliError, now_arg
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.demo.workspace import DEFAULT_ANCHOR, write_demo


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="write a realistic demo workspace to PATH")
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--seed", type=int, default=7, help="same seed, same bytes (default 7)")
    parser.add_argument(
        "--anchor",
        metavar="RFC3339",
        default=format_ts(DEFAULT_ANCHOR),
        help=f"the demo's 'now': its last activity is just before this (default {format_ts(DEFAULT_ANCHOR)})",
    )
    parser.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    try:
        root = write_demo(Path(args.path).expanduser(), seed=args.seed, anchor=now_arg(args.anchor))
    except FileExistsError as exc:
        raise CliError(str(exc)) from exc
    print(f"demo workspace written to {root}")
    print(f"try: orkas-tui --workspace {root}   or   orkas-tui status --workspace {root} --now {args.anchor}")
    return 0
