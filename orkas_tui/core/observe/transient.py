"""The transient-error rule: errors of the environment never teach anything.

Order (spec), for an event a runtime wrote: an explicit ``transient`` flag wins; else an
HTTP status in the transient set; else a network/limit pattern in the message; else the
error is real.

An imported event carries no verdict but what its importer knew (its ``failure``, a
:class:`~orkas_tui.core.read.events.Failure`), which names the agent whose words apply
(``vocabulary``, see :mod:`orkas_tui.core.observe.vocabularies`). Its order: a call the user rejected or
interrupted, or one cancelled by another call's error, is transient; then the agent's
real error kinds, its transient kinds; then its statuses and words for a usage cap or an
authentication failure (real); then a request the agent retried (transient); then the
spec's order with the agent's statuses and patterns added to the settings'. Each verdict
carries the reason, so the UI can say *why* an error counted; docs/rules.md lists them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import msgspec

from orkas_tui.core.observe.needles import AnyOf, Needled, any_of, first_match, lowered, needled
from orkas_tui.core.observe.vocabularies import CONTENT, VOCABULARIES, Vocabulary
from orkas_tui.core.read.events import Failure
from orkas_tui.core.read.settings import Settings

# The rule's version, with every word of the agents' vocabularies: caches of verdicts include it in
# their fingerprint. 2: stream failures joined the defaults. 3: one rule for runtime and imported events.
VERSION = [3, CONTENT]

REJECTED = "the user rejected the call; not a tool failure"
INTERRUPTED = "the user interrupted the call; not a tool failure"
COLLATERAL = "collateral of another call's error"


@dataclass(frozen=True, slots=True)
class ErrorVerdict:
    transient: bool
    reason: str


class _Agent(msgspec.Struct, frozen=True):
    """A vocabulary compiled together with the settings' statuses and patterns."""

    label: str
    real_kinds: frozenset[str]
    transient_kinds: frozenset[str]
    real_statuses: frozenset[int]
    real: AnyOf | None
    status_in_text: Needled
    statuses: frozenset[int]
    patterns: list[Needled]


class TransientRule:
    """Compiled form of the settings' statuses and patterns (and, once asked for, each agent's words)."""

    def __init__(self, statuses: tuple[int, ...], patterns: tuple[str, ...]) -> None:
        self.statuses = frozenset(statuses)
        self._patterns = [needled(re.compile(p, re.IGNORECASE)) for p in patterns]
        self._agents: dict[str, _Agent | None] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> TransientRule:
        return _cached_rule(settings.transient_statuses, settings.transient_patterns)

    def classify(
        self, message: object, status: object = None, flag: object = None, facts: Failure | None = None, written: object = None
    ) -> ErrorVerdict:
        """The verdict on one error; ``written``: the reason an event gave with its explicit flag."""
        if flag is True or flag is False:
            if isinstance(written, str) and written:
                return ErrorVerdict(flag, written)
            return ErrorVerdict(flag, "marked transient by the runtime" if flag else "marked not transient by the runtime")
        text = message if isinstance(message, str) else ""
        code = status if isinstance(status, int) and not isinstance(status, bool) else None
        if facts is None:
            return _judge(text, lowered(text), code, self.statuses, self._patterns)
        if facts.rejected:
            return ErrorVerdict(True, REJECTED)
        if facts.interrupted:
            return ErrorVerdict(True, INTERRUPTED)
        if facts.collateral:
            return ErrorVerdict(True, COLLATERAL)
        agent = self._agent(facts.vocabulary)
        if agent is None:  # a vocabulary this version does not know: the spec's order
            return _judge(text, lowered(text), code, self.statuses, self._patterns)
        return self._judge_agent(agent, text, code, facts)

    @staticmethod
    def _judge_agent(agent: _Agent, text: str, code: int | None, facts: Failure) -> ErrorVerdict:
        kind = facts.kind
        if kind in agent.real_kinds:
            return ErrorVerdict(False, f"{agent.label} error kind {kind} is real")
        if kind in agent.transient_kinds:
            return ErrorVerdict(True, f"{agent.label} error kind {kind} is transient")
        folded = lowered(text)
        if code is None and (found := agent.status_in_text.search(text, folded)):
            code = int(found.group(1))
        if code in agent.real_statuses:
            return ErrorVerdict(False, f"real: HTTP status {code} is an authentication or permission failure")
        if agent.real is not None and (match := agent.real.search(text, folded)):
            return ErrorVerdict(False, f"real: usage cap or authentication failure {match.group(0)!r}")
        if facts.retried:
            return ErrorVerdict(True, f"{agent.label} retried it (retry metadata)")
        return _judge(text, folded, code, agent.statuses, agent.patterns)

    def _agent(self, name: str) -> _Agent | None:
        if name not in self._agents:
            vocabulary = VOCABULARIES.get(name)
            self._agents[name] = None if vocabulary is None else self._compile(vocabulary)
        return self._agents[name]

    def _compile(self, vocabulary: Vocabulary) -> _Agent:
        return _Agent(
            vocabulary.label,
            frozenset(vocabulary.real_kinds),
            frozenset(vocabulary.transient_kinds),
            frozenset(vocabulary.real_statuses),
            any_of(vocabulary.real_patterns, re.IGNORECASE),
            needled(re.compile(vocabulary.status_in_text)),
            self.statuses | frozenset(vocabulary.transient_statuses),
            self._patterns + [needled(re.compile(p, re.IGNORECASE)) for p in vocabulary.transient_patterns],
        )


def _judge(text: str, folded: str, code: int | None, statuses: frozenset[int], patterns: list[Needled]) -> ErrorVerdict:
    """The spec's order after the flag: a transient status, a network/limit pattern (the first in
    order that matches; each ruled out by its literal where it can be, :mod:`.needles`), else real."""
    if code is not None and code in statuses:
        return ErrorVerdict(True, f"HTTP status {code} is transient")
    if match := first_match(patterns, text, folded):
        return ErrorVerdict(True, f"message matches network/limit pattern {match.group(0)!r}")
    return ErrorVerdict(
        False, f"real: {f'status {code}' if code is not None else 'no transient flag, status or network pattern'}"
    )


def error_facts(value: object) -> Failure | None:
    """An event's ``failure`` (typed, or as a dict from a line the typed decoder refused); ``None``
    when there is none or it is not such an object: the event is then judged as a runtime's."""
    if isinstance(value, Failure) or value is None:
        return value
    try:
        return msgspec.convert(value, Failure)
    except msgspec.ValidationError:
        return None


@lru_cache(maxsize=8)
def _cached_rule(statuses: tuple[int, ...], patterns: tuple[str, ...]) -> TransientRule:
    return TransientRule(statuses, patterns)
