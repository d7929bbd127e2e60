"""``orkas-tui history AGENT`` and ``orkas-tui revert CHANGE_ID``: every applied change, and undo."""

from __future__ import annotations

import argparse

from orkas_tui.commands.io import add_json, add_now, add_workspace, now_arg, open_workspace, print_export, print_json
from orkas_tui.core.reflect.effects import measure_effects
from orkas_tui.core.store.changes import revert_change
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.summary.scan import refreshed
from orkas_tui.core.textfmt import table


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("history", help="every change applied to an agent's skills and notes")
    add_workspace(parser)
    parser.add_argument("agent", metavar="AGENT")
    add_json(parser)
    parser.set_defaults(func=run_history)

    parser = sub.add_parser("revert", help="undo one applied change (refused if the file changed since)")
    add_workspace(parser)
    parser.add_argument("change", metavar="CHANGE_ID")
    add_now(parser)
    add_json(parser)
    parser.set_defaults(func=run_revert)


def run_history(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    paths = workspace.agent(args.agent)
    changes = list_changes(paths)
    effects = measure_effects(refreshed([(paths, None, None)], workspace.settings)[0], changes) if changes else {}
    if args.json:
        print_json([{**c.to_json(), "effect": effects[c.id].to_json() if c.id in effects else None} for c in changes])
        return 0
    if not changes:
        print("no changes yet")
        return 0
    rows = [(c.id, c.at, c.action, c.target, c.by, c.proposal or "-", c.reverted_at or "") for c in changes]
    print(table(("change", "at", "action", "target", "by", "proposal", "reverted"), rows))
    window = workspace.settings.effect_window
    print(
        f"\neffect (before → after): the agent's corrections and real errors per real turn over the {window} "
        f"real turns before and after each change; a skill's rates over the {window} turns showing it"
    )
    for c in changes:
        effect = effects.get(c.id)
        if effect is None:  # a change whose time cannot be read
            print(f"{c.id}: -")
            continue
        print(f"{c.id} agent: {effect.agent.phrase()}")
        if effect.skill is not None:
            print(f"{c.id} skill {effect.skill.skill}: {effect.skill.phrase()}")
    return 0


def run_revert(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    change, export = revert_change(workspace, args.change, now_arg(args.now))
    if args.json:
        print_json({**change.to_json(), "export": export.to_json() if export is not None else None})
    else:
        print(f"reverted {change.id}: {change.action} {change.target}")
        print_export(workspace, change.agent, export)
    return 0
