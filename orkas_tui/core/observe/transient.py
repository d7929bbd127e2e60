"""The transient-error rule: errors of the environment never teach anything.

Order (spec): an explicit ``transient`` flag wins; else an HTTP status in the
transient set; else a network/limit pattern in the message; else the error is real.
Each verdict carries the reason, so the UI can say *why* an error counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from orkas_tui.core.read.settings import Settings

VERSION = 1


@dataclass(frozen=True, slots=True)
class ErrorVerdict:
    transient: bool
    reason: str


class TransientRule:
    """Compiled form of the settings' statuses and patterns."""

    def __init__(self, statuses: tuple[int, ...], patterns: tuple[str, ...]) -> None:
        self.statuses = frozenset(statuses)
        self._patterns = [(p, re.compile(p, re.IGNORECASE)) for p in patterns]

    @classmethod
    def from_settings(cls, settings: Settings) -> "TransientRule":
        return _cached_rule(settings.transient_statuses, settings.transient_patterns)

    def classify(self, message: object, status: object = None, flag: object = None) -> ErrorVerdict:
        if flag is True:
            return ErrorVerdict(True, "marked transient by the runtime")
        if flag is False:
            return ErrorVerdict(False, "marked not transient by the runtime")
        if isinstance(status, int) and not isinstance(status, bool) and status in self.statuses:
            return ErrorVerdict(True, f"HTTP status {status} is transient")
        text = message if isinstance(message, str) else ""
        for source, pattern in self._patterns:
            match = pattern.search(text)
            if match:
                return ErrorVerdict(True, f"message matches network/limit pattern {match.group(0)!r}")
        why = (
            f"status {status}"
            if isinstance(status, int) and not isinstance(status, bool)
            else "no transient flag, status or network pattern"
        )
        return ErrorVerdict(False, f"real: {why}")


@lru_cache(maxsize=8)
def _cached_rule(statuses: tuple[int, ...], patterns: tuple[str, ...]) -> TransientRule:
    return TransientRule(statuses, patterns)
