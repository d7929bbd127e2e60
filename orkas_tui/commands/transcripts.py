"""``orkas-tui import claude-code|codex ...`` and ``orkas-tui export claude-code|codex ...``."""

from __future__ import annotations

import argparse
from pathlib import Path

from orkas_tui.cli import CliError, add_json, add_workspace, open_workspace, print_json
from orkas_tui.core.workspace import AGENT_ID, AgentPaths
from orkas_tui.importers.export import ExportError, export_agent
from orkas_tui.importers.run import DEFAULT_SETTLE, FORMATS, default_sources, discover, import_files
from orkas_tui.importers.watch import watch_import
from orkas_tui.importers.writer import ImportStats

FORMAT_NAMES = sorted(FORMATS)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("import", help="import Claude Code or Codex sessions as an agent's conversations")
    parser.add_argument("format", choices=FORMAT_NAMES)
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="session files or folders searched recursively (default: ~/.claude/projects or ~/.codex/sessions)")
    parser.add_argument("--agent", required=True, metavar="ID", help="the agent to import into (created if missing)")
    parser.add_argument("--watch", action="store_true", help="keep importing as the agent writes (Ctrl-C stops)")
    parser.add_argument("--settle", type=float, default=DEFAULT_SETTLE, metavar="SECONDS",
                        help=f"end a session's last turn once its file is quiet this long (default {DEFAULT_SETTLE:g})")
    add_workspace(parser)
    add_json(parser)
    parser.set_defaults(func=run_import)


def register_export(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("export", help="write an agent's skills and self notes where Claude Code or Codex reads them")
    parser.add_argument("format", choices=FORMAT_NAMES)
    parser.add_argument("agent", metavar="AGENT")
    parser.add_argument("dest", metavar="DEST", help="skills folder, e.g. ~/.claude/skills or ~/.codex/skills")
    parser.add_argument("--memory", metavar="FILE", help="CLAUDE.md / AGENTS.md to hold the notes block (default: beside DEST when DEST is a 'skills' folder, else inside it)")
    parser.add_argument("--force", action="store_true", help="overwrite SKILL.md files edited since the last export")
    add_workspace(parser)
    add_json(parser)
    parser.set_defaults(func=run_export)


def run_import(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    if not AGENT_ID.match(args.agent):
        raise CliError(f"not a valid agent id: {args.agent!r} (lowercase letters, digits, '-' and '_', 1-64 chars)")
    paths = AgentPaths(workspace.agents_dir / args.agent)
    paths.conversations.mkdir(parents=True, exist_ok=True)
    sources = [Path(s).expanduser() for s in args.sources] or default_sources(args.format)
    missing = [str(s) for s in sources if not s.exists()]
    if missing and len(missing) == len(sources):
        raise CliError(f"no such file or folder: {', '.join(missing)}")
    report = (lambda stats: print_json(stats.to_json())) if args.json else (lambda stats: print(render(stats, paths)))
    if args.watch:
        if not args.json:
            print(f"watching {', '.join(map(str, sources))} (Ctrl-C stops)")
        watch_import(paths, workspace.settings, args.format, sources, args.settle, report)
        return 0
    stats = import_files(paths, workspace.settings, args.format, discover(args.format, sources), args.settle)
    report(stats)
    return 0


def render(stats: ImportStats, paths: AgentPaths) -> str:
    out = [
        f"{stats.files} files, {stats.lines} new lines -> agent {paths.id}: {stats.turns} turns, {stats.tool_calls} tool calls, "
        f"{stats.real_errors} real and {stats.transient_errors} transient errors, {stats.interrupts} interrupts, "
        f"{stats.skill_reads} skill reads, {stats.corrections} rejections with feedback"
    ]
    skipped = [f"{stats.malformed} malformed"] if stats.malformed else []
    skipped += [f"{n} {kind}" for kind, n in sorted(stats.unknown.items())]
    if stats.sidechain:
        skipped.append(f"{stats.sidechain} inline subagent (sidechain) records")
    if stats.outside_turn:
        skipped.append(f"{stats.outside_turn} events outside any turn")
    if skipped:
        out.append("skipped: " + ", ".join(skipped))
    out += [f"! {p}" for p in stats.problems]
    return "\n".join(out)


def run_export(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    paths = workspace.agent(args.agent)
    try:
        result = export_agent(paths, workspace.settings, args.format, Path(args.dest),
                              Path(args.memory) if args.memory else None, args.force)
    except ExportError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print_json(result.to_json())
        return 1 if result.conflicts else 0
    print(f"{len(result.written)} skills written, {len(result.unchanged)} unchanged; notes block {result.memory_status} in {result.memory}")
    for path in result.conflicts:
        print(f"! {path} was edited since the last export; left as is (--force overwrites)")
    for path in result.stale:
        print(f"- {path}: its skill no longer exists; not deleted")
    for problem in result.problems:
        print(f"! {problem}")
    return 1 if result.conflicts else 0
