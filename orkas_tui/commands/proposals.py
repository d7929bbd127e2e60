"""``orkas-tui proposals list|show|approve|reject|edit``: review what reflections propose."""

from __future__ import annotations

import argparse
import json

from orkas_tui.commands.io import (
    CliError,
    add_json,
    add_now,
    add_workspace,
    now_arg,
    open_workspace,
    print_export,
    print_json,
)
from orkas_tui.core.store.changes import approve, edit_operation, reject
from orkas_tui.core.store.proposals import Proposal, list_proposals, load_proposal


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("proposals", help="list (the default), show, approve, reject or edit reflection proposals")
    add_workspace(parser)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    parser.set_defaults(func=run_list, agent=None, pending=False, json=False)  # no action: list

    p = actions.add_parser("list", help="every proposal, newest last")
    add_workspace(p)
    p.add_argument("--agent", metavar="ID", help="only this agent")
    p.add_argument("--pending", action="store_true", help="only proposals with operations to review")
    add_json(p)
    p.set_defaults(func=run_list)

    p = actions.add_parser("show", help="one proposal with every operation")
    add_workspace(p)
    p.add_argument("id", metavar="ID")
    p.add_argument("--diff", action="store_true", help="each operation's diff: as applied, or as approving it would write now")
    add_now(p)
    add_json(p)
    p.set_defaults(func=run_show)

    for name, func, text in (("approve", run_approve, "apply"), ("reject", run_reject, "reject")):
        p = actions.add_parser(name, help=f"{text} every pending operation, or only --op N")
        add_workspace(p)
        p.add_argument("id", metavar="ID")
        p.add_argument("--op", type=int, metavar="N", help="only operation N (0-based)")
        if name == "approve":
            p.add_argument(
                "--confirm-quarantined",
                action="store_true",
                help="with --op N: apply operation N although it is quarantined (it rests on no word the user typed)",
            )
        add_now(p)
        add_json(p)
        p.set_defaults(func=func)

    p = actions.add_parser("edit", help="change fields of operation N before approving it")
    add_workspace(p)
    p.add_argument("id", metavar="ID")
    p.add_argument("--op", type=int, required=True, metavar="N")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a new field value (repeatable)")
    p.add_argument("--set-file", action="append", default=[], metavar="FIELD=PATH", help="a field value read from a file")
    add_json(p)
    p.set_defaults(func=run_edit)


def render(proposal: Proposal, full: bool) -> str:
    head = f"{proposal.id}  {proposal.status}  {proposal.created_at}  {len(proposal.operations)} op(s)  {proposal.summary}"
    if not full:
        return head
    out = [head]
    for item in proposal.operations:
        op = item.op if isinstance(item.op, dict) else {"op": repr(item.op)}
        out.append(f"  [{item.index}] {item.status}: " + json.dumps(op, ensure_ascii=False))
        if item.reason:
            out.append(f"      reason: {item.reason}")
        if (q := item.quarantine) is not None:
            state = "QUARANTINED" if q.confirmed_at is None else f"quarantined, confirmed at {q.confirmed_at}"
            out.append(f"      {state}: {q.reason}")
            out += [f"        {s.label()}: {' '.join(s.text.split())[:200]}" for s in q.sources]
            if q.repeats:
                out.append(f"        the operation says: {q.repeats[0]}")
                out.append(f"        the source says:    {' '.join(q.repeats[1].split())}")
        if item.changes:
            out.append(f"      changes: {', '.join(item.changes)}")
    return "\n".join(out)


def run_list(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    ids = [workspace.agent(args.agent).id] if args.agent else workspace.agent_ids()
    found = [p for aid in ids for p in list_proposals(workspace.agent(aid)) if not args.pending or p.status == "pending"]
    if args.json:
        print_json([p.to_json() for p in found])
    else:
        print("\n".join(render(p, False) for p in found) or "no proposals")
    return 0


def run_show(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    _, proposal = load_proposal(workspace, args.id)
    previews = {}
    if args.diff:
        from orkas_tui.core.store.op_preview import preview

        paths, now = workspace.agent(proposal.agent), now_arg(args.now)
        previews = {o.index: preview(paths, workspace.settings, proposal.id, o, now) for o in proposal.operations}
    if args.json:
        doc = proposal.to_json()
        if previews:
            doc["previews"] = {str(index): p.to_json() for index, p in previews.items()}
        print_json(doc)
        return 0
    print(render(proposal, True))
    for index, shown in previews.items():
        print(f"\n--- operation {index}" + (f": {shown.note}" if shown.note else ""))
        print("\n".join(shown.diff_lines()) or "(no change to any file)")
    return 0


def run_approve(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    confirm = getattr(args, "confirm_quarantined", False)
    if confirm and args.op is None:
        raise CliError("--confirm-quarantined confirms one operation: give --op N too")
    proposal, result = approve(workspace, args.id, now_arg(args.now), args.op, confirm=confirm)
    if args.json:
        print_json(
            {
                "proposal": proposal.to_json(),
                "applied": [c.id for c in result.applied],
                "skipped": result.skipped,
                "failed": result.failed,
                "held": result.held,
                "export": result.export.to_json() if result.export is not None else None,
            }
        )
    else:
        for change in result.applied:
            print(f"applied {change.id}: {change.action} {change.target}")
        for line in result.skipped:
            print(line)
        for line in result.held:
            print(f"{line}; to apply it: orkas-tui proposals show {proposal.id}, then approve --op N --confirm-quarantined")
        if not (result.applied or result.skipped or result.failed or result.held):
            print(f"{proposal.id}: nothing pending to apply")
        print_export(workspace, proposal.agent, result.export)
    if result.failed:
        raise CliError("; ".join(result.failed))
    return 0


def run_reject(args: argparse.Namespace) -> int:
    proposal = reject(open_workspace(args), args.id, now_arg(args.now), args.op)
    if args.json:
        print_json(proposal.to_json())
    else:
        print(render(proposal, False))
    return 0


def run_edit(args: argparse.Namespace) -> int:
    fields: dict[str, str] = {}
    for pair, from_file in [(p, False) for p in args.set] + [(p, True) for p in args.set_file]:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise CliError(f"expected FIELD=VALUE, not {pair!r}")
        if from_file:
            with open(value, encoding="utf-8") as handle:
                value = handle.read()
        fields[name] = value
    if not fields:
        raise CliError("nothing to change: give --set FIELD=VALUE or --set-file FIELD=PATH")
    proposal = edit_operation(open_workspace(args), args.id, args.op, fields)
    if args.json:
        print_json(proposal.to_json())
    else:
        print(render(proposal, True))
    return 0
