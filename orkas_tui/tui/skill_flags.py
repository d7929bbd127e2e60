"""A skill's flags in the Skills tab: whether the linked agent gets it (its exported ``SKILL.md``
was edited by hand, or it is left out of the agent's listing), then what its rates say
(:func:`~orkas_tui.core.reflect.verdict.verdict`: the same figures as its history, over the
turns it names)."""

from __future__ import annotations

from collections.abc import Mapping

from orkas_tui.core.reflect.verdict import TOO_NEW, Verdict

SHORT = {  # the Skills table's Flag column; the line under the table says it in full
    "never used": "unused",
    "rarely invoked": "rare",
    "output often edited": "edited",
    "often ineffective": "ineffective",
    "edited where exported": "hand-edited",
    "left out of the listing": "unlisted",
    TOO_NEW: "new",
}
EDITED_THERE = "edited where exported"  # its SKILL.md was edited by hand: exports leave it alone
UNLISTED = "left out of the listing"  # over the linked agent's listing budget: not exported
EXPORT_FLAGS = (EDITED_THERE, UNLISTED)


def skill_flags(slug: str, judged: Verdict | None, hand_edited: Mapping[str, str], unlisted: Mapping[str, str]) -> list[str]:
    """Every flag of a skill: edited where it was exported (first: it needs a decision), left out of the
    listing, then its verdict's."""
    marks = [flag for flag, marked in ((EDITED_THERE, hand_edited), (UNLISTED, unlisted)) if slug in marked]
    return marks + list(judged.flags if judged is not None else ())


def warns(flags: list[str]) -> bool:
    """A flag asks for a look ("too new to judge" alone does not)."""
    return any(flag != TOO_NEW for flag in flags)
