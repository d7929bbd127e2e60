"""Commands are imported only when chosen; the listing and the parsing stay the same."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from orkas_tui.cli import build_parser
from orkas_tui.commands import COMMANDS, chosen_command


def listing(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(a.dest, a.help) for a in sub._choices_actions]


def test_every_command_is_listed_with_its_modules_own_help_line() -> None:
    full = listing(build_parser([]))  # no command named: every module registers itself
    assert full == [(name, help_line) for name, (_, _, help_line) in COMMANDS.items()]
    for name in COMMANDS:
        assert listing(build_parser([name])) == full


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["status", "--json"], "status"),
        (["--workspace", "status", "queue"], "queue"),
        (["--workspace=x", "--demo"], None),
        (["--help"], None),
        (["nonsense", "status"], None),
    ],
)
def test_chosen_command(argv: list[str], expected: str | None) -> None:
    assert chosen_command(argv) == expected


def test_each_chosen_command_parses_as_with_every_module_loaded() -> None:
    argv = ["--workspace", "/w", "status", "--agent", "a", "--json"]
    assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser([]).parse_args(argv))


def test_status_does_not_import_the_other_commands() -> None:
    code = (
        "import sys; from orkas_tui.cli import build_parser; build_parser(['status', '--json']); "
        "print(sorted(m for m in sys.modules if m.startswith(('orkas_tui.commands.', 'orkas_tui.importers', 'watchfiles'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['orkas_tui.commands.io', 'orkas_tui.commands.status', 'orkas_tui.commands.status_json']"
