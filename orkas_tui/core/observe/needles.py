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
_ODD = re.compile("[\u0130\u0131\u017f\u212a]")


class Needled(NamedTuple):
    """A compiled pattern and the literal any match contains (``""``, in every text: always searched)."""

    pattern: re.Pattern[str]
    needle: str
    folded: bool  # the needle is lowered ASCII, looked for in the lowered text

    def search(self, text: str, lowered: str) -> re.Match[str] | None:
        """``pattern.search(text)``; ``lowered``: :func:`lowered` of ``text``."""
        return self.pattern.search(text) if self.needle in (lowered if self.folded else text) else None


def first_match(patterns: list[Needled], text: str, lowered: str) -> re.Match[str] | None:
    """The match of the first of ``patterns`` that matches ``text``: :meth:`Needled.search` of each
    in turn, written out (this loop runs some 30 times an error)."""
    for pattern, needle, folded in patterns:
        if needle in (lowered if folded else text) and (match := pattern.search(text)):
            return match
    return None


def needled(pattern: re.Pattern[str]) -> Needled:
    needle = _literal(pattern)
    folded = bool(pattern.flags & re.IGNORECASE)
    if folded and not needle.isascii():
        needle = ""
    return Needled(pattern, needle.lower() if folded else needle, folded)


def lowered(text: str) -> str:
    """What :meth:`Needled.search` looks folded needles up in: each character that can match an
    ASCII letter, as that letter in lower case (a character lowered to two only lengthens the text
    around a match, never inside one)."""
    return text.lower() if text.isascii() or not _ODD.search(text) else text.translate(FOLD).lower()


def _literal(pattern: re.Pattern[str]) -> str:
    """The longest run of literal characters at the pattern's top level (every match holds it);
    ``""`` if none is :data:`MIN_NEEDLE` long."""
    if pattern.flags & re.LOCALE:
        return ""
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        items = _parser.parse(pattern.pattern, pattern.flags)
        literal = _constants.LITERAL
    except Exception:  # another interpreter's internals: no prefilter, the expression decides
        return ""
    best, run = "", []
    for op, value in items:
        if op is literal:
            run.append(chr(value))
            continue
        best = max(best, "".join(run), key=len)
        run = []
    best = max(best, "".join(run), key=len)
    return best if len(best) >= MIN_NEEDLE else ""


class AnyOf(NamedTuple):
    """Patterns searched as one alternation (its leftmost match), only when one of their needles is present."""

    parts: tuple[Needled, ...]
    pattern: re.Pattern[str]

    def search(self, text: str, lowered: str) -> re.Match[str] | None:
        for _, needle, folded in self.parts:
            if needle in (lowered if folded else text):
                return self.pattern.search(text)
        return None


def any_of(patterns: tuple[str, ...], flags: int) -> AnyOf | None:
    if not patterns:
        return None
    joined = re.compile("|".join(f"(?:{p})" for p in patterns), flags)
    return AnyOf(tuple(needled(re.compile(p, flags)) for p in patterns), joined)
