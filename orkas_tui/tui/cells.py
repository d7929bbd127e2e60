"""How core values look in a cell: times, the score bar against the threshold, rates."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text

from orkas_tui.core.read.timefmt import format_age, parse_ts
from orkas_tui.core.textfmt import rate

BAR = 10
SHORT = {
    "user_correction": "correction",
    "skill_ineffective": "skill failed",
    "error_recovery": "recovery",
    "known_weakness": "weakness",
    "complex_task": "complex",
}


def clock_time(value: str | None, now: datetime) -> str:
    """``14:05`` today, ``11-28 14:05`` on another day."""
    moment = parse_ts(value)
    if moment is None:
        return "?"
    return moment.strftime("%H:%M" if moment.date() == now.date() else "%m-%d %H:%M")


def age(value: str | datetime | None, now: datetime) -> str:
    moment = parse_ts(value) if value is not None else None
    return format_age(moment, now)


def score_bar(score: float, threshold: float, running: bool = False) -> Text:
    """A bar scaled so the threshold sits in the middle, marked with ``│``."""
    if running:
        return Text("running…".ljust(BAR + 6), style="italic dim")
    scale = 2 * threshold if threshold > 0 else 1.0
    filled = min(BAR, round(score / scale * BAR))
    mark = BAR // 2
    triggers = score >= threshold
    style = "bold red" if triggers else ("yellow" if score > 0 else "dim")
    text = Text()
    for i in range(BAR):
        if i == mark:
            text.append("│", style="bold")
        text.append("█" if i < filled else "·", style=style if i < filled else "dim")
    text.append(f" {score:.2f}", style=style)
    return text


def signals_text(signals: dict[str, float]) -> str:
    return ", ".join(f"{SHORT.get(name, name)} {weight:g}" for name, weight in signals.items()) or "—"


def rate_text(value: float | None) -> Text:
    return Text(rate(value), style="dim" if value is None else "")
