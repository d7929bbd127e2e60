"""Why a turn scored what it did, and its transcript re-read from disk by byte span."""

from __future__ import annotations

from datetime import datetime

from rich.console import Group
from rich.text import Text

from orkas_tui.core.observe.signals import RULES, rule_text
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.tail import read_span
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.reflect.describe import describe
from orkas_tui.core.summary.report import ScoredTurn
from orkas_tui.tui.cells import clock_time

TEXT_LIMIT = 600


def explain(row: ScoredTurn, settings: Settings, now: datetime) -> Text:
    """The score, each signal that fired (rule and evidence), the ones that did not, the errors."""
    r, s = row.record, row.score
    out = Text()
    out.append(f"{r.conversation} / {r.turn}", style="bold")
    out.append(f"   {r.status}   {clock_time(r.started_at, now)} → {clock_time(r.ended_at, now) if r.ended_at else '…'}\n")
    if not r.ended:
        out.append("Running: a turn is scored at its turn_end.\n", style="italic")
    else:
        verdict = "triggers reflection" if s.triggers else "below the threshold"
        out.append(
            f"Score {s.score:.2f} against threshold {settings.threshold:.2f}: {verdict}\n", style="bold red" if s.triggers else ""
        )
    for name in RULES:
        weight = settings.weights.get(name, 0.0)
        if name in s.signals:
            out.append(f"  ✓ {name} +{weight:g}", style="bold")
            out.append(f"  ({rule_text(name, settings)})\n", style="dim")
            out.append(f"      {s.evidence[name]}\n")
        else:
            out.append(f"  · {name} {weight:g}  ({rule_text(name, settings)})\n", style="dim")
    out.append(f"Tool calls: {r.tool_calls}", style="")
    if r.tools:
        out.append("  (" + ", ".join(f"{k}×{v}" for k, v in sorted(r.tools.items())) + ")", style="dim")
    out.append("\n")
    for error in r.errors:
        kind = "transient" if error.transient else "real"
        out.append(f"  {kind:9} ", style="dim" if error.transient else "red")
        out.append(f"{error.source}: {error.message}  [{error.reason}]\n")
    if r.skills_indexed or r.skills_read:
        out.append(f"Skills indexed: {len(r.skills_indexed)}   read: {', '.join(r.skills_read) or 'none'}\n", style="dim")
    if r.edited:
        out.append("The user edited this turn's output afterwards.\n", style="yellow")
    return out


def transcript(paths: AgentPaths, row: ScoredTurn, settings: Settings, now: datetime) -> Text:
    """The turn's events, read from its byte span (file I/O: call from a worker), each described
    as the bundle describes it; a failure says whether it counted as transient, and why."""
    r = row.record
    rule = TransientRule.from_settings(settings)
    events = read_span(paths.conversations / f"{r.conversation}.jsonl", r.start, r.end)
    out = Text()
    for event in events:
        if event is None:
            out.append("  (malformed line)\n", style="dim")
            continue
        kind = event.get("type", "?")
        out.append(f"{clock_time(event.get('ts'), now):>11}  ", style="dim")
        out.append(f"{kind:12} ", style=_KIND_STYLE.get(kind, "cyan"))
        said = describe(event, rule)
        out.append(_cut(said.text if said.output is None else f"{said.text} → {said.output}"))
        if said.error is not None:
            out.append(f"  [{'transient' if said.error.transient else 'real'}: {said.error.reason}]", style="dim")
        out.append("\n")
    return out


_KIND_STYLE = {"user": "bold green", "assistant": "bold blue", "turn_end": "magenta", "turn_start": "magenta"}


def _cut(value: object) -> str:
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"


def detail(paths: AgentPaths, row: ScoredTurn, settings: Settings, now: datetime) -> Group:
    head = Text("\nTranscript\n", style="bold underline")
    return Group(explain(row, settings, now), head, transcript(paths, row, settings, now))
