"""Why a turn scored what it did, and its transcript re-read from disk by byte span."""

from __future__ import annotations

from datetime import datetime

from rich.console import Group
from rich.text import Text

from orkas_tui.core.observe.signals import RULES, rule_text
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary.transcript import Spans, describe, with_verdicts
from orkas_tui.core.summary.turn import Turn
from orkas_tui.tui.cells import clock_time

TEXT_LIMIT = 600


def explain(row: Turn, settings: Settings, now: datetime) -> Text:
    """The score, each signal that fired (rule and evidence), the ones that did not, the errors."""
    t = row.summary
    out = Text()
    out.append(f"{t.conversation} / {t.turn}", style="bold")
    out.append(f"   {t.status}   {clock_time(t.started_at, now)} → {clock_time(t.ended_at, now) if t.ended_at else '…'}\n")
    if not t.ended:
        out.append("Running: a turn is scored at its turn_end.\n", style="italic")
    else:
        verdict = "triggers reflection" if t.triggers else "below the threshold"
        out.append(
            f"Score {t.score:.2f} against threshold {settings.threshold:.2f}: {verdict}\n", style="bold red" if t.triggers else ""
        )
    for name in RULES:
        weight = settings.weights.get(name, 0.0)
        if name in t.signals:
            out.append(f"  ✓ {name} +{weight:g}", style="bold")
            out.append(f"  ({rule_text(name, settings)})\n", style="dim")
            out.append(f"      {t.evidence[name]}\n")
        else:
            out.append(f"  · {name} {weight:g}  ({rule_text(name, settings)})\n", style="dim")
    out.append(f"Tool calls: {t.tool_calls}", style="")
    if tools := row.trace.tools:
        out.append("  (" + ", ".join(f"{k}×{v}" for k, v in sorted(tools.items())) + ")", style="dim")
    out.append("\n")
    for error in t.errors:
        kind = "transient" if error.transient else "real"
        out.append(f"  {kind:9} ", style="dim" if error.transient else "red")
        out.append(f"{error.source}: {error.message}  [{error.reason}]\n")
    if t.skills_indexed or t.skills_read:
        out.append(f"Skills indexed: {len(t.skills_indexed)}   read: {', '.join(t.skills_read) or 'none'}\n", style="dim")
    if t.edited:
        out.append("The user edited this turn's output afterwards.\n", style="yellow")
    return out


def transcript(paths: AgentPaths, row: Turn, settings: Settings, now: datetime) -> Text:
    """The turn's events, read from its byte span (file I/O: call from a worker), each described
    as the bundle describes it; a failure says whether it counted as transient, and why (the
    verdict its summary holds)."""
    path = paths.conversations / f"{row.summary.conversation}.jsonl"
    with Spans(settings.max_line_bytes) as spans:
        events = spans.read(path, row.trace.start, row.trace.end)
    out = Text()
    malformed = sum(event is None for _, event in events)
    for step in with_verdicts(events, [row]):
        kind = step.event.type
        out.append(f"{clock_time(step.event.ts, now):>11}  ", style="dim")
        out.append(f"{kind:12} ", style=_KIND_STYLE.get(kind, "cyan"))
        said = describe(step)
        out.append(_cut(said.text if said.output is None else f"{said.text} → {said.output}"))
        if step.verdict is not None:
            out.append(f"  [{'transient' if step.verdict.transient else 'real'}: {step.verdict.reason}]", style="dim")
        out.append("\n")
    if malformed:
        out.append(f"  ({malformed} malformed line(s) skipped)\n", style="dim")
    return out


_KIND_STYLE = {"user": "bold green", "assistant": "bold blue", "turn_end": "magenta", "turn_start": "magenta"}


def _cut(value: object) -> str:
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"


def detail(paths: AgentPaths, row: Turn, settings: Settings, now: datetime) -> Group:
    head = Text("\nTranscript\n", style="bold underline")
    return Group(explain(row, settings, now), head, transcript(paths, row, settings, now))
