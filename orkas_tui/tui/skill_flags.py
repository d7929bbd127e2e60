"""Which skills look useless, and why: a reading aid on top of the spec's metrics; and which
the linked agent does not get: its exported ``SKILL.md`` was edited by hand, or it is left out
of the agent's listing (over its budget).

The thresholds are deliberately simple and need a minimum of evidence, so a new
skill is not flagged after one bad turn.
"""

from __future__ import annotations

from collections.abc import Mapping

from orkas_tui.core.summary.report import SkillRow

MIN_IMPRESSIONS = 10
MIN_INVOCATIONS = 3
LOW_INVOCATION = 0.1
HIGH_RATE = 0.5
SHORT = {  # the Skills table's Flag column; the line under the table says it in full
    "never used": "unused",
    "rarely invoked": "rare",
    "output often edited": "edited",
    "often ineffective": "ineffective",
    "edited where exported": "hand-edited",
    "left out of the listing": "unlisted",
}
EDITED_THERE = "edited where exported"  # its SKILL.md was edited by hand: exports leave it alone
UNLISTED = "left out of the listing"  # over the linked agent's listing budget: not exported
EXPORT_FLAGS = (EDITED_THERE, UNLISTED)


def skill_flags(row: SkillRow, hand_edited: Mapping[str, str], unlisted: Mapping[str, str]) -> list[str]:
    """Every flag of a skill: edited where it was exported (first: it needs a decision), left out of the
    listing, then why it looks useless."""
    slug = row.skill.slug
    return [flag for flag, marked in ((EDITED_THERE, hand_edited), (UNLISTED, unlisted)) if slug in marked] + useless_reasons(row)


def useless_reasons(row: SkillRow) -> list[str]:
    m, s = row.metrics, row.skill
    reasons = []
    if s.last_used_at is None and m.invocations == 0:
        reasons.append("never used")
    elif m.impressions >= MIN_IMPRESSIONS and (m.invocation_rate or 0) < LOW_INVOCATION:
        reasons.append("rarely invoked")
    if m.invocations >= MIN_INVOCATIONS and (m.edit_rate or 0) >= HIGH_RATE:
        reasons.append("output often edited")
    if m.effective_base >= MIN_INVOCATIONS and (m.ineffective_rate or 0) >= HIGH_RATE:
        reasons.append("often ineffective")
    return reasons
