"""What every command shares: workspace, --now and --json options, one-line errors, JSON out."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, BinaryIO

import orjson

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.timefmt import parse_ts, utc_now
from orkas_tui.core.read.workspace import Workspace

if TYPE_CHECKING:
    from orkas_tui.core.store.export import ExportResult


class CliError(OrkasError, RuntimeError):
    """A problem to report on one line, with exit status 2."""


def now_arg(value: str | None) -> datetime:
    if value is None:
        return utc_now()
    moment = parse_ts(value)
    if moment is None:
        raise CliError(f"--now: not an RFC 3339 time: {value!r}")
    return moment


def open_workspace(args: argparse.Namespace) -> Workspace:
    workspace = Workspace.open(getattr(args, "workspace", None))
    warn_settings(workspace)  # loads them now, so a bad orkas.toml fails before any work
    return workspace


def print_export(workspace: Workspace, agent: str, export: ExportResult | None) -> None:
    """The export that followed an approve or a revert (nothing when the agent is not linked)."""
    if export is None:
        return
    from orkas_tui.core.store.export import way_out  # only approve and revert print one

    link = workspace.settings.agents[agent]
    print(f"exported to {link.export_skills}:")
    for line in export.lines(way_out(agent, link)):
        print(f"  {line}")


def warn_settings(workspace: Workspace) -> None:
    """Name each unknown key or table of orkas.toml on stderr, one line each."""
    for warning in workspace.settings_warnings:
        print(f"orkas-tui: warning: {warning}", file=sys.stderr)


def print_json(value: object) -> None:
    """Indented UTF-8 JSON, the same document ``json.dump(indent=2, ensure_ascii=False)`` writes, much faster."""
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    write_json(lambda out: out.write(data + b"\n"))


def write_json(write: Callable[[BinaryIO], object]) -> None:
    """Let ``write`` put UTF-8 bytes on stdout (through a text stream that has no bytes buffer, e.g. replaced)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        collected = io.BytesIO()
        write(collected)
        sys.stdout.write(collected.getvalue().decode())
        return
    sys.stdout.flush()
    write(buffer)
    buffer.flush()


def add_workspace(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's own --workspace must not reset one given before the subcommand
    parser.add_argument(
        "--workspace", metavar="PATH", default=argparse.SUPPRESS, help="workspace root (default: $ORKAS_HOME, else ~/.orkas)"
    )


def add_now(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--now", metavar="RFC3339", help="evaluate as if it were this time (UTC)")


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
