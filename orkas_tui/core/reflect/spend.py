"""What reflections cost: each one's tokens and price, and what today and this month add up to.

Every reflection that reached the model leaves its usage in its agent's ``events.jsonl``:
the ``reflection`` event (or ``reflection_failed``: a failed call is paid for too) that
orkas-tui writes with ``prompt_tokens``, ``completion_tokens`` and ``cost_usd``. The price
is litellm's bundled price map's, read offline (``core/reflect/llm.py``); a model the map
does not price (a local server's, most often) has no ``cost_usd``, and its cost reads
"price unknown", never $0: it is counted apart from the dollars.

Days and months are the machine's local calendar (``now.astimezone()``): a daily budget is
a person's, and their day ends at their midnight, not at UTC's. :func:`spending` is the one
place the totals are computed; the queue, ``status``, the app and the hooks read it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson

from orkas_tui.core.disk.confine import read_regular
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.store.system_events import SOURCE

KINDS = frozenset({"reflection", "reflection_failed"})
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "cost_usd")
OVER_BUDGET = "over today's budget"
PRICE_UNKNOWN = "price unknown"


def cost_text(usd: float | None) -> str:
    """A cost in words: :func:`money`, or "price unknown" (never $0 for a price litellm does not know)."""
    return PRICE_UNKNOWN if usd is None else money(usd)


def money(usd: float) -> str:
    """Dollars to four places, or six under a cent: one reflection often costs a fraction of a cent."""
    return f"${usd:.4f}" if usd >= 0.01 or usd == 0 else f"${usd:.6f}"


def dollars(usd: float) -> str:
    """A budget as set: ``$0.50``, ``$0.0002`` (never rounded to a different figure)."""
    return f"${usd:.2f}" if round(usd, 2) == usd else f"${usd:.4f}".rstrip("0")


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _dollars(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


@dataclass(frozen=True)
class Usage:
    """One reflection's call to the model: its tokens and cost (``None``: not reported, or not priced)."""

    agent: str
    ts: datetime
    status: str
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None

    def text(self) -> str:
        """The one wording of a reflection's usage: ``$0.0002 · 1,200 in / 80 out tokens``."""
        tokens = ", tokens not reported"
        if self.prompt_tokens is not None or self.completion_tokens is not None:
            tokens = f" · {_tokens(self.prompt_tokens)} in / {_tokens(self.completion_tokens)} out tokens"
        return cost_text(self.cost_usd) + tokens

    def to_json(self) -> dict:
        return {
            "ts": format_ts(self.ts),
            "status": self.status,
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "cost": cost_text(self.cost_usd),
            "text": self.text(),
        }


def _tokens(count: int | None) -> str:
    return "?" if count is None else f"{count:,}"


def usage_of(agent: str, event: dict) -> Usage | None:
    """The usage an orkas-tui reflection event records, or ``None`` for any other event. A reflection
    names its model and its usage; one with neither called no model (a made-up one, as the demo's;
    a failure before any answer) and costs nothing to count."""
    if event.get("type") not in KINDS or event.get("source") != SOURCE:
        return None
    ts = parse_ts(event.get("ts"))
    if ts is None or all(event.get(k) is None for k in (*USAGE_FIELDS, "model")):
        return None
    model = event.get("model")
    return Usage(
        agent,
        ts,
        str(event.get("status") or event.get("type")),
        model if isinstance(model, str) else None,
        _count(event.get("prompt_tokens")),
        _count(event.get("completion_tokens")),
        _dollars(event.get("cost_usd")),
    )


def read_usage(paths: AgentPaths) -> list[Usage]:
    """Every reflection's usage in the agent's ``events.jsonl``, in file order; a missing or unreadable
    file has none, a malformed line is skipped. Only lines naming a reflection are decoded."""
    try:
        data = read_regular(paths.events)
    except OSError:
        return []
    found = []
    for line in data.splitlines():
        if b"reflection" not in line:
            continue
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(event, dict) and (usage := usage_of(paths.id, event)) is not None:
            found.append(usage)
    return found


def _reflections(count: int) -> str:
    """``1 reflection``, ``3 reflections``: how every total counts them."""
    return f"{count} reflection{'s' if count != 1 else ''}"


@dataclass(frozen=True)
class Total:
    """The reflections of a period: dollars of the priced ones, and how many had no price."""

    usd: float = 0.0
    reflections: int = 0
    unpriced: int = 0

    def add(self, usage: Usage) -> Total:
        if usage.cost_usd is None:
            return Total(self.usd, self.reflections + 1, self.unpriced + 1)
        return Total(self.usd + usage.cost_usd, self.reflections + 1, self.unpriced)

    def text(self) -> str:
        if self.reflections == 0:
            return "$0"
        if self.unpriced == self.reflections:
            return f"{PRICE_UNKNOWN} ({_reflections(self.reflections)})"
        extra = f" + {self.unpriced} at an unknown price" if self.unpriced else ""
        return f"{money(self.usd)}{extra}"

    def to_json(self) -> dict:
        return {"usd": round(self.usd, 6), "reflections": self.reflections, "unpriced": self.unpriced, "text": self.text()}


@dataclass(frozen=True)
class Spending:
    """Today's and this month's totals (local calendar) and the daily budget they are held to."""

    day_start: datetime
    day_end: datetime
    today: Total
    month: Total
    budget_usd: float | None

    @property
    def over(self) -> bool:
        return self.budget_usd is not None and self.today.usd >= self.budget_usd

    def over_reason(self) -> str | None:
        """``over today's budget (...)`` when today's priced reflections reached the budget, else ``None``."""
        if self.budget_usd is None or not self.over:
            return None
        return f"{OVER_BUDGET} ({money(self.today.usd)} of {dollars(self.budget_usd)}; until {format_ts(self.day_end)})"

    def text(self) -> str:
        """``today $0.0123 · this month $0.4000 · budget $0.50/day``; with no price known this month,
        ``price unknown (1 reflection today, 3 this month)``. Every view's wording of the spend."""
        budget = "" if self.budget_usd is None else f" · budget {dollars(self.budget_usd)}/day"
        if self.month.reflections and self.month.unpriced == self.month.reflections:
            return f"{PRICE_UNKNOWN} ({_reflections(self.today.reflections)} today, {self.month.reflections} this month){budget}"
        return f"today {self.today.text()} · this month {self.month.text()}{budget}"

    def to_json(self) -> dict:
        return {
            "day_start": self.day_start.isoformat(),
            "today": self.today.to_json(),
            "month": self.month.to_json(),
            "daily_budget_usd": self.budget_usd,
            "over_budget": self.over_reason(),
            "text": self.text(),
        }


def local_day(now: datetime) -> tuple[datetime, datetime, datetime]:
    """The local day's start and end, and the local month's start, around ``now`` (an aware time)."""
    local = now.astimezone()
    day_start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return day_start, day_start + timedelta(days=1), day_start.replace(day=1)


def totals(usages: Iterable[Usage], now: datetime, budget_usd: float | None) -> Spending:
    """Sum ``usages`` into today's and this month's totals: every view's one computation of them."""
    day_start, day_end, month_start = local_day(now)
    today = month = Total()
    for usage in usages:
        if month_start <= usage.ts < day_end:
            month = month.add(usage)
            if usage.ts >= day_start:
                today = today.add(usage)
    return Spending(day_start, day_end, today, month, budget_usd)


def workspace_usage(workspace: Workspace) -> dict[str, list[Usage]]:
    """Every agent's reflections' usage, by agent id."""
    return {agent: read_usage(AgentPaths(workspace.agents_dir / agent)) for agent in workspace.agent_ids()}


def spending(workspace: Workspace, now: datetime, usage: dict[str, list[Usage]] | None = None) -> Spending:
    """Today's and this month's spend over every agent of the workspace, under its ``daily_budget_usd``
    (``usage``: what :func:`workspace_usage` already read)."""
    read = workspace_usage(workspace) if usage is None else usage
    return totals((u for found in read.values() for u in found), now, workspace.settings.model.daily_budget_usd)


def over_budget(workspace: Workspace, now: datetime) -> str | None:
    """Why no reflection may start now (today's spend reached ``[model] daily_budget_usd``), or ``None``."""
    if workspace.settings.model.daily_budget_usd is None:
        return None  # no cap: nothing to read
    return spending(workspace, now).over_reason()
