"""One reflection of one agent: bundle, prompt, model call, validation, proposal or apply.

:func:`reflect` reports its stages through ``on_progress`` (bundle built, waiting
for the model, retrying, validating, applying, done) and honours a
:class:`threading.Event` as a cancel switch at every stage. Only one reflection of
an agent runs at a time (a non-blocking per-agent lock); a second one returns
``busy`` at once. :func:`prepare` builds exactly what would be sent, without
importing litellm or opening any connection: the dry run.

The model is asked for the answer in the answer's JSON schema when litellm says it
takes one (plain instructions otherwise); an answer that does not fit the schema
is asked for again once, quoting the errors, and that second try is counted in the
outcome's tokens, cost and attempts.

Outcomes and what they write:

- ``proposed`` / ``applied`` / ``nothing_to_save``: the reflection happened;
  ``last_reflection_at`` is set (the cooldown starts) and a ``reflection`` event is logged.
- ``transient_failure`` / ``failed`` / ``invalid_reply``: no skill, note or
  proposal is written and no cooldown is spent; the failure is recorded in the
  agent's state (a failure that is not transient also counts towards the
  queue's back-off) and as a ``reflection_failed`` event (an invalid reply is kept
  under ``.orkas/replies/`` for inspection, up to the reply size limit).
- ``cancelled`` / ``busy``: nothing is written.
- ``nothing_new``: no turn is past the read marks (every turn was seen by a reflection):
  nothing is sent, no cooldown starts.
- ``not_configured``: no model or no key is set: nothing is sent, and it is no failure
  (no back-off); the message says what to set and where.
- ``over_budget``: today's reflections cost ``[model] daily_budget_usd`` already
  (``spend.py``); nothing is sent unless forced (``reflect --force``, or the app's "send
  anyway"), and it is no failure.

A reflection that happened writes each conversation's read mark (how far the bundle read
it) with its outcome, so the next one carries only turns no reflection has seen.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from orkas_tui.core.disk.write import atomic_write, file_lock
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace, read_state, write_state
from orkas_tui.core.reflect.benefit import refresh_standings
from orkas_tui.core.reflect.bundle import Bundle, build_bundle
from orkas_tui.core.reflect.llm import (
    Cancelled,
    ModelConfig,
    ModelError,
    ModelReply,
    complete,
    model_config,
)
from orkas_tui.core.reflect.model_setup import NotConfigured
from orkas_tui.core.reflect.prompt import Prompt, build_prompt
from orkas_tui.core.reflect.spend import over_budget
from orkas_tui.core.reflect.stages import (
    APPLYING,
    BUNDLE,
    DONE,
    NOTHING_NEW,
    RETRYING,
    VALIDATING,
    WAITING,
    Progress,
    ProgressFn,
)
from orkas_tui.core.store.answer import response_format
from orkas_tui.core.store.changes import AUTO_APPLY_REMOVALS, apply_pending, recover_agent
from orkas_tui.core.store.guard import MAX_REPLY_CHARS
from orkas_tui.core.store.journal import apply_lock
from orkas_tui.core.store.operations import ReplyError, parse_reply
from orkas_tui.core.store.proposals import INVALID, create_proposal
from orkas_tui.core.store.system_events import log_event
from orkas_tui.core.summary.report import MARKS, last_reflection
from orkas_tui.core.summary.scan import AgentScan

REFLECTED = ("proposed", "applied", "nothing_to_save")
OVER_BUDGET_STATUS = "over_budget"
ECHO_CHARS = 8_000  # how much of an answer that did not fit is quoted back when asking again
FOLLOW_UP = """\
Your answer cannot be used: it does not fit the answer format.
{errors}
Answer again with ONE JSON object in the format the instructions give, \
{{"summary": "...", "operations": [...]}}, and nothing else."""


@dataclass(frozen=True)
class Prepared:
    """Exactly what a reflection would send now: the bundle and the messages."""

    scan: AgentScan
    since: datetime | None
    bundle: Bundle
    prompt: Prompt

    def to_json(self) -> dict:
        return {
            "agent": self.scan.id,
            "since": format_ts(self.since) if self.since else None,
            "bundle": self.bundle.to_json(),
            "prompt_tokens": self.prompt.tokens,
            "redactions": self.prompt.redactions,
            "messages": self.prompt.messages,
        }


@dataclass
class Outcome:
    agent: str
    status: str
    message: str
    summary: str | None = None
    proposal: str | None = None
    changes: list[str] = field(default_factory=list)
    invalid: list[dict] = field(default_factory=list)
    bundle_tokens: int | None = None
    redactions: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    attempts: int = 0
    asks: int = 0  # answers asked for: 2 when the first did not fit the schema
    response_schema: bool = False  # the answer was asked for as a JSON schema (response_format)
    first_error: str | None = None  # why the first answer did not fit, when it was asked for again
    reply_path: str | None = None
    export: dict | None = None  # auto_apply of a linked agent: what the export after it did (ExportResult.to_json)

    def count(self, reply: ModelReply) -> None:
        """Add one answer's tokens, cost and attempts to the totals (a total is unknown once a part is)."""
        first = self.asks == 0
        self.asks += 1
        self.attempts += reply.attempts
        self.prompt_tokens = _total(first, self.prompt_tokens, reply.prompt_tokens)
        self.completion_tokens = _total(first, self.completion_tokens, reply.completion_tokens)
        self.cost_usd = _total(first, self.cost_usd, reply.cost_usd)

    def usage(self) -> dict:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "asks": self.asks,
            "bundle_tokens": self.bundle_tokens,
            "redactions": self.redactions,
        }

    def to_json(self) -> dict:
        return dict(self.__dict__)


def _known(**fields: object) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


def _total(first: bool, total, part):
    return part if first else (None if total is None or part is None else total + part)


def follow_up(reply_text: str, error: ReplyError) -> list[dict]:
    """The answer that did not fit, then a message quoting every error: the conversation to ask again."""
    echo = reply_text[:ECHO_CHARS] + (
        f"\n[... {len(reply_text) - ECHO_CHARS:,} more characters]" if len(reply_text) > ECHO_CHARS else ""
    )
    errors = "\n".join(f"- {e}" for e in error.errors)
    return [
        {"role": "assistant", "content": echo or "(an empty answer)"},
        {"role": "user", "content": FOLLOW_UP.format(errors=errors)},
    ]


def prepare(workspace: Workspace, agent_id: str, scan: AgentScan | None = None) -> Prepared:
    """Build the bundle and messages for ``agent_id`` (``scan``, if given, must be refreshed)."""
    if scan is None:
        scan = AgentScan(workspace.agent(agent_id), workspace.settings)
        scan.refresh()
    since = last_reflection(scan.paths)
    bundle = build_bundle(scan, since)
    return Prepared(scan, since, bundle, build_prompt(scan, bundle))


def _keep_reply(paths: AgentPaths, now: datetime, text: str) -> Path:
    """Keep the raw reply for inspection: at most the reply size limit, never a huge one whole."""
    path = paths.private / "replies" / f"{now.strftime('%Y%m%dT%H%M%SZ')}.txt"
    if len(text) > MAX_REPLY_CHARS:
        text = (
            text[:MAX_REPLY_CHARS]
            + f"\n[orkas-tui: the reply was {len(text):,} characters; only the first {MAX_REPLY_CHARS:,} are kept]\n"
        )
    atomic_write(path, text)
    return path


def record_failure(paths: AgentPaths, now: datetime, outcome: Outcome, transient: bool) -> Outcome:
    """Record a failed reflection. One that is not transient (a bad answer, a refused call, an
    unexpected error) also counts towards the queue's back-off (``state.backoff``)."""
    changes: dict = {"last_failure_at": format_ts(now), "last_failure": outcome.message, "last_failure_transient": transient}
    if not transient:
        previous = read_state(paths).get("backoff")
        count = previous.get("failures") if isinstance(previous, dict) else 0
        count = count + 1 if type(count) is int and count >= 0 else 1
        changes["backoff"] = {"failures": count, "since": format_ts(now), "reason": outcome.message}
    write_state(paths, **changes)
    log_event(
        paths,
        "reflection_failed",
        now,
        status=outcome.status,
        transient=transient,
        error=outcome.message,
        reply=outcome.reply_path,
        attempts=outcome.attempts,
        **_known(
            prompt_tokens=outcome.prompt_tokens,
            completion_tokens=outcome.completion_tokens,
            cost_usd=outcome.cost_usd,
            asks=outcome.asks or None,
            first_error=outcome.first_error,
        ),
    )
    return outcome


def reflect(
    workspace: Workspace,
    agent_id: str,
    now: datetime,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    scan: AgentScan | None = None,
    force: bool = False,
) -> Outcome:
    """Run one reflection now; never raises for model or reply problems (see the outcome).
    Refused (``over_budget``) when today's spend reached the daily budget, unless ``force``."""
    paths = workspace.agent(agent_id)
    if unsafe := paths.unsafe_paths():
        return Outcome(agent_id, "failed", f"{unsafe[0]}; no reflection")
    if not force and (reason := over_budget(workspace, now)):
        return Outcome(agent_id, OVER_BUDGET_STATUS, f"{reason}; nothing sent (reflect --force sends it anyway)")
    try:
        with file_lock(paths.private / "reflect.lock", blocking=False):
            return _reflect_locked(workspace, paths, now, on_progress or (lambda _p: None), cancel, scan)
    except BlockingIOError:
        return Outcome(agent_id, "busy", "a reflection of this agent is already running")


def _reflect_locked(
    workspace: Workspace,
    paths: AgentPaths,
    now: datetime,
    report: ProgressFn,
    cancel: threading.Event | None,
    scan: AgentScan | None,
) -> Outcome:
    agent = paths.id
    settings = workspace.settings
    recovered = recover_agent(paths)
    if recovered:
        report(Progress(agent, BUNDLE, recovered))
    prepared = prepare(workspace, agent, scan)
    refresh_standings(prepared.scan)  # what the exports after this reflection's changes rank by
    bundle = prepared.bundle
    outcome = Outcome(agent, "", "", bundle_tokens=bundle.tokens, redactions=prepared.prompt.redactions)
    report(
        Progress(
            agent,
            BUNDLE,
            f"bundle built: {bundle.tokens:,} tokens, {prepared.prompt.redactions} redactions; triggering turns: "
            f"{sum(1 for turn in bundle.turns if turn['kept'])} of {len(bundle.turns)} kept; recent activity: "
            f"{bundle.items_kept:,} of {bundle.items_total:,} lines from {len(bundle.conversations)} conversation(s)",
        )
    )

    def cancelled() -> Outcome:
        outcome.status, outcome.message = "cancelled", "cancelled; nothing was written"
        report(Progress(agent, DONE, outcome.message))
        return outcome

    if cancel is not None and cancel.is_set():
        return cancelled()
    if not bundle.conversations:
        outcome.status, outcome.message = "nothing_new", NOTHING_NEW
        report(Progress(agent, DONE, outcome.message))
        return outcome

    def ask(config: ModelConfig, messages: list[dict]) -> ModelReply:
        reply = complete(
            config,
            messages,
            cancel,
            on_retry=lambda n, why, delay: report(
                Progress(agent, RETRYING, f"attempt {n} failed ({why}); retrying in {delay:g}s")
            ),
            response_format=response_format(),
        )
        outcome.response_schema = reply.response_schema
        outcome.count(reply)
        return reply

    try:
        config = model_config(settings)
        report(Progress(agent, WAITING, f"waiting for {config.name} ({prepared.prompt.tokens} prompt tokens)"))
        reply = ask(config, prepared.prompt.messages)
        report(Progress(agent, VALIDATING, "validating the answer"))
        try:
            answer = parse_reply(reply.text)
        except ReplyError as exc:
            if cancel is not None and cancel.is_set():
                return cancelled()
            outcome.first_error = str(exc)
            report(Progress(agent, WAITING, f"the answer does not fit the schema ({exc}); asking again, once"))
            reply = ask(config, [*prepared.prompt.messages, *follow_up(reply.text, exc)])
            report(Progress(agent, VALIDATING, "validating the second answer"))
            answer = parse_reply(reply.text)
    except Cancelled:
        return cancelled()
    except NotConfigured as exc:
        outcome.status, outcome.message = "not_configured", f"reflection is not configured: {exc}; nothing sent"
        report(Progress(agent, DONE, outcome.message))
        return outcome
    except ModelError as exc:
        outcome.status = "transient_failure" if exc.transient else "failed"
        outcome.message = f"model call failed after {exc.attempts} attempt(s): {exc}; nothing changed"
        outcome.attempts += exc.attempts
        report(Progress(agent, DONE, outcome.message))
        return record_failure(paths, now, outcome, exc.transient)
    except ReplyError as exc:
        outcome.reply_path = str(_keep_reply(paths, now, reply.text))
        again = "" if str(exc) == outcome.first_error else f" (the first answer: {outcome.first_error})"
        outcome.status = "invalid_reply"
        outcome.message = (
            f"{exc}; asked again with the errors, the second answer did not fit either{again}; "
            f"nothing written (reply kept at {outcome.reply_path})"
        )
        report(Progress(agent, DONE, outcome.message))
        return record_failure(paths, now, outcome, transient=False)
    if cancel is not None and cancel.is_set():
        return cancelled()
    outcome.summary = answer.summary
    usage = {"model": config.name, **outcome.usage()}
    if not answer.operations:
        outcome.status, outcome.message = "nothing_to_save", "nothing to save"
    else:
        proposal = create_proposal(paths, settings, answer.summary, answer.operations, now, usage, bundle.sources)
        outcome.proposal = proposal.id
        outcome.invalid = [{"index": o.index, "reason": o.reason} for o in proposal.operations if o.status == INVALID]
        if outcome.invalid:
            outcome.reply_path = str(_keep_reply(paths, now, reply.text))
        if settings.auto_apply and not outcome.invalid:
            report(Progress(agent, APPLYING, f"applying {len(proposal.operations)} operation(s)"))
            with apply_lock(paths):
                result = apply_pending(
                    paths, settings, proposal, proposal.operations, now, by="reflection", max_removals=AUTO_APPLY_REMOVALS
                )
            outcome.changes = [c.id for c in result.applied]
            outcome.status = "applied"
            outcome.message = f"applied {len(outcome.changes)} change(s)" + (
                f"; {len(result.failed)} failed: " + "; ".join(result.failed) if result.failed else ""
            )
            if result.held:
                outcome.message += f"; {len(result.held)} operation(s) wait for approval in {proposal.id}: " + "; ".join(
                    result.held
                )
            if result.export is not None:
                outcome.export = result.export.to_json()
                outcome.message += "; exported: " + "; ".join(result.export.lines())
        else:
            outcome.status = "proposed"
            pending = len(proposal.operations) - len(outcome.invalid)
            why = (
                f"; {len(outcome.invalid)} invalid operation(s), so nothing is applied automatically"
                if outcome.invalid and settings.auto_apply
                else ""
            )
            quarantined = sum(o.held for o in proposal.operations)
            held = f", {quarantined} quarantined (they rest on no word the user typed)" if quarantined else ""
            outcome.message = (
                f"proposal {proposal.id}: {pending} operation(s) to review{held}, {len(outcome.invalid)} invalid{why}"
            )
    marks = {**prepared.scan.marks(), **bundle.read_to}
    write_state(
        paths, last_reflection_at=format_ts(now), last_outcome=outcome.status, last_usage=usage, backoff=None, **{MARKS: marks}
    )
    log_event(
        paths,
        "reflection",
        now,
        status=outcome.status,
        summary=answer.summary,
        operations=len(answer.operations),
        proposal=outcome.proposal,
        changes=outcome.changes or None,
        **{k: v for k, v in usage.items() if v is not None},
    )
    report(Progress(agent, DONE, outcome.message))
    return outcome
