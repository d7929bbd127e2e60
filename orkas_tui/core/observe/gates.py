"""Patterns tried only when the text holds one of their words: the correction readers' prefilter.

The readers run on every prompt of a cold scan and most prompts hold none of most patterns'
words, so each alternative names the whole words (looked up in the text's set of words: one
C call for all of a gate) or the fragments (substrings, for scripts without spaces and for
word parts) one of which it cannot match without. A test holds every alternative's needles to
its pattern on every real and synthetic prompt (tests/core/test_correction_corpus.py).
"""

from __future__ import annotations

import re

WORD = re.compile(r"\w+")  # a word as ``\b`` delimits it: what the gates look words up as

Alternative = tuple[tuple[str, ...], tuple[str, ...], str]


def alternative(pattern: str, words: tuple[str, ...] = (), fragments: tuple[str, ...] = ()) -> Alternative:
    """One alternative: its pattern (case-insensitive), the whole words one of which it needs, the fragments likewise."""
    return words, fragments, pattern


class Gate:
    """Alternatives searched as one alternation would be (the leftmost match, the first alternative
    at a tie), each only when one of its needles is in the text. Compiled on first use: a warm
    start reads no prompt and compiles none."""

    __slots__ = ("_alternatives", "_given", "ascii_fragments", "other_fragments", "words")

    def __init__(self, *alternatives: Alternative) -> None:
        self._given = alternatives
        self.words = frozenset(word for words, _fragments, _pattern in alternatives for word in words)
        fragments = sorted({fragment for _words, fragments, _pattern in alternatives for fragment in fragments})
        # a fragment beyond ASCII cannot be in an ASCII text (most prompts): not looked for there
        self.ascii_fragments = tuple(fragment for fragment in fragments if fragment.isascii())
        self.other_fragments = tuple(fragment for fragment in fragments if not fragment.isascii())
        self._alternatives: tuple[tuple[frozenset[str], tuple[str, ...], re.Pattern[str]], ...] | None = None

    @classmethod
    def joined(cls, *gates: Gate) -> Gate:
        """One gate of all their alternatives: closed exactly when every one of them is."""
        return cls(*(given for gate in gates for given in gate._given))

    @property
    def alternatives(self) -> tuple[tuple[frozenset[str], tuple[str, ...], re.Pattern[str]], ...]:
        if self._alternatives is None:
            self._alternatives = tuple(
                (frozenset(words), fragments, re.compile(pattern, re.IGNORECASE)) for words, fragments, pattern in self._given
            )
        return self._alternatives

    def closed(self, lowered: str, words: frozenset[str]) -> bool:
        """No alternative can match: none of the gate's words and none of its fragments is there."""
        return (
            self.words.isdisjoint(words)
            and not any(fragment in lowered for fragment in self.ascii_fragments)
            and (lowered.isascii() or not any(fragment in lowered for fragment in self.other_fragments))
        )

    def search(self, text: str, lowered: str, words: frozenset[str] | None = None) -> re.Match[str] | None:
        """The leftmost match in ``text``; ``lowered`` is it lowercased, ``words`` its words (``None``: found here)."""
        if words is None:
            words = frozenset(WORD.findall(lowered))
        if self.closed(lowered, words):
            return None  # most prompts, most gates
        best: re.Match[str] | None = None
        for needed, fragments, pattern in self.alternatives:
            if needed.isdisjoint(words) and not any(fragment in lowered for fragment in fragments):
                continue
            found = pattern.search(text)
            if found is not None and (best is None or found.start() < best.start()):
                best = found
        return best
