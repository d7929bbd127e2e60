"""The reflection bundle: what triggered first, then recent activity, redacted, under a token budget.

The front (:mod:`orkas_tui.core.reflect.triggering`) holds the triggering turns since the
last reflection, most recent first: their signals with evidence, opening prompts,
corrections and real errors, then the effect of the latest change to each skill
read, then a line per recent change with its effect on the agent. The rest of the
budget goes to the activity, newest kept, shown oldest first, leaving out the lines the front already shows. For the activity: at most ``max_conversations`` conversations with activity since the last
reflection, plus the agent's system events (``events.jsonl``) of the same period,
one line per event in time order. Secrets are redacted first, so the count and
the text sent are both of the redacted text. When over budget, long tool outputs
are cut first; then any line still longer than a quarter of the budget is cut by
tokens to that quarter, keeping its head and its tail (a 141 KB paste stays, cut, with
what came before it); then the oldest lines are dropped. The result is counted again
as a whole, so the budget is never exceeded.

Lines are redacted and counted lazily, newest first: only the lines a bundle can
keep (and the one that no longer fits) are ever scanned for secrets or counted.
A file that cannot be read (``events.jsonl``, a conversation) is named in
``problems`` and the bundle is built from the rest.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.core.observe.origins import Origin
from orkas_tui.core.read.events import SystemEvent, decode_system_line
from orkas_tui.core.read.tail import JsonlTail
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.reflect.effects import measure_effects
from orkas_tui.core.reflect.evidence import triggering_turns
from orkas_tui.core.reflect.sources import SourceIds
from orkas_tui.core.reflect.tokens import count_tokens, cut_middle_to_tokens, truncate_to_tokens
from orkas_tui.core.reflect.triggering import Front, Key, build_front, recent_effects
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.provenance import Source, instructions
from orkas_tui.core.store.redact import Redactor
from orkas_tui.core.summary.fold import ConversationState
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.transcript import Spans, Step, describe, with_verdicts
from orkas_tui.core.summary.turn import Turn

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
    offset: int = -1  # where the event's line starts in its file (with ``source``: its identity)
    step: Step | None = None  # a conversation event not yet described (text and output come from it)
    tag: str = ""  # its source id and origin (:mod:`orkas_tui.core.reflect.sources`)

    def described(self) -> BundleItem:
        """The item with its text and output: described only when a bundle may show it."""
        if self.step is None:
            return self
        described = describe(self.step)
        return replace(self, text=described.text, output=described.output, step=None)

    def output_chars(self) -> int:
        """The length of the tool output (0 for none), described or not."""
        if self.step is None:
            return len(self.output or "")
        output = self.step.event.output
        return len(output) if self.kind == "tool_result" and isinstance(output, str) else 0

    def line(self) -> str:
        tag = f" {{{self.tag}}}" if self.tag else ""
        head = f"[{format_ts(self.ts)}] {self.source} {self.kind}{tag}: {self.text}"
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
    lines_cut: int = 0
    problems: list[str] = field(default_factory=list)
    turns: list[dict] = field(default_factory=list)  # per triggering turn: what was kept, what was cut, tokens
    parts: dict[str, int] = field(default_factory=dict)  # tokens of each part of the text
    sources: dict[str, Source] = field(default_factory=dict)  # each source id the text carries: what the answer cites
    read_to: dict[str, int] = field(default_factory=dict)  # per conversation read, the read mark a reflection leaves

    def planted(self, limit: int = 8) -> list[tuple[Source, str]]:
        """Orders found in what tools returned or the user pasted: never a lesson, shown before anything is sent."""
        found = []
        for source in self.sources.values():
            if source.origin in ("tool", "pasted"):
                found += [(source, sentence) for sentence in instructions(source.text, 2)]
        return found[:limit]

    def preview(self) -> list[str]:
        """What the bundle chose, per triggering turn, and the tokens of each part: for the dry run and the app."""
        kept = sum(1 for t in self.turns if t["kept"])
        out = [
            f"parts: triggering turns {self.parts.get('triggering_turns', 0):,} tokens, effects of changes "
            f"{self.parts.get('effects', 0):,}, activity {self.parts.get('activity', 0):,} "
            f"({self.items_kept}/{self.items_total} lines)",
            f"triggering turns: {len(self.turns)}, {kept} in the bundle, most recent first"
            + ("" if self.turns else " (none: the bundle is the recent activity)"),
        ]
        for t in self.turns:
            if not t["kept"]:
                out.append(f"  {t['conversation']} {t['turn']} (score {t['score']:g}): left out, over the budget")
                continue
            tokens = t["tokens"]
            errors, corrections = t["errors"], t["corrections"]
            out.append(
                f"  {t['conversation']} {t['turn']} (score {t['score']:g}; {', '.join(t['signals'])}): "
                f"opening prompt {tokens.get('prompt', 0)} tokens{' (cut)' if t['prompt_cut'] else ''}, "
                f"signals {tokens.get('signals', 0)}, "
                f"errors {errors['kept']}/{errors['total']} {tokens.get('errors', 0)}, "
                f"corrections {corrections['kept']}/{corrections['total']} {tokens.get('corrections', 0)}; "
                f"lines {t['lines']}: {t['lines_above']} above, {t['lines_in_activity']} in the activity, "
                f"{t['lines_left_out']} left out"
                + (f"; {t['transient_errors_left_out']} transient error(s) not shown" if t["transient_errors_left_out"] else "")
            )
        planted = self.planted()
        if planted:
            out.append(
                f"instruction-like text in tool output or pastes: {len(planted)} (never a lesson: an operation "
                "resting on it, or repeating it, is quarantined)"
            )
            out += [f"  ! {source.label()}: {sentence[:160]}" for source, sentence in planted]
        return out

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
            "lines_cut": self.lines_cut,
            "problems": self.problems,
            "parts": self.parts,
            "triggering_turns": self.turns,
            "sources": {
                id_: {"origin": s.origin, "conversation": s.conversation, "tool": s.tool, "kind": s.kind}
                for id_, s in self.sources.items()
            },
            "planted": [{"source": source.id, "text": sentence} for source, sentence in self.planted()],
            "read_to": self.read_to,
        }


def _system_events(path: Path, problems: list[str], max_line: int) -> list[tuple[int, SystemEvent]]:
    try:
        open_regular(path).close()  # the tail skips a file it cannot open; the bundle names it
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.append(f"{path.name}: cannot read ({exc.strerror or exc}); left out of the bundle")
        return []
    _reset, lines = JsonlTail(path, max_line=max_line).poll(decode_system_line)  # the line cap the scan read with
    return [(line.start, line.event) for line in lines if line.event is not None]


def _unseen(state: ConversationState, mark: int) -> tuple[int, list[Turn], int]:
    """Where to read the conversation from (the start of the last turn its read ``mark`` covers, whose
    last agent reply is kept so the first unseen message can be read), its turns from there on, and
    the end of its last turn (the mark a reflection on this bundle leaves: a running turn is read as
    far as it went, and is unseen again once it grows)."""
    summaries, traces = state.summaries, state.traces
    first = next((i for i, t in enumerate(traces) if t.end > mark), len(traces))
    context = max(first - 1, 0)
    start = traces[context].start if first else 0
    turns = [Turn(seq, summaries[seq], traces[seq]) for seq in range(context, len(summaries))]
    return start, turns, max(traces[-1].end, mark) if traces else mark


def unseen_conversations(scan: AgentScan, marks: dict[str, int], most: int) -> list[ConversationState]:
    """The conversations with a turn past their read mark, most recent activity first, at most ``most``."""
    unseen = [state for state in scan.conversations.values() if state.last_end > marks.get(state.stem, 0)]
    unseen.sort(key=lambda s: (s.observer.latest_at or datetime.min.replace(tzinfo=UTC), s.path.stem), reverse=True)
    return unseen[:most]


def _collect(
    scan: AgentScan,
    since: datetime | None,
    marks: dict[str, int],
    chosen: list[ConversationState],
    ids: SourceIds,
    shown: frozenset[Key] | set[Key] = frozenset(),
) -> tuple[list[BundleItem], list[str], list[str], list[str], dict[str, int]]:
    """The raw (not yet redacted) items, the conversations, skills read, problems, and the read marks
    a reflection on them leaves.

    Only the unseen turns of each chosen conversation are read (from the last seen turn's start,
    never from byte 0; of that turn only its last agent reply), and every verdict and skill read
    comes from their summaries. System events are those after ``since`` (the last reflection).
    Events in ``shown`` (already in the bundle's front) are left out. Conversation events are
    described only when asked (:meth:`BundleItem.described`); each item is given its source id
    (``ids``), oldest first."""
    items: list[BundleItem] = []
    skills_read: dict[str, None] = {}
    problems: list[str] = []
    read_to: dict[str, int] = {}
    order = 0
    with Spans(scan.settings.max_line_bytes) as spans:
        for state in chosen:
            mark = marks.get(state.stem, 0)
            start, turns, read_to[state.stem] = _unseen(state, mark)
            seen_end = turns[0].trace.end if turns and turns[0].trace.end <= mark else 0
            for turn in turns:
                if turn.trace.end > mark:
                    skills_read.update(dict.fromkeys(turn.summary.skills_read))
            steps = with_verdicts(spans.read(state.path, start), turns)
            replies = [step for step in steps if step.offset < seen_end and step.event.type == "assistant"]
            keep = {replies[-1].offset} if replies else set()
            previous = None
            for step in steps:
                moment = parse_ts(step.event.ts) or previous
                previous = moment
                if (
                    moment is None
                    or (step.offset < seen_end and step.offset not in keep)
                    or (state.path.stem, step.offset) in shown
                ):
                    continue
                items.append(BundleItem(moment, order, state.path.stem, step.event.type, "", None, step.offset, step))
                order += 1
        problems += [f"{path.name}: cannot read ({why}); left out of the bundle" for path, why in spans.problems.items()]
    for _offset, system in _system_events(scan.paths.events, problems, scan.settings.max_line_bytes):
        moment = parse_ts(system.ts)
        if moment is None or (since is not None and moment <= since):
            continue
        items.append(BundleItem(moment, order, SYSTEM, system.type, system.details(), offset=_offset))
        order += 1
    items.sort(key=lambda item: (item.ts, item.order))
    for item in items:  # ids oldest first
        if item.step is not None:
            item.tag = ids.tag(item.source, item.step)
        elif item.source == SYSTEM:
            item.tag = ids.system(item.offset, item.text)
    return items, [s.path.stem for s in chosen], list(skills_read), problems, read_to


def _header(since: datetime | None, conversations: list[str], dropped: int) -> str:
    period = f"system events since {format_ts(since)}" if since else "system events (never reflected on)"
    head = f"# Activity no reflection has seen: {len(conversations)} conversation(s) and {period}, oldest first\n"
    if dropped:
        head += f"[{dropped} older line(s) dropped to fit the token budget]\n"
    return head


WHOLE, OUTPUTS_CUT, LINES_CUT = 0, 1, 2  # how much a line is cut, in the spec's order


class _Lines:
    """Each item redacted, cut as the current stage asks, and counted: only when asked for (newest first).

    A bundle keeps the newest few hundred of thousands of items: only those, and
    the one that no longer fits, are ever described, redacted or counted.
    """

    def __init__(self, items: list[BundleItem], redact: Redactor, output_chars: int, line_tokens: int) -> None:
        self.items = items
        self.redact = redact
        self.output_chars = output_chars
        self.line_tokens = line_tokens
        self.stage = WHOLE
        self.clean: dict[int, tuple[BundleItem, int]] = {}
        self.known: dict[tuple[int, int], tuple[str, int]] = {}
        self.cut_lines: set[int] = set()

    def _redacted(self, i: int) -> tuple[BundleItem, int]:
        done = self.clean.get(i)
        if done is None:
            item, before = self.items[i].described(), self.redact.count
            text = self.redact(item.text)
            output = self.redact(item.output) if item.output else item.output
            done = self.clean[i] = (replace(item, text=text, output=output), self.redact.count - before)
        return done

    def line(self, i: int) -> tuple[str, int]:
        """The line of item ``i`` at the current stage, and its token count."""
        known = self.known.get((self.stage, i))
        if known is None:
            item = self._redacted(i)[0]
            if self.stage >= OUTPUTS_CUT and item.output is not None and len(item.output) > self.output_chars:
                limit = self.output_chars
                item = replace(item, output=item.output[:limit] + f" … [cut {len(item.output) - limit} chars]")
            text = item.line() + "\n"
            cost = count_tokens(text)
            if self.stage >= LINES_CUT and cost > self.line_tokens:
                item = self._cut(item)
                text = item.line() + "\n"
                cost = count_tokens(text)
                self.cut_lines.add(i)
            known = self.known[(self.stage, i)] = (text, cost)
        return known

    def _cut(self, item: BundleItem) -> BundleItem:
        """The item with its text (and output) cut by tokens to fit a quarter of the budget, head and tail kept."""
        room = self.line_tokens - count_tokens(replace(item, text="", output=None if item.output is None else "").line() + "\n")
        if item.output is None:
            return replace(item, text=cut_middle_to_tokens(item.text, room))
        half = room // 2
        return replace(item, text=cut_middle_to_tokens(item.text, half), output=cut_middle_to_tokens(item.output, room - half))

    def fits(self, start: int, room: int) -> bool:
        """Whether the lines from ``start`` on cost at most ``room`` tokens."""
        used = 0
        for i in range(len(self.items) - 1, start - 1, -1):
            used += self.line(i)[1]
            if used > room:
                return False
        return True

    def first_fitting(self, start: int, room: int) -> int:
        """The smallest index from ``start`` whose lines from there on cost at most ``room`` (at most the last item)."""
        last = len(self.items) - 1
        used = 0
        for i in range(last, start - 1, -1):
            used += self.line(i)[1]
            if used > room:
                return min(i + 1, last)
        return start

    def redactions(self, start: int) -> int:
        return sum(self._redacted(i)[1] for i in range(start, len(self.items)))


def _front_title(since: datetime | None, count: int) -> str:
    period = "no reflection has seen" if since else "(never reflected on)"
    return (
        f"# Triggering turns {period}: {count}, most recent first: each one's signals with their evidence, "
        "opening prompt, corrections and real errors (transient errors are the environment's: not shown)\n\n"
    )


def build_bundle(scan: AgentScan, since: datetime | None) -> Bundle:
    """The bundle for one refreshed scan and the period after ``since``."""
    enabled = gc.isenabled()
    gc.disable()  # thousands of short-lived event objects, none in a cycle: the collector would only rescan them
    try:
        return _build(scan, since)
    finally:
        if enabled:
            gc.enable()


def _build(scan: AgentScan, since: datetime | None) -> Bundle:
    settings = scan.settings.bundle
    budget = settings.max_tokens
    redact = Redactor(settings.redact_patterns)
    ids = SourceIds(settings.redact_patterns)
    marks = scan.marks()
    chosen = unseen_conversations(scan, marks, settings.max_conversations)
    triggering = triggering_turns(scan, marks)
    title = _front_title(since, len(triggering))
    changes = list_changes(scan.paths)
    effects = measure_effects(scan, changes) if changes else {}
    front = Front([], "", 0, 0, [])
    if triggering:
        front = build_front(scan, triggering, budget, redact, [], title, effects, since, ids)
    items, conversations, skills_read, problems, read_to = _collect(scan, since, marks, chosen, ids, front.shown)
    if not triggering and (skills_read or recent_effects(effects, since)):  # effects of changes, no turn triggering
        front = build_front(scan, [], budget, redact, skills_read, title, effects, since, ids)
    room = budget - front.tokens
    total = len(items)
    lines = _Lines(items, redact, settings.tool_output_chars, budget // 4)
    cut = 0
    if not lines.fits(0, room - count_tokens(_header(since, conversations, 0))):
        lines.stage = OUTPUTS_CUT
        cut = sum(1 for item in items if item.output_chars() > settings.tool_output_chars)
        if not lines.fits(0, room - count_tokens(_header(since, conversations, 0))):
            lines.stage = LINES_CUT
    start, text, tokens = _fit(front, title, since, conversations, lines, room, budget, "")
    pinned: list[int] = []
    kept = [tag for c in front.choices if c.kept for tag in c.tags] + [items[i].tag for i in range(start, total)]
    if not any(tag.startswith("u") for tag in kept):  # only the user's words may set a rule: keep some in sight
        pinned = [i for i in range(start) if (step := items[i].step) is not None and step.origin is Origin.USER][-PINNED:]
        if pinned:
            said = PINNED_HEAD + "".join(lines.line(i)[0] for i in pinned)
            start, text, tokens = _fit(front, title, since, conversations, lines, room - count_tokens(said), budget, said)
            pinned = [i for i in pinned if i < start]
    front_tokens = sum(sum(c.tokens.values()) for c in front.choices if c.kept)
    return Bundle(
        agent=scan.id,
        since=since,
        text=text,
        tokens=tokens,
        budget=budget,
        redactions=front.redactions + (lines.redactions(start) if start < total else 0),
        conversations=conversations,
        items_total=total,
        items_kept=total - start + len(pinned),
        outputs_cut=cut,
        skills_read=list(dict.fromkeys(front.skills + skills_read)),
        lines_cut=len({i for i in lines.cut_lines if i >= start}),
        problems=problems,
        turns=[c.to_json() for c in front.choices],
        parts={
            "triggering_turns": front_tokens,
            "effects": front.effects_tokens,
            "activity": sum(lines.line(i)[1] for i in range(start, total)),
        },
        read_to=read_to,
        sources=ids.sent(
            [tag for c in front.choices if c.kept for tag in c.tags] + [items[i].tag for i in [*pinned, *range(start, total)]]
        ),
    )


PINNED = 3  # the user's newest lines kept in a bundle whose budget would otherwise leave none of their words
PINNED_HEAD = "[the user's own words earlier in this period, kept though older lines were dropped: only they may set a rule]\n"


def _fit(
    front: Front,
    title: str,
    since: datetime | None,
    conversations: list[str],
    lines: _Lines,
    room: int,
    budget: int,
    pinned: str,
) -> tuple[int, str, int]:
    """The first activity line kept, the bundle's text and its tokens: the newest lines that fit ``room``
    after the front, counted again as a whole (``pinned``: the user's lines kept above the cut)."""
    items, total = lines.items, len(lines.items)
    start = 0
    while True:
        if start < total:
            start = lines.first_fitting(start, room - count_tokens(_header(since, conversations, start)))
        _place(front, items, start)
        head = front.render(title) + _header(since, conversations, start) + pinned
        text = head + "".join(lines.line(i)[0] for i in range(start, total))
        tokens = count_tokens(text)
        if tokens <= budget:
            return start, text, tokens
        if start < total - 1 or (front.tokens and start < total):  # with a front, the activity may go whole
            start += 1
            continue
        text = truncate_to_tokens(text, budget)
        return start, text, count_tokens(text)


def _place(front: Front, items: list[BundleItem], start: int) -> None:
    """Count, for each triggering turn, how many of its lines the activity from ``start`` on shows."""
    kept = {(item.source, item.offset) for item in items[start:]}
    for choice in front.choices:
        conversation = choice.trigger.summary.conversation
        choice.in_activity = sum(
            1 for e in choice.evidence.events if (conversation, e.offset) in kept and (conversation, e.offset) not in choice.shown
        )
