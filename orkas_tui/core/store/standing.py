"""Where each skill stands when they do not all fit an agent's listing: measured benefit, use, recency.

Claude Code and Codex drop the skills past their listing budget without a word, so an export
chooses (:func:`~orkas_tui.core.store.export.plan_listing`), highest first: the skill's
**benefit** (what its latest change in force did to the agent, computed by
:func:`~orkas_tui.core.reflect.benefit.standings`; a skill with none measured yet counts as
one that changed nothing, below those that helped and above those that hurt), then its
invocation rate, then the latest of its last use and its last change.

Benefit needs the agent's turns, which the store does not read, and an export runs after
every applied change; so whoever holds a scan (``export``, ``status``, a reflection) saves the
standings beside the export state, and the export reads them (none yet: recency alone).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import orjson

from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.skills import Skill

FILE = "standings.json"  # in the agent's private exports folder, beside each target's export state


@dataclass(frozen=True)
class SkillStanding:
    benefit: float | None  # corrections + real errors per turn, before less after its latest measured change
    invocation_rate: float | None  # of the turns that showed the skill, the share that read it

    def to_json(self) -> dict:
        return {"benefit": self.benefit, "invocation_rate": self.invocation_rate}


UNKNOWN = SkillStanding(None, None)


def save(paths: AgentPaths, found: dict[str, SkillStanding]) -> None:
    """Kept only when it changed: a status that finds the same standings writes nothing."""
    body = orjson.dumps({slug: found[slug].to_json() for slug in sorted(found)}, option=orjson.OPT_INDENT_2) + b"\n"
    path = paths.private / "exports" / FILE
    try:
        if path.read_bytes() == body:
            return
    except OSError:
        pass
    atomic_write(path, body)


def load(paths: AgentPaths) -> dict[str, SkillStanding]:
    """The saved standings; none (recency alone) when missing or unreadable: a ranking, never a reason to fail."""
    try:
        data = orjson.loads((paths.private / "exports" / FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        slug: SkillStanding(_number(v.get("benefit")), _number(v.get("invocation_rate")))
        for slug, v in data.items()
        if isinstance(v, dict)
    }


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def rank_key(found: dict[str, SkillStanding]) -> Callable[[Skill], tuple[float, float, str, str]]:
    """The listing's order, highest first: benefit (none yet counts as zero), invocation rate, recency."""

    def key(skill: Skill) -> tuple[float, float, str, str]:
        standing = found.get(skill.slug, UNKNOWN)
        return (
            standing.benefit or 0.0,
            standing.invocation_rate or 0.0,
            max(skill.last_used_at or "", skill.updated_at),
            skill.slug,
        )

    return key


def reason(standing: SkillStanding) -> str:
    """How a skill stood, in the words an omitted line gives."""
    benefit = "no measured benefit yet" if standing.benefit is None else f"benefit {standing.benefit:+.2f} per turn"
    rate = (
        "never shown"
        if standing.invocation_rate is None
        else f"invoked in {standing.invocation_rate:.0%} of the turns that showed it"
    )
    return f"{benefit}, {rate}"
