"""The reflection bundle: recent activity, redacted, interleaved in time, under a token budget.

At most ``max_conversations`` conversations with activity since the last
reflection, plus the agent's system events (``events.jsonl``) of the same period,
one line per event in time order. Secrets are redacted first, so the count and
the text sent are both of the redacted text. When over budget, long tool outputs
are cut first, then the oldest lines are dropped; the result is counted again as
a whole, so the budget is never exceeded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import orjson

from orkas_tui.core.errors import TransientRule
from orkas_tui.core.redact import Redactor
from orkas_tui.core.scan import AgentScan
from orkas_tui.core.tail import JsonlTail
from orkas_tui.core.timefmt import format_ts, parse_ts
from orkas_tui.core.tokens import count_tokens, truncate_to_tokens

SYSTEM = "system"


@dataclass
class BundleItem:
    """One event as a line: ``[ts] source kind: text``, with a tool output cut separately."""

    ts: datetime
    order: int
    source: str
    kind: str
    text: str
    output: str | None = None

    def line(self) -> str:
        head = f"[{format_ts(self.ts)}] {self.source} {self.kind}: {self.text}"
        return head if self.output is None else f"{head}\n    output: {self.output}"


@dataclass(frozen=True)
class Bundle:
    agent: str
    since: datetime | None
    text: str
    tokens: int
    budget: int
    redactions: int
    conversations: list[str]
    items_total: int
    items_kept: int
    outputs_cut: int
    skills_read: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "agent": self.agent,
            "since": format_ts(self.since) if self.since else None,
            "tokens": self.tokens,
            "budget": self.budget,
            "redactions": self.redactions,
            "conversations": self.conversations,
            "items_total": self.items_total,
            "items_kept": self.items_kept,
            "outputs_cut": self.outputs_cut,
        }


def _fields(event: dict, drop: tuple[str, ...]) -> str:
    rest = {k: v for k, v in event.items() if k not in drop}
    return orjson.dumps(rest, default=str).decode() if rest else ""


def _describe(event: dict, rule: TransientRule) -> tuple[str, str | None]:
    """The text of a conversation event, and its tool output (if any)."""
    kind = event["type"]
    if kind in ("user", "assistant"):
        return str(event.get("text", "")), None
    if kind == "turn_start":
        indexed = event.get("skills_indexed")
        listed = ", ".join(s for s in indexed if isinstance(s, str)) if isinstance(indexed, list) else ""
        return f"turn {event.get('turn')} (skills indexed: {listed or 'none'})", None
    if kind == "tool_call":
        args = orjson.dumps(event.get("args", {}), default=str).decode()
        return f"{event.get('name')} {args} (call {event.get('id')})", None
    if kind == "tool_result":
        output = event.get("output")
        output = output if isinstance(output, str) and output else None
        if event.get("ok") is True:
            return f"ok (call {event.get('id')})", output
        status = event.get("status")
        verdict = rule.classify(event.get("error"), status, event.get("transient") if isinstance(event.get("transient"), bool) else None)
        label = "TRANSIENT error (the environment's, not the agent's)" if verdict.transient else "error"
        code = f" status {status}" if isinstance(status, int) else ""
        return f"{label}{code} (call {event.get('id')}): {event.get('error', '')}", output
    if kind == "skill_read":
        return str(event.get("skill")), None
    if kind == "turn_end":
        text = f"turn {event.get('turn')} ended {event.get('status')}"
        if event.get("status") == "error":
            flag = event.get("transient") if isinstance(event.get("transient"), bool) else None
            verdict = rule.classify(event.get("error"), None, flag)
            text += f" with a {'TRANSIENT (environment) ' if verdict.transient else ''}error: {event.get('error', '')}"
        return text, None
    if kind == "output_edited":
        return f"the user edited the output of turn {event.get('turn')} by hand", None
    return _fields(event, ("ts", "type")), None


def _read_events(path: Path) -> list[dict]:
    _reset, lines = JsonlTail(path).poll()
    return [line.event for line in lines if line.event is not None]


def _collect(scan: AgentScan, since: datetime | None, max_conversations: int, redact: Redactor) -> tuple[list[BundleItem], list[str], list[str]]:
    rule = TransientRule.from_settings(scan.settings)
    active = [
        state for state in scan.conversations.values()
        if state.observer.latest_at is not None and (since is None or state.observer.latest_at > since)
    ]
    active.sort(key=lambda s: (s.observer.latest_at, s.path.stem), reverse=True)
    chosen = active[:max_conversations]
    items: list[BundleItem] = []
    skills_read: dict[str, None] = {}
    order = 0
    for state in chosen:
        previous = None
        for event in _read_events(state.path):
            moment = parse_ts(event.get("ts")) or previous
            previous = moment
            if moment is None or (since is not None and moment <= since):
                continue
            text, output = _describe(event, rule)
            if event["type"] == "skill_read" and isinstance(event.get("skill"), str):
                skills_read[event["skill"]] = None
            if event["type"] == "tool_call" and event.get("name") == "read_skill" and isinstance(event.get("args"), dict):
                name = event["args"].get("name")
                if isinstance(name, str):
                    skills_read[name] = None
            items.append(BundleItem(moment, order, state.path.stem, event["type"], redact(text), redact(output) if output else None))
            order += 1
    for event in _read_events(scan.paths.events):
        moment = parse_ts(event.get("ts"))
        if moment is None or (since is not None and moment <= since):
            continue
        items.append(BundleItem(moment, order, SYSTEM, event["type"], redact(_fields(event, ("ts", "type", "source")))))
        order += 1
    items.sort(key=lambda item: (item.ts, item.order))
    return items, [s.path.stem for s in chosen], list(skills_read)


def _header(since: datetime | None, conversations: list[str], dropped: int) -> str:
    period = f"since {format_ts(since)}" if since else "since the first turn (never reflected on)"
    head = f"# Activity {period}: {len(conversations)} conversation(s) and system events, oldest first\n"
    if dropped:
        head += f"[{dropped} older line(s) dropped to fit the token budget]\n"
    return head


class _Costs:
    """Each item's line's token count, counted only when asked for (newest items first).

    A bundle keeps the newest few hundred of thousands of items: only those, and
    the one that no longer fits, are ever counted.
    """

    def __init__(self, items: list[BundleItem]) -> None:
        self.items = items
        self.known: dict[int, int] = {}

    def __getitem__(self, i: int) -> int:
        cost = self.known.get(i)
        if cost is None:
            cost = self.known[i] = count_tokens(self.items[i].line() + "\n")
        return cost

    def forget(self, i: int) -> None:
        self.known.pop(i, None)

    def fits(self, start: int, room: int) -> bool:
        """Whether the lines from ``start`` on cost at most ``room`` tokens."""
        used = 0
        for i in range(len(self.items) - 1, start - 1, -1):
            used += self[i]
            if used > room:
                return False
        return True

    def first_fitting(self, start: int, room: int) -> int:
        """The smallest index from ``start`` whose lines from there on cost at most ``room`` (at most the last item)."""
        last = len(self.items) - 1
        used = 0
        for i in range(last, start - 1, -1):
            used += self[i]
            if used > room:
                return min(i + 1, last)
        return start


def build_bundle(scan: AgentScan, since: datetime | None) -> Bundle:
    """The bundle for one refreshed scan and the period after ``since``."""
    settings = scan.settings.bundle
    budget = settings.max_tokens
    redact = Redactor(settings.redact_patterns)
    items, conversations, skills_read = _collect(scan, since, settings.max_conversations, redact)
    total = len(items)
    costs = _Costs(items)
    cut = 0
    if not costs.fits(0, budget - count_tokens(_header(since, conversations, 0))):
        limit = settings.tool_output_chars
        for i, item in enumerate(items):
            if item.output is not None and len(item.output) > limit:
                item.output = item.output[:limit] + f" … [cut {len(item.output) - limit} chars]"
                costs.forget(i)
                cut += 1
    start = 0
    while True:
        start = costs.first_fitting(start, budget - count_tokens(_header(since, conversations, start)))
        head = _header(since, conversations, start)
        body = "".join(item.line() + "\n" for item in items[start:])
        text = head + body
        tokens = count_tokens(text)
        if tokens <= budget:
            break
        if start < len(items) - 1:
            start += 1
            continue
        text = truncate_to_tokens(text, budget)
        tokens = count_tokens(text)
        break
    return Bundle(
        agent=scan.id,
        since=since,
        text=text,
        tokens=tokens,
        budget=budget,
        redactions=redact.count,
        conversations=conversations,
        items_total=total,
        items_kept=total - start,
        outputs_cut=cut,
        skills_read=skills_read,
    )
