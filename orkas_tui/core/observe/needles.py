"""A pattern with the literal it cannot match without: a substring test rules most texts out.

The transient rule searches some 30 patterns over error texts of up to 2,000 characters,
nearly all of which match none (issue 35: half of a cold status). Each pattern's longest
run of literal characters at its top level must appear in any text it matches, so a
C substring test (``in``) decides first, and the regular expression runs only where its
literal is present. Exact, not a guess: a case-insensitive pattern's ASCII literal is looked
for in the lowered text (:func:`lowered`: the four characters other than ASCII that
``re.IGNORECASE`` takes for an ASCII letter are turned into it first); for a pattern with
no such literal of :data:`MIN_NEEDLE` characters the expression runs as before.
"""

from __future__ import annotations

import re
from typing import NamedTuple

MIN_NEEDLE = 3  # a shorter literal rules out too few texts to pay for its test
# every character but ASCII that re.IGNORECASE matches with an ASCII letter (tests/core/test_needles.py)
FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


class Needled(NamedTuple):
    """A compiled pattern and the literal any match contains (``None``: always searched)."""

    pattern: re.Pattern[str]
    needle: str | None
    folded: bool  # the needle is lowered ASCII, looked for in the lowered text

    def search(self, text: str, lowered: str) -> re.Match[str] | None:
        """``pattern.search(text)``; ``lowered``: :func:`lowered` of ``text``."""
        needle = self.needle
        if needle is not None and needle not in (lowered if self.folded else text):
            return None
        return self.pattern.search(text)


def needled(pattern: re.Pattern[str]) -> Needled:
    needle = _literal(pattern)
    folded = bool(pattern.flags & re.IGNORECASE)
    if needle is not None and folded:
        needle = needle.lower() if needle.isascii() else None
    return Needled(pattern, needle, folded)


def lowered(text: str) -> str:
    """What :meth:`Needled.search` looks folded needles up in: each character that can match an
    ASCII letter, as that letter in lower case (a character lowered to two only lengthens the text
    around a match, never inside one)."""
    return text.lower() if text.isascii() else text.translate(FOLD).lower()


def _literal(pattern: re.Pattern[str]) -> str | None:
    """The longest run of literal characters at the pattern's top level (every match holds it)."""
    if pattern.flags & re.LOCALE:
        return None
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        items = _parser.parse(pattern.pattern, pattern.flags)
        literal = _constants.LITERAL
    except Exception:  # another interpreter's internals: no prefilter, the expression decides
        return None
    best, run = "", []
    for op, value in items:
        if op is literal:
            run.append(chr(value))
            continue
        best = max(best, "".join(run), key=len)
        run = []
    best = max(best, "".join(run), key=len)
    return best if len(best) >= MIN_NEEDLE else None


class AnyOf(NamedTuple):
    """Patterns searched as one alternation (its leftmost match), only when one of their needles is present."""

    parts: tuple[Needled, ...]
    pattern: re.Pattern[str]

    def search(self, text: str, lowered: str) -> re.Match[str] | None:
        for part in self.parts:
            if part.needle is None or part.needle in (lowered if part.folded else text):
                return self.pattern.search(text)
        return None


def any_of(patterns: tuple[str, ...], flags: int) -> AnyOf | None:
    if not patterns:
        return None
    joined = re.compile("|".join(f"(?:{p})" for p in patterns), flags)
    return AnyOf(tuple(needled(re.compile(p, flags)) for p in patterns), joined)
