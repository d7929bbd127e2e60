"""Reflect now, run a cycle, cancel: a reflection runs for minutes in a thread worker of the
app (reflect, run_cycle), with progress coming back to the Queue tab and the activity bar,
and x cancels it. Building the bundle first is an intent (:mod:`orkas_tui.tui.intents`). :class:`Reflections` is a plain object the app owns:
it holds the running reflection's state, so the app's actions stay one line each. It calls
no method of the app: what the app must redo (the activity bar, a re-read, a notification)
goes up as a message (:mod:`orkas_tui.tui.messages`), as from any widget."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.notifications import SeverityLevel
from textual.timer import Timer

from orkas_tui.core.read.workspace import Area
from orkas_tui.core.reflect.model_setup import not_configured
from orkas_tui.core.reflect.stages import APPLYING, BUNDLE, DONE, NOTHING_NEW, RETRYING, VALIDATING, WAITING, Progress
from orkas_tui.tui.intents import PrepareReflection, bundle_text
from orkas_tui.tui.messages import ActivityChanged, Done
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.text_view import TextView
from orkas_tui.tui.widgets.proposals import ProposalsPane
from orkas_tui.tui.widgets.queue import QueuePane

if TYPE_CHECKING:
    from orkas_tui.core.reflect.reflection import Outcome, Prepared
    from orkas_tui.tui.app import OrkasApp

STAGE_STYLE = {
    "bundle": "cyan",
    "waiting": "yellow",
    "retrying": "magenta",
    "validating": "cyan",
    "applying": "green",
    DONE: "bold",
}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 0.1
# what each stage is called while it runs: the core reports a stage once it has begun
RUNNING = {
    BUNDLE: "building the bundle",
    WAITING: "waiting for the model",
    RETRYING: "waiting to retry",
    VALIDATING: "validating the answer, writing the proposal",
    APPLYING: "writing the changes",
}
SHORT = {BUNDLE: "bundle", WAITING: "wait", RETRYING: "retry", VALIDATING: "check", APPLYING: "write"}


@dataclass
class Activity:
    """The reflection running now: which agent, which stage since when (monotonic seconds)."""

    agent: str
    stage: str
    since: float
    frame: int = 0

    def elapsed(self) -> int:
        return int(time.monotonic() - self.since)

    def spinner(self) -> str:
        return SPINNER[self.frame % len(SPINNER)]

    def badge(self) -> Text:
        """For the sidebar's status column (``BADGE_WIDTH`` cells): ``⠋ wait 12s``, ``⠋ wait 3m`` while the model is
        waited for; the stage alone otherwise (the activity bar says the rest)."""
        seconds = self.elapsed()
        timed = (f" {seconds}s" if seconds < 100 else f" {seconds // 60}m") if self.stage == WAITING else ""
        return Text(f"{self.spinner()} {SHORT.get(self.stage, self.stage)}{timed}", style="bold yellow")

    def line(self, model: str) -> Text:
        """For the activity bar above the footer."""
        text = Text()
        text.append(f" {self.spinner()} ", style="bold yellow")
        text.append(f"Reflecting on {self.agent}: ", style="bold")
        label = RUNNING.get(self.stage, self.stage)
        if self.stage == WAITING:
            label = f"waiting for {model}"
        text.append(label)
        text.append(f" · {self.elapsed()}s", style="yellow")
        text.append(" · x cancels (nothing is written)", style="dim")
        return text


class Reflections:
    """The reflection the app runs (at most one at a time): start it, follow it, cancel it."""

    def __init__(self, app: OrkasApp) -> None:
        self.app = app
        self.cancel_event: threading.Event | None = None
        self.activity: Activity | None = None
        self._activity_timer: Timer | None = None

    # progress -------------------------------------------------------------

    def _begin(self, agent: str) -> None:
        self.app.refresh_bindings()
        self.activity = Activity(agent, BUNDLE, time.monotonic())
        if self._activity_timer is None:
            self._activity_timer = self.app.set_interval(TICK_S, self._tick_activity)
        self.show_activity()

    def _end(self) -> None:
        self.app.refresh_bindings()
        self.activity = None
        if self._activity_timer is not None:
            self._activity_timer.stop()
            self._activity_timer = None
        self.show_activity()

    def _tick_activity(self) -> None:
        if self.activity is not None and self.app.blink:  # tests and screenshots keep a still frame
            self.activity.frame += 1
        self.show_activity()

    def show_activity(self) -> None:
        self.app.post_message(ActivityChanged())

    def _progress(self, progress: Progress) -> None:
        app = self.app
        if progress.stage != DONE and self.activity is not None:
            if (progress.agent, progress.stage) != (self.activity.agent, self.activity.stage):
                self.activity.agent, self.activity.stage, self.activity.since = progress.agent, progress.stage, time.monotonic()
            self.show_activity()
        line = Text()
        line.append(f"{app.clock().strftime('%H:%M:%S')} ", style="dim")
        line.append(f"{progress.agent} ", style="bold")
        line.append(f"{progress.stage:10} ", style=STAGE_STYLE.get(progress.stage, ""))
        line.append(progress.message)
        app.progress_lines = [*app.progress_lines, line][-40:]
        app.query_one(QueuePane).show_progress(app.progress_lines)

    def _report(self, progress: Progress) -> None:
        self.app.call_from_thread(self._progress, progress)

    def _finished(self, outcome: Outcome) -> None:
        good = outcome.status in ("proposed", "applied", "nothing_to_save")
        if outcome.proposal is not None:  # the new proposal is what a person wants to read next
            self.app.query_one(ProposalsPane).follow(outcome.proposal)
        touched = {outcome.agent: {Area.PRIVATE, Area.STATE, Area.EVENTS, Area.SKILLS, Area.SELF}}
        severity: SeverityLevel = "information" if good else "warning"
        self.app.post_message(Done(f"{outcome.agent}: {outcome.message}", "Reflection", severity, 10, touched))

    def _busy(self) -> bool:
        if self.cancel_event is not None:
            self.app.notify("A reflection is already running; cancel it with x.", severity="warning")
            return True
        return False

    # reflect now ----------------------------------------------------------

    def reflect_now(self, agent: str) -> None:
        """Build the bundle (an intent, like any core call that answers), then ask before sending it (``ask_send``)."""
        if not self._busy():
            self.app.post_message(PrepareReflection(agent))

    def ask_send(self, agent: str, prepared: Prepared, over: str | None = None) -> None:
        """Ask before sending; over today's budget the question says so and the choice is "Send anyway"."""
        if not prepared.bundle.conversations:  # nothing to send: say so rather than offer an empty bundle
            self.app.notify(f"{agent}: {NOTHING_NEW}", title="Reflection", timeout=10)
            return
        if problem := not_configured(self.app.settings):
            self.app.notify(f"{agent}: reflection is not configured: {problem}", title="Reflection", severity="warning")
            return
        model = self.app.settings.model.name or "(no model configured)"
        question = (
            f"Reflect on {agent} now?\nThe bundle is {prepared.bundle.tokens:,} tokens with "
            f"{prepared.prompt.redactions} redaction(s), {sum(1 for t in prepared.bundle.turns if t['kept'])} triggering "
            f"turn(s) first, then {len(prepared.bundle.conversations)} conversation(s); "
            f"it is sent to {model}. Nothing else leaves this machine."
        )
        if over:
            question += f"\n\nThe workspace is {over}: the schedule waits. Send this one anyway?"

        def answer(choice: str | None) -> None:
            if choice == "send":
                self._run(agent, lambda cancel: [self._reflect(agent, cancel, force=over is not None)])
            elif choice == "bundle":
                self.app.push_screen(
                    TextView(f"Bundle for {agent}: exactly what would be sent (esc to go back)", bundle_text(prepared)),
                    lambda _: self.ask_send(agent, prepared, over),
                )

        send = "Send anyway" if over else "Send"
        self.app.push_screen(Choose(question, [("cancel", "Cancel"), ("bundle", "Show bundle"), ("send", send)]), answer)

    def _reflect(self, agent: str, cancel: threading.Event, force: bool = False) -> Outcome:
        from orkas_tui.core.reflect.reflection import reflect

        return reflect(self.app.workspace, agent, self.app.clock(), on_progress=self._report, cancel=cancel, force=force)

    def _run(self, first: str, call: Callable[[threading.Event], list[Outcome]]) -> None:
        """Run ``call`` in a thread worker (one at a time), with the activity shown and x to cancel it."""

        def worker() -> None:
            self.cancel_event = cancel = threading.Event()
            self.app.call_from_thread(self._begin, first)
            try:
                outcomes = call(cancel)
            finally:
                self.cancel_event = None
                self.app.call_from_thread(self._end)
            for outcome in outcomes:
                self.app.call_from_thread(self._finished, outcome)

        self.app.run_worker(worker, thread=True, group="reflect")

    # cycle ----------------------------------------------------------------

    def run_cycle(self) -> None:
        if self._busy():
            return
        plan = self.app.plan
        chosen = [d.id for d in plan.selected] if plan else []
        if not chosen:
            self.app.notify("No agent is due: a cycle now would reflect on nobody (see the Queue tab for each reason).")
            return

        def run(choice: str | None) -> None:
            if choice == "run":
                self._run(chosen[0], self._cycle)

        self.app.push_screen(
            Choose(
                f"Run a cycle now? It reflects on {', '.join(chosen)}, in that order.",
                [("cancel", "Cancel"), ("run", "Run cycle")],
            ),
            run,
        )

    def _cycle(self, cancel: threading.Event) -> list[Outcome]:
        from orkas_tui.core.reflect.cycle import run_cycle

        report = run_cycle(self.app.workspace, self.app.clock(), on_progress=self._report, cancel=cancel)
        self.app.post_message(Done(reread={}))  # the queue, after every agent it reflected on
        return report.outcomes

    def cancel(self) -> None:
        if self.cancel_event is None:
            self.app.notify("No reflection is running.")
            return
        self.cancel_event.set()
        self.app.notify("Cancelling… nothing is written by a cancelled reflection.")
