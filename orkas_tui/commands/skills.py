"""``orkas-tui skills [--agent AGENT]``: each skill and where it is exported; ``skills scope``: a person sets that."""

from __future__ import annotations

import argparse
from pathlib import Path

from orkas_tui.commands.io import add_json, add_now, add_workspace, now_arg, open_workspace, print_export, print_json
from orkas_tui.core.store.export import rescope
from orkas_tui.core.store.first_run import display_path
from orkas_tui.core.store.scopes import GLOBAL, LEARNED, REPO, all_scopes
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.textfmt import table


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("skills", help="each skill and its scope: one repository, or global")
    add_workspace(parser)
    parser.add_argument("--agent", metavar="AGENT", help="only this agent")
    add_json(parser)
    parser.set_defaults(func=run_list)
    verbs = parser.add_subparsers(dest="verb", metavar="scope")
    scope = verbs.add_parser("scope", help="set where a skill is exported: global, repo PATH, or learned (what its lessons say)")
    add_workspace(scope)
    scope.add_argument("agent", metavar="AGENT")
    scope.add_argument("slug", metavar="SLUG")
    scope.add_argument("choice", choices=(GLOBAL, REPO, LEARNED))
    scope.add_argument("path", metavar="PATH", nargs="?", type=Path, help="with repo: a folder in the repository")
    add_now(scope)
    add_json(scope)
    scope.set_defaults(func=run_scope)


def run_list(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    agents = [args.agent] if args.agent else workspace.agent_ids()
    listed = {}
    for agent in agents:
        paths = workspace.agent(agent)
        skills = SkillStore(paths, workspace.settings).load_all()[0]
        scopes = all_scopes(paths, [skill.slug for skill in skills])
        listed[agent] = [(skill, scopes[skill.slug]) for skill in skills]
    if args.json:
        print_json(
            {
                agent: [{"slug": skill.slug, "name": skill.name, **scope.to_json()} for skill, scope in rows]
                for agent, rows in listed.items()
            }
        )
        return 0
    for agent, rows in listed.items():
        print(f"{agent}: {len(rows)} skills")
        if rows:
            cells = [
                (
                    skill.slug,
                    display_path(scope.root) if scope.root is not None else GLOBAL,
                    ", ".join(scope.paths) or "every file",
                    scope.why,
                )
                for skill, scope in rows
            ]
            print(table(("skill", "scope", "files", "why"), cells))
    return 0


def run_scope(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    paths = workspace.agent(args.agent)
    scope, export = rescope(paths, workspace.settings, args.slug, args.choice, args.path, now_arg(args.now))
    if args.json:
        print_json({"slug": args.slug, **scope.to_json(), "export": export.to_json() if export is not None else None})
        return 0
    print(f"{args.slug}: {scope.label} ({scope.why})")
    print_export(workspace, args.agent, export)
    return 0
