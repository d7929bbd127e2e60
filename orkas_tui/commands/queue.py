"""``orkas-tui queue``: who the next reflection cycle selects, and why each other agent waits."""

from __future__ import annotations

import argparse

from orkas_tui.commands.io import add_json, add_now, add_workspace, now_arg, open_workspace, print_json
from orkas_tui.commands.status import queue_phrase
from orkas_tui.core.reflect.queue import QueuePlan, workspace_queue
from orkas_tui.core.textfmt import table


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("queue", help="the next reflection cycle: selected agents and one reason for each other")
    add_workspace(parser)
    add_now(parser)
    add_json(parser)
    parser.set_defaults(func=run_queue)


def render_queue(plan: QueuePlan) -> str:
    doc = plan.to_json()
    out = [f"now {doc['now']}   last cycle {doc['last_cycle_at'] or 'never'}   next cycle {doc['next_cycle_at'] or 'none'}"]
    if plan.next_cycle_at is not None and plan.keepers is not None:
        out.append(f"run by {plan.keepers.text()}")
    elif plan.next_cycle_at is None:
        out.append(f"no next cycle: {plan.why_no_cycle} (by the schedule, due {doc['cycle_due_at']})")
    if plan.spent is not None:
        out.append(f"reflections cost {plan.spent.text()}" + (f"; {over}" if (over := plan.spent.over_reason()) else ""))
    if not doc["agents"]:
        return "\n".join([*out, "no agents yet"])
    rows = [
        (
            d["id"],
            queue_phrase(d).split(";")[0],
            f"{d['trigger_score']:g}",
            "yes" if d["pending_changes"] else "no",
            d["last_reflection_at"] or "never",
            d["cooldown_until"] or "-",
        )
        for d in doc["agents"]
    ]
    out.append(table(("agent", "decision", "score", "pending", "last reflection", "cooldown until"), rows, right=(2,)))
    return "\n".join(out)


def run_queue(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    plan = workspace_queue(workspace, now_arg(args.now))
    if args.json:
        print_json(plan.to_json())
    else:
        print(render_queue(plan))
    return 0
