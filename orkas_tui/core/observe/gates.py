"""Patterns tried only when the text holds one of their words: the correction readers' prefilter.

The readers run on every prompt of a cold scan and most prompts hold none of most patterns'
words, so each alternative names the whole words (looked up in the text's set of words: one
C call for all of a gate), or the first words (for a pattern anchored at the start: "but",
"and", "what" are in most prompts, first in few), or the fragments (substrings, for scripts
without spaces and for word parts) one of which it cannot match without. A test holds every
alternative's needles to its pattern on every real and synthetic prompt
(tests/core/test_correction_corpus.py).
"""

from __future__ import annotations

import re
from typing import NamedTuple

WORD = re.compile(r"\w+")  # a word as ``\b`` delimits it: what the gates look words up as


class Alternative(NamedTuple):
    words: tuple[str, ...]  # one of them anywhere, as a whole word
    fragments: tuple[str, ...]  # or one of them as a substring of the lowercased text
    opening: bool  # the words must be the text's first word instead (a pattern anchored at the start)
    pattern: str


class Compiled(NamedTuple):
    words: frozenset[str]
    fragments: tuple[str, ...]
    opening: bool
    pattern: re.Pattern[str]

    def admits(self, lowered: str, words: frozenset[str], first: str) -> bool:
        """The pattern has a chance: one of its needles is there."""
        if self.opening:
            return first in self.words
        return not self.words.isdisjoint(words) or any(fragment in lowered for fragment in self.fragments)


def alternative(pattern: str, words: tuple[str, ...] = (), fragments: tuple[str, ...] = ()) -> Alternative:
    """One alternative: its pattern (case-insensitive), the whole words one of which it needs, the fragments likewise."""
    return Alternative(words, fragments, False, pattern)


def opening(pattern: str, words: tuple[str, ...]) -> Alternative:
    """An alternative anchored at the start (``\\A\\W*``): one of ``words`` must be the text's first word."""
    return Alternative(words, (), True, pattern)


def first_word(lowered: str) -> str:
    found = WORD.search(lowered)
    return found.group() if found else ""


class Gate:
    """Alternatives searched as one alternation would be (the leftmost match, the first alternative
    at a tie), each only when one of its needles is in the text. Compiled on first use: a warm
    start reads no prompt and compiles none."""

    __slots__ = ("_alternatives", "_given", "ascii_fragments", "openers", "other_fragments", "words")

    def __init__(self, *alternatives: Alternative) -> None:
        self._given = alternatives
        self.words = frozenset(word for given in alternatives if not given.opening for word in given.words)
        self.openers = frozenset(word for given in alternatives if given.opening for word in given.words)
        fragments = sorted({fragment for given in alternatives for fragment in given.fragments})
        # a fragment beyond ASCII cannot be in an ASCII text (most prompts): not looked for there
        self.ascii_fragments = tuple(fragment for fragment in fragments if fragment.isascii())
        self.other_fragments = tuple(fragment for fragment in fragments if not fragment.isascii())
        self._alternatives: tuple[Compiled, ...] | None = None

    @classmethod
    def joined(cls, *gates: Gate) -> Gate:
        """One gate of all their alternatives: closed exactly when every one of them is."""
        return cls(*(given for gate in gates for given in gate._given))

    @property
    def alternatives(self) -> tuple[Compiled, ...]:
        if self._alternatives is None:
            self._alternatives = tuple(
                Compiled(frozenset(g.words), g.fragments, g.opening, re.compile(g.pattern, re.IGNORECASE)) for g in self._given
            )
        return self._alternatives

    def closed(self, lowered: str, words: frozenset[str], first: str) -> bool:
        """No alternative can match: none of the gate's words, first words or fragments is there."""
        return (
            self.words.isdisjoint(words)
            and first not in self.openers
            and not any(fragment in lowered for fragment in self.ascii_fragments)
            and (lowered.isascii() or not any(fragment in lowered for fragment in self.other_fragments))
        )

    def search(
        self, text: str, lowered: str, words: frozenset[str] | None = None, first: str | None = None
    ) -> re.Match[str] | None:
        """The leftmost match in ``text``; ``lowered`` is it lowercased, ``words`` its words and ``first``
        its first word (``None``: found here)."""
        if words is None:
            words = frozenset(WORD.findall(lowered))
        if first is None:
            first = first_word(lowered)
        if self.closed(lowered, words, first):
            return None  # most prompts, most gates
        best: re.Match[str] | None = None
        for compiled in self.alternatives:
            if not compiled.admits(lowered, words, first):
                continue
            found = compiled.pattern.search(text)
            if found is not None and (best is None or found.start() < best.start()):
                best = found
        return best
