"""The literal prefilter of the transient rule's patterns never changes what a pattern finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.observe.needles import FOLD, any_of, lowered, needled
from orkas_tui.core.observe.vocabularies import CLAUDE_CODE
from orkas_tui.core.read.settings import DEFAULT_TRANSIENT_PATTERNS

PATTERNS = (
    *DEFAULT_TRANSIENT_PATTERNS,
    *CLAUDE_CODE.transient_patterns,
    *CLAUDE_CODE.real_patterns,
    r"(?x) api \s error",  # verbose: the parser's literals, not the written spaces
    r"(a)b\1cd",  # a group and its back-reference
    r"(?i)ſtall",  # a literal that is not ASCII (the long s matches "s" and "S")
    r"Kelvin",  # "K" (U+212A) matches "k" when the case is ignored
    r"[ab]c|def",  # no top-level literal: always searched
)
# pieces of the patterns' own words, cased every way, with the characters that fold oddly
PIECES = st.sampled_from(
    [
        "time",
        "TiMeD OUT",
        "connection reset",
        "ECONNRESET",
        "dns",
        "DNS",
        "rate limit",
        "overloaded",
        "usage limit",
        "not your usage limit",
        "API Error: 529",
        "api error",
        "abbcd",
        "abcd",
        "ſtall",
        "STALL",
        "ſtalled",
        "İnternal server error",
        "Kelvin",
        "kelvin",
        "def",
        "bc",
        " ",
        "İ",
        "ß",
        "\x1c",
        "stream error",
        "quota",
        "x",
    ]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.booleans())
def test_a_needled_pattern_finds_what_the_pattern_finds(text: str, ignore_case: bool) -> None:
    flags = re.IGNORECASE if ignore_case else 0
    folded = lowered(text)
    for source in PATTERNS:
        pattern = re.compile(source, flags)
        found, plain = needled(pattern).search(text, folded), pattern.search(text)
        assert (found and found.span()) == (plain and plain.span()), source


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_any_of_finds_the_leftmost_match_of_the_alternation(text: str) -> None:
    joined = any_of((*CLAUDE_CODE.real_patterns, r"Kelvin", r"[ab]c|def"), re.IGNORECASE)
    assert joined is not None
    found, plain = joined.search(text, lowered(text)), joined.pattern.search(text)
    assert (found and found.group(0)) == (plain and plain.group(0))


def test_the_default_patterns_each_have_a_needle() -> None:
    """What makes the rule cheap: every default pattern is ruled out by a substring test first."""
    assert all(needled(re.compile(p, re.IGNORECASE)).needle for p in DEFAULT_TRANSIENT_PATTERNS)


def test_fold_holds_every_character_that_matches_an_ascii_letter() -> None:
    """Found by the engine itself, over every code point: what lowering alone would miss."""
    everything = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    found = {ord(c): letter for c in re.findall("[a-z]", everything, re.IGNORECASE) for letter in [lowered(c)]}
    assert found == {code: letter for code, letter in FOLD.items()}
    assert all(re.fullmatch(letter, chr(code), re.IGNORECASE) for code, letter in FOLD.items())
