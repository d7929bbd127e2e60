"""Signals and the score: weights summed over what fired, with the evidence why.

Derived from a :class:`TurnRecord` plus the current settings and the tools that
``self/profile.md`` names, so re-scoring never touches the conversation files.
Transient errors never fire anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orkas_tui.core.observe.turns import TurnRecord
from orkas_tui.core.read.settings import Settings

_BACKTICKED = re.compile(r"`([^`\n]{1,80})`")

RULES = {
    "user_correction": "the user's message reads as a correction",
    "skill_ineffective": "a skill was read and the turn ended with a real error",
    "error_recovery": "a real tool error happened and the turn still ended ok",
    "known_weakness": "a real error came from a tool that self/profile.md names in backticks",
    "complex_task": "the turn made at least {n} tool calls",
}


@dataclass(frozen=True, slots=True)
class Score:
    signals: dict[str, float]
    evidence: dict[str, str]
    score: float
    triggers: bool


def weakness_tools(profile_text: str) -> frozenset[str]:
    """Tool names written in backticks in the profile note."""
    return frozenset(m.group(1).strip() for m in _BACKTICKED.finditer(profile_text or ""))


NOT_ENDED = Score({}, {}, 0.0, False)


def score_turn(record: TurnRecord, settings: Settings, weak_tools: frozenset[str]) -> Score:
    """Score an ended turn; a running turn is not observed until its ``turn_end``.

    The score is remembered on the record with what it was computed from, since
    the status, the queue and the TUI score every turn again on each refresh.
    """
    if not record.ended:
        return NOT_ENDED
    state = (record.status, record.tool_calls, len(record.errors), len(record.corrections), len(record.skills_read))
    memo = record.scored
    if memo is not None and memo[0] is settings and memo[2] == state and memo[1] == weak_tools:
        return memo[3]
    score = _score(record, settings, weak_tools)
    record.scored = (settings, weak_tools, state, score)
    return score


def _score(record: TurnRecord, settings: Settings, weak_tools: frozenset[str]) -> Score:
    if not record.corrections and not record.errors and record.tool_calls < settings.complex_min_tool_calls:
        return Score({}, {}, 0.0, settings.threshold <= 0.0)  # nothing can fire: most turns
    weights = settings.weights
    fired: dict[str, str] = {}
    if record.corrections:
        said = record.corrections[0]
        fired["user_correction"] = f'{said.why}, in the user\'s message: "{said.text}"'
    error = record.end_error
    if record.skills_read and record.ended_with_real_error and error is not None:
        fired["skill_ineffective"] = (
            f'read {", ".join(record.skills_read)}; the turn ended with a real error: "{error.message}" ({error.reason})'
        )
    tool_errors = [e for e in record.errors if not e.transient and e.source != "turn"]
    if tool_errors and record.status == "ok":
        first = tool_errors[0]
        fired["error_recovery"] = f'`{first.source}` failed with "{first.message}" ({first.reason}); the turn still ended ok'
    weak = [e for e in tool_errors if e.source in weak_tools]
    if weak:
        first = weak[0]
        fired["known_weakness"] = f'real error from `{first.source}`, which self/profile.md names: "{first.message}"'
    if record.tool_calls >= settings.complex_min_tool_calls:
        fired["complex_task"] = f"{record.tool_calls} tool calls (at least {settings.complex_min_tool_calls})"
    signals = {name: weights[name] for name in weights if name in fired}
    total = round(float(sum(signals.values())), 6)
    return Score(
        signals=signals,
        evidence={name: fired[name] for name in signals},
        score=total,
        triggers=total >= settings.threshold,
    )


def rule_text(name: str, settings: Settings) -> str:
    return RULES[name].format(n=settings.complex_min_tool_calls)
