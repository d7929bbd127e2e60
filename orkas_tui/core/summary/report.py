"""The forms a summary is reported in: a skill row as ``status --json`` prints it, an agent's
activity since its last reflection (what the queue weighs), and an agent's status object
around its summary (a turn's form is :class:`~orkas_tui.core.summary.turn.TurnSummary`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from orkas_tui.core.observe.skill_metrics import SkillMetrics
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import AgentMeta, AgentPaths, read_agent_meta, read_state
from orkas_tui.core.store.notes import NOTES, Note, SelfNotes, notes_read
from orkas_tui.core.store.skills import Skill


@dataclass(frozen=True)
class Activity:
    """An agent's turns weighed since its last reflection: what the queue needs of them.
    ``first_turn`` is the earliest turn's timestamp as written."""

    first_turn: str | None
    pending: bool
    trigger_score: float
    triggered: bool


@dataclass(frozen=True)
class SkillRow:
    skill: Skill
    metrics: SkillMetrics

    def to_json(self) -> dict:
        s, m = self.skill, self.metrics
        return {
            "slug": s.slug,
            "name": s.name,
            "description": s.description,
            "impressions": m.impressions,
            "invocations": m.invocations,
            "invocation_rate": m.invocation_rate,
            "edit_rate": m.edit_rate,
            "ineffective_rate": m.ineffective_rate,
            "patch_count": s.patch_count,
            "last_used_at": s.last_used_at,
            "created_at": s.created_at,
            "updated_at": s.updated_at,
        }


def last_reflection(paths: AgentPaths) -> datetime | None:
    return parse_ts(read_state(paths).get("last_reflection_at"))


MARKS = "read_marks"  # state.json: per conversation, the byte its last reflection read up to


def read_marks(paths: AgentPaths) -> dict[str, int] | None:
    """Each conversation's read mark, or ``None`` when the agent's state has none yet (never reflected
    on, or reflected on by a version before marks: see :meth:`~orkas_tui.core.summary.scan.AgentScan.marks`)."""
    marks = read_state(paths).get(MARKS)
    if not isinstance(marks, dict):
        return None
    return {k: v for k, v in marks.items() if isinstance(k, str) and type(v) is int and v >= 0}


def compose_status(
    paths: AgentPaths,
    notes: SelfNotes | Mapping[str, Note],
    fields: dict,
    skills: list[dict],
    problems: list[str],
    last: datetime | None,
    skipped: list[str] | None = None,
    meta: AgentMeta | None = None,
) -> dict:
    """The ``status --json`` object for one agent: ``fields`` (counts and turns, as
    :meth:`AgentScan.status_fields` names them), its ``skills`` rows and skill ``problems``; the
    notes, ``agent.toml`` (``meta``) and the files skipped (``skipped``: :meth:`AgentPaths.survey`'s)
    as the caller has just read them, else read here."""
    meta = read_agent_meta(paths) if meta is None else meta
    problems = problems + fields["line_problems"]
    if meta.problem:
        problems.append(meta.problem)
    read = notes_read(notes)
    problems += [p for p in (read[note].problem for note in NOTES) if p]
    problems += [p for p in (paths.skipped_files() if skipped is None else skipped) if p not in problems]
    status = {
        "id": paths.id,
        "name": meta.name,
        "description": meta.description,
        "malformed_lines": fields["malformed_lines"],
        "orphan_events": fields["orphan_events"],
        "last_reflection_at": format_ts(last) if last else None,
        "triggering_turns": fields["triggering_turns"],
        "turns": fields["turns"],
        "skills": skills,
        "problems": problems,
    }
    if "turn_count" in fields:  # only the newest turns asked for (text status)
        status["turn_count"] = fields["turn_count"]
    return status
