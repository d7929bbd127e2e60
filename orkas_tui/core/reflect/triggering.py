"""The bundle's front (what it holds first): the triggering turns, the effect of recent changes to their skills and to the agent.

Filled by priority under the token budget, never by position: first, for every
triggering turn while they fit (most recent first), its heading, signals with
their evidence and opening prompt; then the corrections of those turns, in full;
then their real errors, each with its call (arguments cut), its output's head and
tail, and what the agent did next; then the effect of the latest change to each
skill read; then one line per recent change (:func:`recent_effects`), newest first,
with the agent's corrections and real errors per turn before → after. A turn's last
line says how many of its lines the bundle holds and how many it leaves out; it is
counted with the largest numbers it can show, so the real numbers, known only once
the rest of the activity is chosen, never cost more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from orkas_tui.core.observe.signals import rule_text
from orkas_tui.core.observe.turns import Correction
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.reflect.effects import Effect
from orkas_tui.core.reflect.evidence import (
    ARGS_CHARS,
    ERROR_CHARS,
    NEXT_CHARS,
    OUTPUT_CHARS,
    Triggering,
    TurnError,
    TurnEvidence,
    cut_chars,
    gather,
    one_line,
)
from orkas_tui.core.reflect.sources import SourceIds
from orkas_tui.core.reflect.tokens import count_tokens, cut_middle_to_tokens, encoding, truncate_to_tokens
from orkas_tui.core.store.redact import Redactor
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.transcript import Spans, Step
from orkas_tui.core.textfmt import rate

PROMPT_MIN = 60  # tokens of an opening prompt (not a correction) at the least, however many turns triggered
Key = tuple[str, int]  # (conversation, byte offset of the event's line)


@dataclass
class TurnChoice:
    """What the bundle holds of one triggering turn, and what it cost: the preview's row."""

    trigger: Triggering
    evidence: TurnEvidence
    parts: dict[str, str] = field(default_factory=dict)  # signals (with the turn's heading), prompt: text
    corrections: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)
    shown: set[Key] = field(default_factory=set)
    prompt_cut: bool = False
    in_activity: int = 0
    tags: list[str] = field(default_factory=list)  # the source ids of what it shows

    @property
    def kept(self) -> bool:
        return bool(self.parts)

    @property
    def prompt_corrects(self) -> bool:
        """Whether the opening prompt is itself a correction (then shown in full as the prompt)."""
        prompt = self.evidence.prompt
        return self.kept and prompt is not None and any(step is prompt for step, _ in self.evidence.corrections)

    @property
    def left_out(self) -> int:
        return len(self.evidence.events) - len(self.shown) - self.in_activity

    def footnote(self, largest: bool = False) -> str:
        n = len(self.evidence.events)
        here, below, out = (n, n, n) if largest else (len(self.shown), self.in_activity, self.left_out)
        errors = len(self.evidence.errors)
        shown_errors = errors if largest else len(self.errors)
        text = f"[this turn has {n} line(s): {here} above, {below} in the activity below, {out} left out"
        if errors:
            text += f"; {shown_errors} of {errors} real error(s) above"
        if self.evidence.transient:
            text += f"; {self.evidence.transient} transient error(s) not shown (the environment's)"
        return text + "]\n"

    def render(self) -> str:
        out = self.parts["signals"] + self.parts["prompt"]
        if self.corrections:
            out += "corrections, in full:\n" + "".join(self.corrections)
        if self.errors:
            out += "real errors, each with its call and what came next:\n" + "".join(self.errors)
        return out + self.footnote() + "\n"

    def to_json(self) -> dict:
        turn = self.trigger.summary
        head = {
            "conversation": turn.conversation,
            "turn": turn.turn,
            "ended_at": turn.ended_at,
            "score": turn.score,
            "signals": list(turn.signals),
            "kept": self.kept,
        }
        if not self.kept:  # never read: left out before its turn came
            return head
        return {
            **head,
            "lines": len(self.evidence.events),
            "lines_above": len(self.shown),
            "lines_in_activity": self.in_activity,
            "lines_left_out": self.left_out,
            "prompt_cut": self.prompt_cut,
            "corrections": {"kept": len(self.corrections) + self.prompt_corrects, "total": len(self.evidence.corrections)},
            "errors": {"kept": len(self.errors), "total": len(self.evidence.errors)},
            "transient_errors_left_out": self.evidence.transient,
            "tokens": dict(self.tokens),
        }


@dataclass
class Front:
    choices: list[TurnChoice]
    effects: str
    tokens: int  # counted with each footnote's largest numbers
    effects_tokens: int
    skills: list[str]
    redactions: int = 0  # in what the front sends

    @property
    def shown(self) -> set[Key]:
        return set().union(*(c.shown for c in self.choices)) if self.choices else set()

    def render(self, title: str) -> str:
        kept = [c for c in self.choices if c.kept]
        out = title + "".join(c.render() for c in kept) if self.choices else ""
        left = len(self.choices) - len(kept)
        if left:
            out += f"[{left} older triggering turn(s) left out to fit the token budget]\n\n"
        return out + self.effects


MARGIN = 96  # characters scanned for secrets beyond what a cut keeps, so one cut by the edge is still found
WHOLE = "PRIVATE KEY"  # a key block can be longer than any margin: such a text is always scanned whole


def _ends(text: str, head: int, tail: int, redact: Callable[[str], str]) -> tuple[str, str] | None:
    """The redacted first ``head`` and last ``tail`` characters, each scanned with a margin; ``None`` when the
    text must be scanned whole (short, a key block, or a redaction inside a margin changed the lengths)."""
    if len(text) <= head + tail + 4 * MARGIN or WHOLE in text:
        return None
    first = redact(text[: head + MARGIN])
    last = redact(text[-(tail + MARGIN) :])
    if len(first) != head + MARGIN or len(last) != tail + MARGIN:
        return None
    return first[:head], last[MARGIN:]


def clip_chars(text: str, limit: int, redact: Callable[[str], str]) -> str:
    """``text`` redacted and cut to about ``limit`` characters, head and tail kept, the cut marked.

    Only the ends are scanned for secrets (with a margin): the middle is never sent,
    and a 20 MB output costs what its ends cost."""
    head = limit * 2 // 3
    ends = _ends(text, head, limit - head, redact)
    if ends is None:
        return cut_chars(redact(text), limit)
    return f"{ends[0]} … [cut {len(text) - limit:,} chars] … {ends[1]}"


def clip_tokens(text: str, limit: int, redact: Callable[[str], str]) -> tuple[str, bool]:
    """``text`` redacted and cut to at most ``limit`` tokens, head and tail kept, and whether it was cut;
    as :func:`clip_chars`, only the two ends are scanned when the text is long."""
    window = 4 * limit + 64  # characters: more than ``limit`` tokens of any ordinary text
    ends = _ends(text, window, window, redact)
    if ends is not None:
        marker = f"\n[… {len(text):,} characters, cut here …]\n"
        room = max(0, limit - count_tokens(marker) - 2)
        first = truncate_to_tokens(ends[0], room - room // 2)
        ids = encoding().encode(ends[1], disallowed_special=())
        last = encoding().decode(ids[-(room // 2) :]) if room // 2 else ""
        kept = first + marker + last
        if len(first) < len(ends[0]) and len(ids) > room // 2 and count_tokens(kept) <= limit:
            return kept, True
    clean = redact(text)
    cut = cut_middle_to_tokens(clean, limit)
    return cut, cut != clean


def _redact_lines(texts: list[str], redact: Redactor) -> list[str]:
    """Short one-line texts redacted in one scan, one a line; each alone if one holds a line break or a
    secret ran across lines (then the scan's count is taken back)."""
    if not any("\n" in text for text in texts):
        before = redact.count
        lines = redact("\n".join(texts)).split("\n")
        if len(lines) == len(texts):
            return lines
        redact.count = before
    return [redact(text) for text in texts]


def _ts(step: Step) -> str:
    stamp = step.event.ts
    return stamp if isinstance(stamp, str) else "?"


def _clip_many(pieces: list[tuple[str, int]], redact: Redactor) -> list[str]:
    """Each one-line text cut as :func:`clip_chars` cuts it; the short ones (scanned whole) share one scan."""
    short = [i for i, (text, limit) in enumerate(pieces) if len(text) <= limit + 4 * MARGIN]
    out: list[str | None] = [None] * len(pieces)
    for i, clean in zip(short, _redact_lines([pieces[i][0] for i in short], redact), strict=True):
        out[i] = cut_chars(clean, pieces[i][1])
    return [done if done is not None else clip_chars(*pieces[i], redact) for i, done in enumerate(out)]


def _error_entry(error: TurnError, redact: Redactor, tag: str) -> str:
    event = error.result.event
    stamp = _ts(error.result)
    if event.type == "turn_end":
        message = event.error if isinstance(event.error, str) else "turn ended in error"
        (text,) = _clip_many([(one_line(message), ERROR_CHARS)], redact)
        return f"- [{stamp}] the turn ended with an error {{{tag}}}: {text}\n"
    status = event.status
    code = f" status {status}" if isinstance(status, int) and not isinstance(status, bool) else ""
    message = event.error if isinstance(event.error, str) else ""
    output = event.output
    pieces: dict[str, tuple[str, int]] = {}
    if error.call is not None:
        pieces["args"] = (one_line(_args(error.call)), ARGS_CHARS)
    if message:
        pieces["message"] = (one_line(message), ERROR_CHARS)
    if isinstance(output, str) and output.strip() and one_line(output) != one_line(message):
        pieces["output"] = (one_line(output), OUTPUT_CHARS)
    step, said = _step(error.next) if error.next is not None else ("", None)
    if said is not None:
        pieces["next"] = (said, NEXT_CHARS)
    cut = dict(zip(pieces, _clip_many(list(pieces.values()), redact), strict=True))
    if error.call is not None:
        head = f"- [{stamp}] `{error.call.event.name}` {cut['args']} → error{code} {{{tag}}}"
    else:
        head = f"- [{stamp}] call {event.id} → error{code} {{{tag}}}"
    out = f"{head}: {cut['message']}\n" if message else f"{head}\n"
    if "output" in cut:
        out += f"    output: {cut['output']}\n"
    if error.next is not None:
        out += f"    next: {step}{cut.get('next', '')}\n"
    return out


def _args(step: Step) -> object:
    args = step.event.args
    return {} if args is None else args


def _step(step: Step) -> tuple[str, str | None]:
    """What the agent did next: a fixed part, and the text to cut and scan (``None``: nothing more)."""
    event = step.event
    kind = event.type
    if kind == "tool_call":
        return f"`{event.name}` ", one_line(_args(step))
    if kind == "turn_end":
        return f"the turn ended {event.status}", None
    who = "the agent said" if kind == "assistant" else "the user said"
    return f"{who}: ", one_line("" if event.text is None else event.text)


def _first_parts(choice: TurnChoice, scan: AgentScan, redact: Redactor, budget: int, prompt_tokens: int, ids: SourceIds) -> None:
    """Heading, signals with evidence, opening prompt (in full up to a share of the budget if it is the correction)."""
    summary = choice.trigger.summary
    names = list(summary.signals)
    turn, *evidence = _redact_lines([summary.turn, *(summary.evidence[name] for name in names)], redact)
    heading = (
        f"## Turn {turn} of conversation {summary.conversation}: ended {summary.status} "
        f"at {summary.ended_at}, score {summary.score:g}\nsignals:\n"
        + "".join(
            f"- {name} ({summary.signals[name]:g}, {rule_text(name, scan.settings)}): {text}\n"
            for name, text in zip(names, evidence, strict=True)
        )
    )
    prompt = choice.evidence.prompt
    if prompt is None:
        start = choice.evidence.events[0].event if choice.evidence.events else None
        parent = start.parent if start is not None and start.type == "turn_start" else None
        text = f"(none: delegated by {parent})" if isinstance(parent, str) else "(the turn has no user message)"
        text, label = redact(text), "opening prompt"
    else:
        corrected = any(step is prompt for step, _ in choice.evidence.corrections)
        text, choice.prompt_cut = clip_tokens(_said(prompt), budget // 8 if corrected else prompt_tokens, redact)
        label = "opening prompt (also the correction, in full)" if corrected else "opening prompt"
        tag = ids.tag(summary.conversation, prompt)
        label = f"{label} [{_ts(prompt)}] {{{tag}}}"
        choice.shown.add((summary.conversation, prompt.offset))
        choice.tags.append(tag)
    choice.parts = {"signals": heading, "prompt": f"{label}:\n{text}\n"}
    choice.tokens = {name: count_tokens(part) for name, part in choice.parts.items()}


def build_front(
    scan: AgentScan,
    triggering: list[Triggering],
    budget: int,
    redact: Redactor,
    skills_read: list[str],
    title: str,
    effects: dict[str, Effect],
    since: datetime | None,
    ids: SourceIds,
) -> Front:
    """The front within ``budget`` tokens (the title included), filled by priority; ``effects``: of every
    applied change (:func:`~orkas_tui.core.reflect.effects.measure_effects`), ``since``: the last reflection."""
    used = count_tokens(title)
    start = redact.count
    choices = [TurnChoice(t, TurnEvidence([])) for t in triggering]  # each read from its file when its turn comes
    prompt_tokens = max(PROMPT_MIN, min(budget // 30, budget // 4 // max(1, len(choices))))  # all prompts: a quarter
    with Spans(scan.settings.max_line_bytes) as spans:
        for choice in choices:  # 1. every turn while it fits: heading, signals, opening prompt
            before = redact.count
            choice.evidence = gather(choice.trigger, spans)
            probe = TurnChoice(choice.trigger, choice.evidence)
            _first_parts(probe, scan, redact, budget, prompt_tokens, ids)
            cost = sum(probe.tokens.values()) + count_tokens(probe.footnote(largest=True) + "\n")
            if used + cost > budget:
                redact.count = before
                break
            choice.parts, choice.tokens, choice.shown, choice.tags = probe.parts, probe.tokens, probe.shown, probe.tags
            choice.prompt_cut = probe.prompt_cut
            used += cost
    kept = [c for c in choices if c.kept]
    if len(kept) < len(choices):
        used += count_tokens(f"[{len(choices)} older triggering turn(s) left out to fit the token budget]\n\n")
    for choice in kept:  # 2. corrections in full (the opening prompt's already is)
        label = count_tokens("corrections, in full:\n")
        for step, correction in choice.evidence.corrections:
            if step is choice.evidence.prompt:
                continue
            before = redact.count
            tag = ids.tag(choice.trigger.summary.conversation, step)
            entry = _correction_entry(step, correction, budget, redact, tag)
            cost = count_tokens(entry) + (0 if choice.corrections else label)
            if used + cost <= budget:
                choice.corrections.append(entry)
                choice.tags.append(tag)
                choice.shown.add((choice.trigger.summary.conversation, step.offset))
                choice.tokens["corrections"] = choice.tokens.get("corrections", 0) + cost
                used += cost
            else:
                redact.count = before  # not sent: not counted
    for choice in kept:  # 3. every real error, with its call and what came next
        label = count_tokens("real errors, each with its call and what came next:\n")
        conversation = choice.trigger.summary.conversation
        for error in choice.evidence.errors:
            before = redact.count
            tag = ids.tag(conversation, error.result)
            entry = _error_entry(error, redact, tag)
            cost = count_tokens(entry) + (0 if choice.errors else label)
            if used + cost <= budget:
                choice.errors.append(entry)
                choice.tags.append(tag)
                choice.shown.update((conversation, e.offset) for e in (error.result, error.call) if e is not None)
                choice.tokens["errors"] = choice.tokens.get("errors", 0) + cost
                used += cost
            else:
                redact.count = before
    skills = list(dict.fromkeys([s for c in kept for s in c.trigger.summary.skills_read] + skills_read))
    before = redact.count
    text = _skill_effects(scan, skills, effects, redact)
    effects_tokens = count_tokens(text) if text else 0
    if used + effects_tokens > budget:  # 4. the effect of the latest change to each skill read
        text, effects_tokens, redact.count = "", 0, before
    lines, lines_tokens = _change_lines(recent_effects(effects, since), budget - used - effects_tokens, redact)
    text += lines  # 5. one line per recent change, while they fit
    effects_tokens += lines_tokens
    return Front(choices, text, used + effects_tokens, effects_tokens, skills, redact.count - start)


def _correction_entry(step: Step, correction: Correction, budget: int, redact: Callable[[str], str], tag: str) -> str:
    text, _cut = clip_tokens(_said(step), budget // 8, redact)
    return f"- [{_ts(step)}] the user ({correction.why}) {{{tag}}}: {text}\n"


def _said(step: Step) -> str:
    text = step.event.text
    return "" if text is None else str(text)


def _skill_effects(scan: AgentScan, skills: list[str], effects: dict[str, Effect], redact: Callable[[str], str]) -> str:
    wanted = set(skills)
    latest = {  # changes oldest first: the last one of each skill wins
        e.change.target: e
        for e in effects.values()
        if e.skill is not None and e.change.target in wanted and not e.change.reverted_at
    }
    if not latest:
        return ""
    lines = [
        f"- {slug}: {e.change.id} ({e.change.action}, {e.change.at}): {e.skill.phrase()}\n"
        for slug, e in sorted(latest.items())
        if e.skill is not None
    ]
    head = (
        f"# Effect of the latest change to each skill read: its rates over the {scan.settings.effect_window} turns "
        "showing it before the change and after it\n"
    )
    return redact(head + "".join(lines)) + "\n"


def recent_effects(effects: dict[str, Effect], since: datetime | None) -> list[Effect]:
    """The changes the next bundle reports, newest first: applied or reverted after ``since`` (the last
    reflection), or whose "after" windows filled after it (every change when never reflected on)."""

    def recent(moment: datetime | None) -> bool:
        return moment is not None and (since is None or moment > since)

    chosen = [
        e
        for e in effects.values()
        if recent(parse_ts(e.change.at)) or recent(parse_ts(e.change.reverted_at)) or recent(e.completed_at())
    ]
    return sorted(chosen, key=lambda e: e.change.ref.number, reverse=True)  # ids grow with time


def change_line(effect: Effect) -> str:
    """A change's effect on one line: the agent's two figures and, for a skill change, the skill's ineffectiveness."""
    change = effect.change
    state = f"reverted {change.reverted_at}" if change.reverted_at else f"applied {change.at}"
    text = f"- effect of change {change.id} ({change.action} {change.target}, {state}): {effect.agent.phrase()}"
    skill = effect.skill
    if skill is not None:
        if skill.after is not None:
            b, a = skill.before, skill.after
            text += (
                f"; skill {skill.skill} ineffective {rate(b.ineffective_rate)} ({b.turns} turns showing it)"
                f" → {rate(a.ineffective_rate)} ({a.turns} turns)"
            )
        else:
            text += f"; skill {skill.skill}: {skill.phrase()}"
    return text + "\n"


def _change_lines(recent: list[Effect], room: int, redact: Redactor) -> tuple[str, int]:
    """The header and a line per recent change, newest first, while the whole costs at most ``room`` tokens;
    the changes left out are counted on a last line."""
    if not recent:
        return "", 0
    start = redact.count
    head = redact(
        "# Effect of recent changes on the agent: corrections and real errors per real turn over the "
        f"{recent[0].agent.window.size} real turns before each change and after it, newest first\n"
    )
    lines: list[str] = []
    text, cost = "", 0
    for effect in recent:
        before = redact.count
        lines.append(redact(change_line(effect)))
        left = len(recent) - len(lines)
        note = f"[{left} older change(s) left out to fit the token budget]\n" if left else ""
        candidate = head + "".join(lines) + note + "\n"
        tokens = count_tokens(candidate)
        if tokens > room:
            lines.pop()
            redact.count = before
            break
        text, cost = candidate, tokens
    if not lines:
        redact.count = start
    return text, cost
