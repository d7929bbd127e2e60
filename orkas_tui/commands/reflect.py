"""``orkas-tui reflect``, ``cycle`` and ``daemon``: run reflections now, once, or on the schedule."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from orkas_tui.commands.io import CliError, add_json, add_now, add_workspace, now_arg, open_workspace, print_json
from orkas_tui.commands.status import queue_phrase
from orkas_tui.core.read.timefmt import format_ts, utc_now
from orkas_tui.core.reflect.cycle import CycleReport, run_cycle
from orkas_tui.core.reflect.keepers import daemon_lock
from orkas_tui.core.reflect.queue import last_cycle_at, next_cycle_at
from orkas_tui.core.reflect.reflection import OVER_BUDGET_STATUS, REFLECTED, Outcome, Prepared, Progress, prepare, reflect
from orkas_tui.core.reflect.spend import cost_text, over_budget

EXIT_TRANSIENT = 3
EXIT_FAILED = 1
EXIT_NOT_CONFIGURED = 2  # an error the person acts on: set the model or its key


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("reflect", help="reflect on one agent now (or show exactly what would be sent)")
    add_workspace(parser)
    parser.add_argument("agent", metavar="AGENT")
    parser.add_argument("--dry-run", action="store_true", help="print the messages, token count and redactions; send nothing")
    parser.add_argument("--force", action="store_true", help="send even when today's spend has reached [model] daily_budget_usd")
    add_now(parser)
    add_json(parser)
    parser.set_defaults(func=run_reflect)

    parser = sub.add_parser("cycle", help="run one scheduled cycle over the selected agents")
    add_workspace(parser)
    add_now(parser)
    add_json(parser)
    parser.set_defaults(func=run_cycle_command)

    parser = sub.add_parser("daemon", help="run cycles on the schedule until stopped, logging each decision")
    add_workspace(parser)
    parser.add_argument("--poll", type=float, default=60.0, metavar="SECONDS", help="longest sleep between checks (default 60)")
    parser.add_argument("--cycles", type=int, default=0, metavar="N", help="stop after N cycles (default: run until stopped)")
    parser.add_argument(
        "--install-service",
        action="store_true",
        help="write a systemd user unit (Linux) or launchd agent (macOS) that runs the daemon; print how to enable it",
    )
    parser.add_argument("--dry-run", action="store_true", help="with --install-service: print the file; write nothing")
    parser.set_defaults(func=run_daemon)


def progress_to_stderr(progress: Progress) -> None:
    print(f"[{progress.agent}] {progress.stage}: {progress.message}", file=sys.stderr, flush=True)


def exit_code(outcome: Outcome) -> int:
    if outcome.status in (*REFLECTED, "nothing_new"):
        return 0
    if outcome.status in ("not_configured", OVER_BUDGET_STATUS):
        return EXIT_NOT_CONFIGURED
    return EXIT_TRANSIENT if outcome.status == "transient_failure" else EXIT_FAILED


def render_dry_run(prepared: Prepared) -> str:
    b = prepared.bundle
    out = [
        f"dry run for {b.agent}: nothing is sent",
        f"period: since {format_ts(prepared.since) if prepared.since else 'the first turn'}",
        f"bundle: {b.tokens:,} of {b.budget:,} tokens from {len(b.conversations)} conversation(s), "
        f"{b.outputs_cut} tool output(s) cut",  # the lines kept of each part: the preview's first line
        f"prompt: {prepared.prompt.tokens} tokens, {prepared.prompt.redactions} redaction(s)",
        *b.preview(),
        *(f"problem: {problem}" for problem in b.problems),
    ]
    for message in prepared.prompt.messages:
        out += ["", f"===== {message['role']} =====", message["content"]]
    return "\n".join(out)


def render_outcome(outcome: Outcome) -> str:
    line = f"{outcome.agent}: {outcome.status}: {outcome.message}"
    if outcome.summary:
        line += f"\n  summary: {outcome.summary}"
    for bad in outcome.invalid:
        line += f"\n  invalid operation {bad['index']}: {bad['reason']}"
    if outcome.prompt_tokens is not None:
        line += f"\n  tokens: {outcome.prompt_tokens} in, {outcome.completion_tokens} out; cost: {cost_text(outcome.cost_usd)}"
        if outcome.asks > 1:
            line += f" (both answers: the first did not fit the schema: {outcome.first_error})"
    return line


def run_reflect(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    workspace.agent(args.agent)
    if args.dry_run:
        prepared = prepare(workspace, args.agent)
        if args.json:
            print_json(prepared.to_json())
        else:
            print(render_dry_run(prepared))
        return 0
    outcome = reflect(workspace, args.agent, now_arg(args.now), None if args.json else progress_to_stderr, force=args.force)
    if args.json:
        print_json(outcome.to_json())
    elif outcome.status in REFLECTED:
        print(render_outcome(outcome))
    else:
        print(f"orkas-tui: {outcome.agent}: {outcome.status}: {outcome.message}", file=sys.stderr)
    return exit_code(outcome)


def render_cycle(report: CycleReport) -> str:
    out = [f"cycle at {format_ts(report.plan.now)}"]
    for decision in report.plan.decisions:
        out.append(f"  {decision.id}: " + queue_phrase(decision.to_json()))
    out += [render_outcome(o) for o in report.outcomes] or ["no agent selected"]
    return "\n".join(out)


def run_cycle_command(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    report = run_cycle(workspace, now_arg(args.now), None if args.json else progress_to_stderr)
    if args.json:
        print_json(report.to_json())
    else:
        print(render_cycle(report))
    return 0


def run_daemon(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    if args.install_service:
        from orkas_tui.commands.service import install_service

        return install_service(workspace.root.expanduser().absolute(), args.dry_run)
    try:
        with daemon_lock(workspace):  # the queue's proof that something runs the schedule
            return _daemon_loop(workspace, args)
    except BlockingIOError:
        raise CliError(f"a daemon already runs for {workspace.root} (it holds {workspace.private / 'daemon.lock'})") from None


def _daemon_loop(workspace, args: argparse.Namespace) -> int:
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    print(f"daemon: workspace {workspace.root}; cycle every {workspace.settings.schedule.cycle_interval}", flush=True)
    try:
        cycles, waiting = 0, None
        while not stop.is_set():
            now = utc_now()
            due = next_cycle_at(last_cycle_at(workspace), now, workspace.settings.schedule.cycle_interval)
            if now < due:
                stop.wait(min((due - now).total_seconds(), args.poll))
                continue
            if reason := over_budget(workspace, now):  # as the hooks do: the cycle waits, it is not spent on nobody
                if reason != waiting:
                    print(f"{format_ts(now)} cycle due, not started: {reason}", flush=True)
                waiting = reason
                stop.wait(args.poll)
                continue
            waiting = None
            log = lambda p: print(f"{format_ts(utc_now())} [{p.agent}] {p.stage}: {p.message}", flush=True)  # noqa: E731
            print(f"{format_ts(now)} " + render_cycle(run_cycle(workspace, now, log, stop)), flush=True)
            cycles += 1
            if args.cycles and cycles >= args.cycles:
                break
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("daemon: stopped", flush=True)
    return 0
