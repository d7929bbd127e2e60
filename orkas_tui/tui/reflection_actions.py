"""Reflect now, run a cycle, cancel, show the bundle, and decide on proposals: each one a
call into the core (reflect, run_cycle, prepare, approve, reject, edit_operation) from a
thread worker, with progress coming back to the Queue tab."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.timer import Timer
from textual.widgets import Static

from orkas_tui.core.reflect.cycle import run_cycle
from orkas_tui.core.reflect.reflection import (
    APPLYING,
    BUNDLE,
    DONE,
    RETRYING,
    VALIDATING,
    WAITING,
    Outcome,
    Prepared,
    Progress,
    prepare,
    reflect,
)
from orkas_tui.core.store.changes import approve, edit_operation, reject
from orkas_tui.core.store.history import HistoryError
from orkas_tui.core.store.proposals import PROPOSALS, ProposalError
from orkas_tui.tui.exported import export_notice
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.op_editor import OpEditor
from orkas_tui.tui.screens.text_view import TextView
from orkas_tui.tui.widgets.proposals import ProposalsPane
from orkas_tui.tui.widgets.queue import QueuePane

if TYPE_CHECKING:  # the type checker sees the mixin as the App it is mixed into; at run time it adds no base
    from collections.abc import Iterable
    from datetime import datetime

    from textual.app import App

    from orkas_tui.core.read.settings import Settings
    from orkas_tui.core.read.workspace import Workspace
    from orkas_tui.core.reflect.queue import QueuePlan

    _Base = App[None]
else:
    _Base = object

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
SHORT = {BUNDLE: "bundle", WAITING: "model", RETRYING: "retry", VALIDATING: "validating", APPLYING: "writing"}


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
        """For the sidebar's status column (13 cells): ``⠋ model 12s``."""
        timed = f" {self.elapsed()}s" if self.stage in (WAITING, RETRYING) else ""
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


def bundle_text(prepared: Prepared) -> str:
    """What the bundle chose (per triggering turn: kept, cut, tokens), then exactly the messages that would be sent."""
    choice = "── what the bundle holds ──\n" + "\n".join(prepared.bundle.preview())
    blocks = [f"── {m.get('role')} ──\n{m.get('content')}" for m in prepared.prompt.messages]
    return "\n\n".join([choice, *blocks])


class ReflectionActions(_Base):
    """Mixed into the app: the actions that talk to the reflection core."""

    cancel_event: threading.Event | None = None
    progress_lines: list[Text]
    activity: Activity | None = None
    _activity_timer: Timer | None = None

    if TYPE_CHECKING:  # what these actions use of the app's own state (defined in OrkasApp, checked against this)
        workspace: Workspace
        settings: Settings
        agent: str | None
        plan: QueuePlan | None
        blink: bool

        def now(self) -> datetime: ...
        def torn_down(self) -> bool: ...
        def load(self, touched: dict[str, set[str]] | None) -> object: ...  # a Worker: OrkasApp.load is a @work
        def no_agent_reason(self) -> str | None: ...
        def _show_sidebar(self, pending: Iterable[str]) -> None: ...

    # progress -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Cancel is offered (and shown in the footer) only while a reflection runs."""
        if action == "cancel_reflection":
            return self.cancel_event is not None
        return True

    def _begin(self, agent: str) -> None:
        self.refresh_bindings()
        self.activity = Activity(agent, BUNDLE, time.monotonic())
        if self._activity_timer is None:
            self._activity_timer = self.set_interval(TICK_S, self._tick_activity)
        self._show_activity()

    def _end(self) -> None:
        self.refresh_bindings()
        self.activity = None
        if self._activity_timer is not None:
            self._activity_timer.stop()
            self._activity_timer = None
        self._show_activity()

    def _tick_activity(self) -> None:
        if self.activity is not None and self.blink:  # tests and screenshots keep a still frame
            self.activity.frame += 1
        self._show_activity()

    def _show_activity(self) -> None:
        """The spinner, stage and elapsed seconds, in the bar above the footer and the sidebar's status column."""
        if self.torn_down():
            return
        bar = self.query_one("#activity", Static)
        bar.display = self.activity is not None
        if self.activity is not None:
            bar.update(self.activity.line(self.settings.model.name or "the model"))
        self._show_sidebar(())

    def _progress(self, progress: Progress) -> None:
        if progress.stage != DONE and self.activity is not None:
            if (progress.agent, progress.stage) != (self.activity.agent, self.activity.stage):
                self.activity.agent, self.activity.stage, self.activity.since = progress.agent, progress.stage, time.monotonic()
            self._show_activity()
        line = Text()
        line.append(f"{self.now().strftime('%H:%M:%S')} ", style="dim")
        line.append(f"{progress.agent} ", style="bold")
        line.append(f"{progress.stage:10} ", style=STAGE_STYLE.get(progress.stage, ""))
        line.append(progress.message)
        self.progress_lines = [*self.progress_lines, line][-40:]
        self.query_one(QueuePane).show_progress(self.progress_lines)

    def _report(self, progress: Progress) -> None:
        self.call_from_thread(self._progress, progress)

    def _finished(self, outcome: Outcome) -> None:
        good = outcome.status in ("proposed", "applied", "nothing_to_save")
        self.notify(
            f"{outcome.agent}: {outcome.message}", title="Reflection", severity="information" if good else "warning", timeout=10
        )
        self.load({outcome.agent: {"private", "state", "events", "skills", "self"}})

    def _busy(self) -> bool:
        if self.cancel_event is not None:
            self.notify("A reflection is already running; cancel it with x.", severity="warning")
            return True
        return False

    # reflect now ----------------------------------------------------------

    def _no_agent(self) -> bool:
        reason = self.no_agent_reason()
        if reason:
            self.notify(reason, severity="warning")
        return reason is not None

    def action_reflect_now(self) -> None:
        if self._no_agent() or self._busy():
            return
        self._prepare_then_ask(self.agent)

    @work(thread=True, group="prepare")
    def _prepare_then_ask(self, agent: str) -> None:
        try:
            prepared = prepare(self.workspace, agent)
        except (OSError, ValueError) as exc:
            self.call_from_thread(self.notify, f"cannot build the bundle: {exc}", severity="error")
            return
        self.call_from_thread(self._ask_send, agent, prepared)

    def _ask_send(self, agent: str, prepared: Prepared) -> None:
        model = self.settings.model.name or "(no model configured)"
        question = (
            f"Reflect on {agent} now?\nThe bundle is {prepared.bundle.tokens:,} tokens with "
            f"{prepared.prompt.redactions} redaction(s), {sum(1 for t in prepared.bundle.turns if t['kept'])} triggering "
            f"turn(s) first, then {len(prepared.bundle.conversations)} conversation(s); "
            f"it is sent to {model}. Nothing else leaves this machine."
        )

        def answer(choice: str | None) -> None:
            if choice == "send":
                self._reflect(agent)
            elif choice == "bundle":
                self.push_screen(
                    TextView(f"Bundle for {agent}: exactly what would be sent (esc to go back)", bundle_text(prepared)),
                    lambda _: self._ask_send(agent, prepared),
                )

        self.push_screen(Choose(question, [("cancel", "Cancel"), ("bundle", "Show bundle"), ("send", "Send")]), answer)

    @work(thread=True, group="reflect")
    def _reflect(self, agent: str) -> None:
        self.cancel_event = threading.Event()
        self.call_from_thread(self._begin, agent)
        try:
            outcome = reflect(self.workspace, agent, self.now(), on_progress=self._report, cancel=self.cancel_event)
        finally:
            self.cancel_event = None
            self.call_from_thread(self._end)
        self.call_from_thread(self._finished, outcome)

    # cycle ----------------------------------------------------------------

    def action_run_cycle(self) -> None:
        if self._busy():
            return
        chosen = [d.id for d in self.plan.selected] if self.plan else []
        if not chosen:
            self.notify("No agent is due: a cycle now would reflect on nobody (see the Queue tab for each reason).")
            return

        def run(choice: str | None) -> None:
            if choice == "run":
                self._cycle(chosen[0])

        self.push_screen(
            Choose(
                f"Run a cycle now? It reflects on {', '.join(chosen)}, in that order.",
                [("cancel", "Cancel"), ("run", "Run cycle")],
            ),
            run,
        )

    @work(thread=True, group="reflect")
    def _cycle(self, first: str) -> None:
        self.cancel_event = threading.Event()
        self.call_from_thread(self._begin, first)
        try:
            report = run_cycle(self.workspace, self.now(), on_progress=self._report, cancel=self.cancel_event)
        finally:
            self.cancel_event = None
            self.call_from_thread(self._end)
        for outcome in report.outcomes:
            self.call_from_thread(self._finished, outcome)
        self.call_from_thread(self.load, {})

    def action_cancel_reflection(self) -> None:
        if self.cancel_event is None:
            self.notify("No reflection is running.")
            return
        self.cancel_event.set()
        self.notify("Cancelling… nothing is written by a cancelled reflection.")

    # bundle ---------------------------------------------------------------

    def action_show_bundle(self) -> None:
        if not self._no_agent():
            self._show_bundle(self.agent)

    @work(thread=True, group="prepare")
    def _show_bundle(self, agent: str) -> None:
        prepared = prepare(self.workspace, agent)
        title = (
            f"Bundle for {agent}: {prepared.bundle.tokens:,} tokens, {prepared.prompt.redactions} redaction(s), "
            f"{prepared.prompt.tokens:,} prompt tokens: exactly what would be sent"
        )
        self.call_from_thread(self.push_screen, TextView(title, bundle_text(prepared)))

    # proposals ------------------------------------------------------------

    def on_proposals_pane_decide(self, event: ProposalsPane.Decide) -> None:
        index, proposal_id = event.index, event.proposal.id
        if event.action == "edit_one":
            if index is not None:  # the pane sends an operation's index with every action but approve_all
                op = event.proposal.operations[index].op

                def save(fields: dict | None) -> None:
                    if fields:
                        self._save_edit(proposal_id, index, fields)

                self.push_screen(
                    OpEditor(
                        f"{proposal_id} operation {index} (ctrl+s to save, then approve with a)",
                        op if isinstance(op, dict) else {},
                    ),
                    save,
                )
            return
        self._apply_decision(event.action, proposal_id, index)

    @work(thread=True, group="decide")
    def _save_edit(self, proposal_id: str, index: int, fields: dict) -> None:
        try:
            edit_operation(self.workspace, proposal_id, index, fields)
            message, severity = f"operation {index} updated; approve it with a", "information"
        except (ProposalError, HistoryError, OSError) as exc:
            message, severity = str(exc), "error"
        self.call_from_thread(self.notify, message, title=proposal_id, severity=severity, timeout=10)
        self.call_from_thread(self.load, {PROPOSALS.parse(proposal_id).agent: {"private", "skills", "self", "events"}})

    @work(thread=True, group="decide")
    def _apply_decision(self, action: str, proposal_id: str, index: int | None) -> None:
        now = self.now()
        agent = PROPOSALS.parse(proposal_id).agent
        try:
            if action == "reject_one":
                reject(self.workspace, proposal_id, now, index)
                message, severity = f"operation {index} rejected", "information"
            else:
                _, result = approve(self.workspace, proposal_id, now, index)
                message = f"applied {len(result.applied)} change(s)"
                exported, look = export_notice(result.export)
                if exported:
                    message += f"; {exported}"
                if result.failed:
                    message += "; not applied: " + "; ".join(result.failed)
                severity = "warning" if result.failed or look else "information"
        except (ProposalError, HistoryError, OSError) as exc:
            message, severity = str(exc), "error"
        self.call_from_thread(self.notify, message, title=proposal_id, severity=severity, timeout=10)
        self.call_from_thread(self.load, {agent: {"private", "skills", "self", "events"}})
