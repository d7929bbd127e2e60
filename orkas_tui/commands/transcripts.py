"""``orkas-tui import claude-code|codex ...`` and ``orkas-tui export claude-code|codex ...``."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from orkas_tui.commands.io import CliError, add_json, add_workspace, open_workspace, print_json
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import utc_now
from orkas_tui.core.read.workspace import AGENT_ID, AgentPaths, Workspace, resolve_root
from orkas_tui.core.store.export import ExportError, export_agent, listing_entry, plan_listing
from orkas_tui.core.store.first_run import display_path
from orkas_tui.core.store.scopes import all_scopes
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.store.standing import SkillStanding
from orkas_tui.importers.run import DEFAULT_SETTLE, FORMATS, default_sources, discover, import_files, refusal, select
from orkas_tui.importers.skills import SkillIndex
from orkas_tui.importers.watch import watch_import
from orkas_tui.importers.writer import OUTPUT_LIMIT, ImportStats

FORMAT_NAMES = sorted(FORMATS)


PROGRESS_FILES = 10  # a history of at least this many sessions shows its progress


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("import", help="import Claude Code or Codex sessions as an agent's conversations")
    parser.add_argument("format", choices=FORMAT_NAMES)
    parser.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="session files or folders searched recursively (default: ~/.claude/projects or ~/.codex/sessions)",
    )
    parser.add_argument("--agent", metavar="ID", help="the agent to import into, created if missing (default: the format's name)")
    parser.add_argument("--watch", action="store_true", help="keep importing as the agent writes (Ctrl-C stops)")
    parser.add_argument(
        "--settle",
        type=float,
        default=DEFAULT_SETTLE,
        metavar="SECONDS",
        help=f"end a session's last turn once its file is quiet this long (default {DEFAULT_SETTLE:g})",
    )
    parser.add_argument("--no-skills", action="store_true", help="do not import the skills Claude Code / Codex offered")
    add_workspace(parser)
    add_json(parser)
    parser.set_defaults(func=run_import)


def register_export(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("export", help="write an agent's skills and self notes where Claude Code or Codex reads them")
    parser.add_argument("format", choices=FORMAT_NAMES)
    parser.add_argument("agent", metavar="AGENT", nargs="?", help="the agent to export (default: the format's name)")
    parser.add_argument(
        "dest",
        metavar="DEST",
        nargs="?",
        help="skills folder, e.g. ~/.claude/skills or ~/.codex/skills (default: the agent's export_skills in orkas.toml)",
    )
    parser.add_argument(
        "--memory",
        metavar="FILE",
        help="CLAUDE.md / AGENTS.md to hold the notes block (default: the agent's export_memory in orkas.toml, else beside "
        "DEST when DEST is a 'skills' folder, else inside it)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite SKILL.md files edited since the last export")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print which skills fit the agent's listing budget and which are left out; write nothing",
    )
    add_workspace(parser)
    add_json(parser)
    parser.set_defaults(func=run_export)


def run_import(args: argparse.Namespace) -> int:
    """Check the sources first: nothing (no workspace, no agent) is created for a source that is refused."""
    agent = args.agent or args.format
    if not AGENT_ID.match(agent):
        raise CliError(f"not a valid agent id: {agent!r} (lowercase letters, digits, '-' and '_', 1-64 chars)")
    sources = [Path(s).expanduser() for s in args.sources] or default_sources(args.format)
    files, problems = _sessions(args.format, sources, bool(args.sources), args.watch)
    workspace = _workspace(args)
    paths = AgentPaths(workspace.agents_dir / agent)
    paths.conversations.mkdir(parents=True, exist_ok=True)
    index = None if args.no_skills else SkillIndex(paths, workspace.settings, args.format, Path.home(), utc_now())
    reported: list[bool] = []

    def report(stats: ImportStats) -> None:
        """The skills and the files left out are said once (with the first import of a --watch), not with every batch."""
        first = (index, problems) if not reported else (None, [])
        reported.append(True)
        if args.json:
            print_json(_doc(stats, *first))
        else:
            print(render(stats, paths, *first), flush=True)

    if args.watch:
        total = ImportStats()
        if not args.json:
            print(f"watching {', '.join(map(str, sources))} -> agent {agent} in {workspace.root} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            watch_import(paths, workspace.settings, args.format, sources, args.settle, report, index=index, total=total)
        print(
            f"stopped watching: {total.turns} turns, {total.tool_calls} tool calls imported into agent {agent}", file=sys.stderr
        )
        return 0
    stats = import_files(paths, workspace.settings, args.format, files, args.settle, index=index, progress=_progress(len(files)))
    report(stats)
    return 0


def _sessions(fmt: str, sources: list[Path], explicit: bool, watch: bool) -> tuple[list[Path], list[str]]:
    """The session files to import, and one line for each file left out; refuses (exit 2) when there are none."""
    label = FORMATS[fmt].LABEL
    missing = [str(s) for s in sources if not s.exists()]
    if len(missing) == len(sources):
        where = ", ".join(missing)
        raise CliError(f"no such file or folder: {where}" if explicit else f"no {label} sessions: {where} does not exist")
    for source in sources:
        if source.is_file():
            reason = refusal(fmt, source)
            if reason is not None:
                raise CliError(reason)
    files, refused = select(fmt, discover(fmt, sources))
    if not files and refused and not watch:
        raise CliError(
            refused[0]
            if len(refused) == 1
            else f"{refused[0]} (and {len(refused) - 1} more files that are not {label} transcripts)"
        )
    if not files and not watch:
        looked = ", ".join(str(s) for s in sources if s.exists())
        raise CliError(f"no {label} sessions in {looked} (looked for *.jsonl files); nothing imported")
    return files, [f"skipped {r}" for r in refused]


def _workspace(args: argparse.Namespace) -> Workspace:
    """The workspace, created (as ``demo`` does) when there is none yet."""
    root = resolve_root(getattr(args, "workspace", None))
    if not root.exists():
        (root / "agents").mkdir(parents=True)
        print(f"created workspace {root}", file=sys.stderr)
    return open_workspace(args)


def _progress(total: int) -> Callable[[int, int], None] | None:
    """A bar on stderr for a large history when it is a terminal; one quiet line otherwise."""
    if total < PROGRESS_FILES:
        return None
    if not sys.stderr.isatty():
        print(f"importing {total} session files...", file=sys.stderr)
        return None

    def draw(done: int, count: int) -> None:
        filled = done * 30 // count
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{count} sessions")
        if done == count:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return draw


def _doc(stats: ImportStats, index: SkillIndex | None, problems: list[str]) -> dict:
    doc = stats.to_json()
    doc["problems"] = problems + doc["problems"]
    doc["skills"] = index.result.to_json() if index is not None else None  # None: skills not imported, or already said
    return doc


def render(stats: ImportStats, paths: AgentPaths, index: SkillIndex | None = None, problems: Sequence[str] = ()) -> str:
    out = [
        f"{stats.files} files, {stats.lines} new lines -> agent {paths.id} ({paths.root}): {stats.turns} turns, {stats.tool_calls} tool calls, "
        f"{stats.real_errors} real and {stats.transient_errors} transient errors, {stats.interrupts} interrupts, "
        f"{stats.skill_reads} skill reads, {stats.corrections} rejections with feedback"
    ]
    if index is not None:
        skills = index.result
        out.append(
            f"skills: {len(skills.created)} imported, {len(skills.updated)} updated, {len(skills.unchanged)} unchanged"
            + (f", {len(skills.conflicts)} left alone" if skills.conflicts else "")
        )
        problems = [*problems, *skills.conflicts, *skills.problems]
    if stats.outputs_cut:
        out.append(f"{stats.outputs_cut} tool outputs longer than {OUTPUT_LIMIT:,} characters were cut to that length")
    skipped = [f"{stats.malformed} malformed lines"] if stats.malformed else []
    skipped += [f"{n} unknown {kind}" for kind, n in sorted(stats.unknown.items())]
    if skipped:
        out.append("not read: " + ", ".join(skipped))
    if stats.repeated:
        out.append(f"skipped {stats.repeated} records already imported (a resumed session repeats them)")
    if stats.skipped:
        out.append("skipped (no agent work): " + ", ".join(f"{n} {kind}" for kind, n in sorted(stats.skipped.items())))
    out += [f"! {p}" for p in [*problems, *stats.problems]]
    return "\n".join(out)


def run_export(args: argparse.Namespace) -> int:
    """AGENT and DEST given, or taken from the agent's link (``hooks install`` writes it): the same
    export an approve makes for a linked agent."""
    workspace = open_workspace(args)
    paths = workspace.agent(args.agent or args.format)
    link = workspace.settings.agents.get(paths.id)
    found = _standings(paths, workspace.settings)
    if args.dry_run:
        return _print_plan(paths, workspace.settings, args.format, args.json, found)
    dest = Path(args.dest) if args.dest else (link.export_skills if link else None)
    if dest is None:
        raise CliError(
            f"no DEST: give the skills folder, or link the agent ([agents.{paths.id}] export_skills in "
            f"{workspace.settings_path}; `orkas-tui hooks install {args.format}` writes it)"
        )
    memory = Path(args.memory) if args.memory else (link.export_memory if link and not args.dest else None)
    try:
        result = export_agent(paths, workspace.settings, args.format, dest, memory, args.force)
    except ExportError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print_json(result.to_json())
        return 1 if result.conflicts else 0
    print("\n".join(result.lines()))
    return 1 if result.conflicts else 0


def _standings(paths: AgentPaths, settings: Settings) -> dict[str, SkillStanding]:
    """Each skill's measured benefit and invocation rate, from a refreshed scan, saved for the export to rank by."""
    from orkas_tui.core.reflect.benefit import refresh_standings
    from orkas_tui.core.summary.scan import refreshed

    return refresh_standings(refreshed([(paths, None, None)], settings)[0])


def _print_plan(paths: AgentPaths, settings: Settings, target: str, as_json: bool, found: dict[str, SkillStanding]) -> int:
    """``export --dry-run``: the skills the export would write, within the listing budget, and those it would leave out."""
    skills, problems = SkillStore(paths, settings).load_all()
    budget = settings.listing_chars(target)
    kept, omitted = plan_listing(skills, budget, found)
    used = sum(listing_entry(skill) for skill in kept)
    scopes = all_scopes(paths, [skill.slug for skill in kept])
    into = {slug: scope.root for slug, scope in scopes.items() if scope.root is not None}
    if as_json:
        print_json(
            {
                "budget": budget,
                "used": used,
                "exported": [skill.slug for skill in kept],
                "into_repositories": {slug: str(root) for slug, root in into.items()},
                "omitted": [f"{skill.slug}: {why}" for skill, why in omitted],
                "problems": problems,
            }
        )
        return 0
    print(f"{len(kept)} skills fit the {target} listing ({used} of {budget} characters; [export] listing_chars_* in orkas.toml)")
    lines = [f"+ {skill.slug}" + (f" (into {display_path(into[skill.slug])})" if skill.slug in into else "") for skill in kept]
    print("\n".join(lines + [f"- {skill.slug}: {why}" for skill, why in omitted]))
    for problem in problems:
        print(f"! {problem}")
    return 0
