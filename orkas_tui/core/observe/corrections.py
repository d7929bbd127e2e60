"""The correction heuristic: a signal, not a verdict.

Phrases match case-insensitively; phrases in scripts that separate words (Latin,
Cyrillic, ...) match on word boundaries, phrases in scripts that do not (Chinese,
Japanese) match anywhere. Typographic apostrophes are folded to ``'`` first.
"""

from __future__ import annotations

import re
from functools import lru_cache

VERSION = 1

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"})


def _unbounded_script(phrase: str) -> bool:
    """True when the phrase is written in a script without spaces between words."""
    for char in phrase:
        code = ord(char)
        if (
            0x3040 <= code <= 0x30FF  # kana
            or 0x3400 <= code <= 0x4DBF
            or 0x4E00 <= code <= 0x9FFF  # CJK ideographs
            or 0xF900 <= code <= 0xFAFF
            or 0x0E00 <= code <= 0x0E7F  # Thai
        ):
            return True
    return False


class CorrectionMatcher:
    def __init__(self, phrases: tuple[str, ...]) -> None:
        bounded, unbounded = [], []
        for phrase in sorted({p.translate(_APOSTROPHES).strip() for p in phrases if p.strip()}, key=len, reverse=True):
            (unbounded if _unbounded_script(phrase) else bounded).append(re.escape(phrase).replace(r"\ ", r"\s+"))
        parts = []
        if bounded:
            parts.append(r"(?<!\w)(?:" + "|".join(bounded) + r")(?!\w)")
        if unbounded:
            parts.append("(?:" + "|".join(unbounded) + ")")
        self._regex = re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def find(self, text: object) -> str | None:
        """The first phrase found in ``text``, as written there, or ``None``."""
        if self._regex is None or not isinstance(text, str) or not text:
            return None
        match = self._regex.search(text.translate(_APOSTROPHES))
        return match.group(0) if match else None


@lru_cache(maxsize=8)
def matcher_for(phrases: tuple[str, ...]) -> CorrectionMatcher:
    return CorrectionMatcher(phrases)
