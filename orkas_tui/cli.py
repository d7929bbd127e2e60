"""Command line: each command is a thin call into the core; text or ``--json`` out.

``orkas-tui hook ...``, what Claude Code and Codex run after every answer, is handed to
:mod:`orkas_tui.importers.spool` before argparse or the core is imported (a hook's time is
added to each turn), so this module imports nothing else at its top.

An error a person can act on (:class:`~orkas_tui.core.errors.OrkasError`, or the
system's ``OSError``) is one line on stderr and exit 2. Anything else is a bug: its
traceback is shown, with a line asking for a report, and the exit is 70 (EX_SOFTWARE).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing's own costs a hook 5 ms; type checkers read this name the same way
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

BUG_EXIT = 70  # sysexits' EX_SOFTWARE: not the user's input, orkas-tui's own fault


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given ``argv``, only the command it names is imported (the others are listed by name)."""
    import argparse

    from orkas_tui.commands import chosen_command, register_commands
    from orkas_tui.commands.io import add_workspace

    parser = argparse.ArgumentParser(
        prog="orkas-tui",
        description="See and steer a local, self-improving agent. With no command, opens the app.",
    )
    add_workspace(parser)
    parser.set_defaults(workspace=None)
    parser.add_argument("--demo", action="store_true", help="open the app on a freshly generated demo workspace")
    parser.add_argument("--simulate", action="store_true", help="with --demo: keep appending realistic turns")
    parser.add_argument(
        "--init",
        action="store_true",
        help="create the workspace (an empty agents/ and a commented orkas.toml) if it does not exist, then open it",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register_commands(sub, chosen_command(list(sys.argv[1:] if argv is None else argv)))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["hook"] and not {"-h", "--help"} & set(words):
        from orkas_tui.importers.spool import main as hook

        return hook(words[1:])
    import traceback

    from orkas_tui.core.errors import OrkasError

    parser = build_parser(argv)
    args = parser.parse_args(argv)
    handler = getattr(args, "func", None)
    if handler is None:
        from orkas_tui.commands.app import run_app

        handler = run_app
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except (OrkasError, OSError) as exc:
        print(f"orkas-tui: {exc}", file=sys.stderr)
        return 2
    except Exception:
        traceback.print_exc()
        print(
            "orkas-tui: this is a bug in orkas-tui, not a problem with your files: "
            "please report it to the orkas-tui issue tracker with the traceback above and the command you ran",
            file=sys.stderr,
        )
        return BUG_EXIT


if __name__ == "__main__":
    sys.exit(main())
