"""Secrets never leave the machine: redact them before anything is counted or sent."""

from __future__ import annotations

import re
from functools import lru_cache

MARK = "[REDACTED]"


class Redactor:
    """Replaces every match of the configured patterns and counts the replacements."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self._patterns = _compiled(patterns)
        self.count = 0

    def __call__(self, text: str) -> str:
        for pattern in self._patterns:
            text, n = pattern.subn(MARK, text)
            self.count += n
        return text


@lru_cache(maxsize=4)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p) for p in patterns)
