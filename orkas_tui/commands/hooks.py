"""``orkas-tui hooks install|uninstall|status``: put the hooks in Claude Code's or Codex's settings, and see them."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from orkas_tui.commands.io import CliError, add_json, add_workspace, print_json
from orkas_tui.core.read.hook_log import read_log
from orkas_tui.core.read.workspace import AGENT_ID, AgentPaths, resolve_root
from orkas_tui.importers import codex_hooks
from orkas_tui.importers.hook_settings import (
    CLAUDE_TIMEOUTS,
    Edit,
    claude_install,
    claude_installed,
    claude_plugin,
    claude_settings_path,
    claude_uninstall,
    command_words,
    hook_words,
    link_agent,
)

FORMATS = ["claude-code", "codex"]
SHOWN = 5  # runs and problems listed by ``hooks status``


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("hooks", help="install, remove or show (the default) the hooks that import each session as it ends")
    add_workspace(parser)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    parser.set_defaults(func=run_status, settings=None, all=False, json=False)  # no action: status
    install = actions.add_parser("install", help="add orkas-tui's hooks to Claude Code's settings or Codex's hooks")
    install.add_argument("format", choices=FORMATS)
    install.add_argument("--agent", metavar="ID", help="the agent the hook imports into (default: the format's name)")
    install.add_argument("--settings", metavar="PATH", help="claude-code: the settings.json (default: ~/.claude/settings.json)")
    install.add_argument("--dry-run", action="store_true", help="print the changes as a diff; write nothing")
    add_workspace(install)
    install.set_defaults(func=run_install)
    uninstall = actions.add_parser("uninstall", help="remove exactly what install added (the agent link in orkas.toml stays)")
    uninstall.add_argument("format", choices=FORMATS)
    uninstall.add_argument("--settings", metavar="PATH", help="claude-code: the settings.json (default: ~/.claude/settings.json)")
    uninstall.add_argument("--dry-run", action="store_true", help="print the change as a diff; write nothing")
    uninstall.add_argument(
        "--purge",
        action="store_true",
        help="also remove the SKILL.md files and notes block exported for this format that nobody changed since",
    )
    add_workspace(uninstall)
    uninstall.set_defaults(func=run_uninstall)
    status = actions.add_parser("status", help="what is installed where, and the last hook runs and problems")
    status.add_argument("--settings", metavar="PATH", help="claude-code: the settings.json (default: ~/.claude/settings.json)")
    status.add_argument("--all", action="store_true", help=f"every run and problem the log holds, not the last {SHOWN}")
    add_workspace(status)
    add_json(status)
    status.set_defaults(func=run_status)


def _root(args: argparse.Namespace) -> Path:
    return Path(resolve_root(getattr(args, "workspace", None))).expanduser().absolute()


def _flag(root: Path) -> Path | None:
    """The hook names its workspace unless it is ``~/.orkas``: a session started from a desktop launcher has no ORKAS_HOME."""
    return None if root == Path.home() / ".orkas" else root


def run_install(args: argparse.Namespace) -> int:
    agent = args.agent or args.format
    if not AGENT_ID.match(agent):
        raise CliError(f"not a valid agent id: {agent!r} (lowercase letters, digits, '-' and '_', 1-64 chars)")
    root = _root(args)
    words = hook_words(args.format, agent, _flag(root))
    notes: list[str] = []
    if args.format == "claude-code":
        settings = claude_settings_path(args.settings)
        plugin = claude_plugin(settings)
        if plugin:  # its hooks run `orkas-tui hook claude-code` already: settings hooks would run each one twice
            edits: list[Edit] = []
            notes.append(f"not added: plugin {plugin} is enabled in {settings} and runs the hooks already")
            if agent != args.format:
                notes.append(f"note: the plugin's hooks import into agent {args.format}, not {agent}")
        else:
            edits = [claude_install(settings, shlex.join(words))]
    else:
        before = codex_hooks.installed()
        edits = codex_hooks.install(words)
        if before["notify"]:
            notes.append(f"migrated: orkas-tui's notify line removed from {codex_hooks.config_path()}; the hooks replace it")
        theirs = codex_hooks.someone_elses_notify()
        if theirs is not None:
            notes.append(f"kept: notify = {theirs!r} in {codex_hooks.config_path()} (not orkas-tui's; Codex still runs it)")
    link = link_agent(root, agent, args.format)
    if args.dry_run:
        diff = "".join(edit.diff() for edit in [*edits, link])
        print(diff or "nothing to change", end="" if diff else "\n")
        return 0
    if not root.exists():
        print(f"created workspace {root}")
    AgentPaths(root / "agents" / agent).conversations.mkdir(parents=True, exist_ok=True)
    for edit in edits:
        edit.write(root / ".orkas")
    link.write(root / ".orkas")
    if edits:
        where = _hooks_file(args.format, edits)
        changed = any(edit.changed for edit in edits)
        print(f"{'installed' if changed else 'already installed'}: {_events(args.format)} hooks in {where}: {' '.join(words)}")
    for note in notes:
        print(note)
    if args.format == "codex" and any(edit.changed for edit in edits):
        print("Codex runs a new or changed hook only once you trust it: open /hooks in Codex and trust these three")
    print(f"agent link: [agents.{agent}] in {link.path}" + (" added" if link.changed else " kept as it is"))
    return 0


def _events(fmt: str) -> str:
    names = list(CLAUDE_TIMEOUTS if fmt == "claude-code" else codex_hooks.EVENTS)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _hooks_file(fmt: str, edits: list[Edit]) -> Path:
    """The file the hooks are in: Codex's ``hooks.json`` when it takes them, else the one edited."""
    return edits[-1].path if fmt == "codex" else edits[0].path


def run_uninstall(args: argparse.Namespace) -> int:
    root = _root(args)
    if args.format == "claude-code":
        edits = [claude_uninstall(claude_settings_path(args.settings))]
    else:
        edits = codex_hooks.uninstall()
    if args.dry_run:
        diff = "".join(edit.diff() for edit in edits)
        print(diff or "nothing to change", end="" if diff else "\n")
        return _purge(root, args.format, dry_run=True) if args.purge else 0
    for edit in edits:
        edit.write(root / ".orkas" if root.exists() else edit.path.parent)
        if edit.changed:
            print(f"removed: orkas-tui's {args.format} hooks from {edit.path}")
    if not any(edit.changed for edit in edits):
        print(f"not installed: no orkas-tui {args.format} hooks in {', '.join(str(edit.path) for edit in edits)}")
    if args.format == "claude-code" and (plugin := claude_plugin(claude_settings_path(args.settings))):
        print(f"still enabled: plugin {plugin} (it runs the hooks too; /plugin uninstall {plugin} in Claude Code removes it)")
    if args.purge:
        _purge(root, args.format, dry_run=False)
    print(f"kept: [agents.*] in {root / 'orkas.toml'} (approved changes are still exported there; delete the table to stop)")
    return 0


def _purge(root: Path, fmt: str, dry_run: bool) -> int:
    """``--purge``: what orkas-tui exported for ``fmt`` and nobody changed since goes; the rest is listed."""
    from orkas_tui.core.read.workspace import Workspace
    from orkas_tui.core.store.purge import purge_workspace

    if not (root / "agents").is_dir():
        return 0
    results = purge_workspace(Workspace(root), fmt, dry_run)
    for agent, result in results.items():
        for line in result.lines(dry_run):
            print(f"{agent}: {line}")
    if not results:
        print(f"nothing exported for {fmt} to remove")
    return 0


def run_status(args: argparse.Namespace) -> int:
    root = _root(args)
    shown = None if args.all else SHOWN
    tools = {fmt: _status(fmt, root, args.settings, shown) for fmt in FORMATS}
    problems = [e for _, e in read_log(root / ".orkas")]
    listed = _last(problems, shown)
    if args.json:
        print_json({**tools, "workspace_problems": listed, "workspace_problems_total": len(problems)})
        return 0
    for fmt in FORMATS:
        item = tools[fmt]
        print(f"{fmt}: {'installed' if item['installed'] else 'not installed'} in {item['file']}")
        for via in item["via"]:
            print(f"  via {via}")
        for command in item["commands"]:
            print(f"  {command}")
        for warning in item["warnings"]:
            print(f"  ! {warning}")
        if item["installed"]:
            print(f"  agent {item['agent']} in workspace {item['workspace']}")
            for entry in item["last_runs"]:
                turns, lines = entry.get("turns", 0), entry.get("lines", 0)
                print(
                    f"  run {entry.get('ts')}: {turns} turn{'' if turns == 1 else 's'}, "
                    f"{lines} line{'' if lines == 1 else 's'} from {entry.get('session')}"
                )
            _more("  ", len(item["last_runs"]), item["runs_total"], "runs")
            for entry in item["problems"]:
                print(f"  ! {entry.get('ts')} {entry.get('type')}: {entry.get('message')}")
            _more("  ", len(item["problems"]), item["problems_total"], "problems")
    for entry in listed:
        print(f"! {entry.get('ts')} {entry.get('type')}: {entry.get('message')}")
    _more("", len(listed), len(problems), "problems")
    return 0


def _last(entries: list[dict], shown: int | None) -> list[dict]:
    return entries if shown is None else entries[-shown:]


def _more(indent: str, listed: int, total: int, what: str) -> None:
    """Says a list is cut, and how to see it whole."""
    if listed < total:
        print(f"{indent}{listed} of {total} {what} listed (the newest); --all lists every one")


def _status(fmt: str, root: Path, settings: str | None, shown: int | None) -> dict:
    via, warnings = [], []
    if fmt == "claude-code":
        path = Path(claude_settings_path(settings))
        commands = claude_installed(path)
        plugin = claude_plugin(path)
        via += ["hooks in settings.json"] if commands else []
        via += [f"plugin {plugin}"] if plugin else []
        if commands and plugin:
            warnings.append("the plugin and the settings hooks both run: each hook runs twice; keep one")
        if plugin and not commands:
            commands = [f"{event} (plugin): orkas-tui hook claude-code" for event in CLAUDE_TIMEOUTS]
    else:
        found = codex_hooks.installed()
        path = codex_hooks.hooks_json_path() if found["hooks.json"] else codex_hooks.config_path()
        commands = [*found["config.toml"], *found["hooks.json"], *(f"notify: {c}" for c in found["notify"])]
        via += [f"hooks in {name}" for name in ("config.toml", "hooks.json") if found[name]]
        if found["notify"]:
            via.append("notify (an earlier install's; `orkas-tui hooks install codex` moves it to hooks)")
        if len(via) > 1:
            warnings.append("more than one of these runs orkas-tui's hook: each runs twice; `hooks install codex` keeps one")
    words = command_words(commands[0].split(": ", 1)[1]) if commands else []
    agent, workspace = _option(words, "--agent") or fmt, Path(_option(words, "--workspace") or root)
    entries = [e for _, e in read_log(workspace / "agents" / agent / ".orkas")] if commands and AGENT_ID.match(agent) else []
    runs = [e for e in entries if e.get("type") == "hook_imported"]
    problems = [e for e in entries if e.get("type") != "hook_imported"]
    return {
        "file": str(path),
        "installed": bool(commands),
        "via": via,
        "commands": commands,
        "warnings": warnings,
        "agent": agent if commands else None,
        "workspace": str(workspace) if commands else None,
        "last_runs": _last(runs, shown),
        "runs_total": len(runs),
        "problems": _last(problems, shown),
        "problems_total": len(problems),
    }


def _option(words: list[str], name: str) -> str | None:
    return words[words.index(name) + 1] if name in words[:-1] else None
