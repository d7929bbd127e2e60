"""``orkas-tui status`` and ``orkas-tui prompt``."""

from __future__ import annotations

import argparse
import sys

from orkas_tui.commands.io import CliError, add_json, add_now, add_workspace, now_arg, open_workspace, write_json
from orkas_tui.commands.status_json import write_status
from orkas_tui.core.picture import workspace_status
from orkas_tui.core.store.notes import SelfNotes, prompt_block
from orkas_tui.core.store.recovery import recover_workspace
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.scan import collector_paused, usable_cpus
from orkas_tui.core.textfmt import rate, table

RECENT_TURNS = 10
RECENT_REFLECTIONS_SHOWN = 3  # in the text status


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("status", help="turn scores, triggers and skill metrics per agent")
    add_workspace(parser)
    parser.add_argument("--agent", metavar="ID", help="only this agent")
    parser.add_argument("--all-turns", action="store_true", help="list every turn, not the newest 10 (text and --json)")
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        default=None,
        help="processes for a cold scan of several agents (default: the CPUs this process may use)",
    )
    add_now(parser)
    add_json(parser)
    parser.set_defaults(func=run_status)


def register_prompt(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("prompt", help="the system-prompt block: self notes and the skill index")
    add_workspace(parser)
    parser.add_argument("agent", metavar="AGENT")
    parser.set_defaults(func=run_prompt)


def run_status(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    now = now_arg(args.now)
    jobs = usable_cpus() if args.jobs is None else args.jobs
    if jobs < 1:
        raise CliError(f"--jobs: at least 1, not {jobs}")
    for line in recover_workspace(workspace):  # an approve or revert a crash interrupted
        print(f"orkas-tui: {line}", file=sys.stderr)
    recent = None if args.all_turns else RECENT_TURNS
    with collector_paused(freeze=True):  # millions of acyclic objects: a cyclic pass would find nothing
        doc = workspace_status(workspace, now, args.agent, jobs, recent, runs=args.json)
        if args.json:
            write_json(lambda out: write_status(doc, out))
        else:
            print(render_status(doc, recent))
    return 0


def render_status(doc: dict, recent: int | None) -> str:
    out = [f"workspace {doc['workspace']}   now {doc['now']}   threshold {doc['threshold']}"]
    out.append(f"reflections cost: {doc['spending']['text']}" + _over(doc["spending"]))
    run_by = doc["run_by"]
    out.append(f"next cycle: {doc['next_cycle_at']}, run by {run_by['text']}" if doc["next_cycle_at"] else run_by["text"])
    if not doc["agents"]:
        out.append("no agents yet (agents/<id>/ folders)")
    for agent in doc["agents"]:
        turns = agent["turns"]
        count = agent.get("turn_count", len(turns))
        title = agent["id"] + (f" ({agent['name']})" if agent.get("name") else "")
        heading = [
            f"{count} turns",
            f"{agent['triggering_turns']} triggering",
            f"last reflection {agent['last_reflection_at'] or 'never'}",
        ]
        if agent["malformed_lines"]:
            heading.append(f"{agent['malformed_lines']} malformed lines skipped")
        out += ["", f"== {title}: " + ", ".join(heading)]
        unread = agent.get("not_read") or {}
        if unread.get("records"):
            kinds = sorted(unread["kinds"].items())
            first = kinds[0][1]["first"]
            out.append(
                f"not read: {unread['records']} imported records of unknown kinds, "
                + ", ".join(f"{kind} ({entry['count']})" for kind, entry in kinds)
                + (f"; the first {kinds[0][0]}: {first}" if first else "")
            )
        if "queue" in agent:
            out.append("queue: " + queue_phrase(agent["queue"]))
        for usage in agent["reflections"][:RECENT_REFLECTIONS_SHOWN]:
            out.append(f"reflection {usage['ts']} {usage['status']}: {usage['text']}")
        shown = turns if recent is None else turns[:recent]
        if shown:
            rows = [
                (
                    t.sort_key,
                    t.conversation,
                    t.turn,
                    t.status,
                    t.tool_calls,
                    t.real_errors,
                    t.transient_errors,
                    " ".join(f"{k}={v}" for k, v in t.signals.items()) or "-",
                    f"{t.score:.1f}",
                    "TRIGGER" if t.triggers else "",
                )
                for t in shown
            ]
            label = "turns" if recent is None or count <= recent else f"last {recent} of {count} turns"
            out += [
                label,
                table(
                    ("time", "conversation", "turn", "status", "tools", "real", "trans", "signals", "score", "trigger"),
                    rows,
                    right=(4, 5, 6, 8),
                ),
            ]
        if agent["skills"]:
            cells = [
                (
                    s["slug"],
                    s["impressions"],
                    s["invocations"],
                    rate(s["invocation_rate"]),
                    rate(s["edit_rate"]),
                    rate(s["ineffective_rate"]),
                    s["patch_count"],
                    s["last_used_at"] or "never",
                    ", ".join(s["verdict"]["flags"]) + f" (over {s['verdict']['over']})" if s["verdict"]["flags"] else "",
                )
                for s in agent["skills"]
            ]
            out += [
                "skills",
                table(
                    ("skill", "impr", "inv", "inv%", "edit%", "ineff%", "patches", "last used", "flags"),
                    cells,
                    right=(1, 2, 3, 4, 5, 6),
                ),
            ]
        for problem in agent.get("problems", []):
            out.append(f"! {problem}")
    return "\n".join(out)


def _over(spent: dict) -> str:
    return f"; {spent['over_budget']}" if spent["over_budget"] else ""


def queue_phrase(decision: dict) -> str:
    """One agent's queue decision in words (shared by ``status`` and ``queue``)."""
    if decision["selected"]:
        text = f"selected #{decision['rank']}" + (" (forced)" if decision["forced"] else "")
    else:
        text = decision["reason"]
    return f"{text}; trigger score {decision['trigger_score']:g}"


def run_prompt(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    paths = workspace.agent(args.agent)
    skills, _ = SkillStore(paths, workspace.settings).load_all()
    print(prompt_block(SelfNotes(paths, workspace.settings), skills), end="")
    return 0
