"""Core state as plain data: what ``status --json`` prints and the TUI renders."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orkas_tui.core.observe.signals import Score, score_turn, weakness_tools
from orkas_tui.core.observe.skill_metrics import SkillMetrics, skill_metrics
from orkas_tui.core.observe.turns import TurnRecord
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import AgentPaths, read_agent_meta, read_state
from orkas_tui.core.store.notes import NOTES, SelfNotes
from orkas_tui.core.store.skills import Skill, SkillStore
from orkas_tui.core.summary.scan import AgentScan


@dataclass(frozen=True)
class HistoryFacts:
    """What the queue needs from an agent's turns, given its last reflection and profile
    (so it can be kept with the agent's cached status). ``first_turn`` is the earliest turn's timestamp as written."""

    first_turn: str | None
    pending: bool
    trigger_score: float
    triggered: bool


@dataclass(frozen=True)
class ScoredTurn:
    record: TurnRecord
    score: Score

    def to_json(self) -> dict:
        r, s = self.record, self.score
        transient = sum(e.transient for e in r.errors) if r.errors else 0
        return {
            "conversation": r.conversation,
            "turn": r.turn,
            "started_at": r.started_at,
            "ended_at": r.ended_at,
            "status": r.status,
            "tool_calls": r.tool_calls,
            "real_errors": len(r.errors) - transient,
            "transient_errors": transient,
            "signals": s.signals,
            "score": s.score,
            "triggers": s.triggers,
            "evidence": s.evidence,
            "errors": [
                {"source": e.source, "message": e.message, "status": e.status, "transient": e.transient, "reason": e.reason}
                for e in r.errors
            ],
            "skills_indexed": r.skills_indexed,
            "skills_read": r.skills_read,
            "edited": r.edited,
        }


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


def scored_turns(scan: AgentScan, notes: SelfNotes, earlier: dict[int, ScoredTurn] | None = None) -> list[ScoredTurn]:
    """Every turn with its score, newest first (by end, else start, time).

    ``earlier``: the rows of the previous call, by record id, updated here. A turn
    whose score object is unchanged keeps its row, so a live refresh allocates rows
    only for the turns it changed (thousands of short-lived rows per append made the
    cyclic collector's full passes ever longer).
    """
    weak = weakness_tools(notes.read("profile").text)
    settings = scan.settings
    earlier = {} if earlier is None else earlier
    rows = []
    for t in scan.turns():
        score = score_turn(t, settings, weak)
        row = earlier.get(id(t))
        if row is None or row.record is not t or row.score is not score:
            row = earlier[id(t)] = ScoredTurn(t, score)
        rows.append(row)
    if len(earlier) > len(rows):  # records that went away (a file removed or read again)
        alive = {id(row.record) for row in rows}
        for key in [key for key in earlier if key not in alive]:
            del earlier[key]
    rows.sort(
        key=lambda row: (row.record.ended_at or row.record.started_at or "", row.record.conversation, row.record.seq),
        reverse=True,
    )
    return rows


def skill_rows(scan: AgentScan, store: SkillStore) -> tuple[list[SkillRow], list[str]]:
    skills, problems = store.load_all()
    table = skill_metrics(scan.turns())
    return [SkillRow(s, table.get(s.slug, SkillMetrics())) for s in skills], problems


def last_reflection_at(scan: AgentScan) -> datetime | None:
    return last_reflection(scan.paths)


def last_reflection(paths: AgentPaths) -> datetime | None:
    return parse_ts(read_state(paths).get("last_reflection_at"))


def history_status(scan: AgentScan, notes: SelfNotes, store: SkillStore) -> dict:
    """The fields of an agent's status that follow from its history, skills, profile and settings:
    what :mod:`orkas_tui.core.summary.status_cache` keeps. ``skill_problems`` is not printed as such."""
    skills, problems = skill_rows(scan, store)
    turns = scored_turns(scan, notes)
    return {
        "malformed_lines": scan.malformed_lines,
        "orphan_events": scan.orphan_events,
        "triggering_turns": sum(1 for t in turns if t.score.triggers),
        "turns": [t.to_json() for t in turns],
        "skills": [row.to_json() for row in skills],
        "skill_problems": problems,
        "line_problems": [p for state in scan.conversations.values() if (p := state.long_line_problem())],
    }


def compose_status(
    paths: AgentPaths, notes: SelfNotes, history: dict, last: datetime | None, skipped: list[str] | None = None
) -> dict:
    """The ``status --json`` object for one agent: ``history`` plus what is read fresh each time
    (``skipped``: :meth:`AgentPaths.skipped_files` when the caller has just listed them)."""
    meta = read_agent_meta(paths)
    problems = list(history["skill_problems"]) + history.get("line_problems", [])
    if meta.problem:
        problems.append(meta.problem)
    problems += [p for p in (notes.read(note).problem for note in NOTES) if p]
    problems += [p for p in (paths.skipped_files() if skipped is None else skipped) if p not in problems]
    return {
        "id": paths.id,
        "name": meta.name,
        "description": meta.description,
        "malformed_lines": history["malformed_lines"],
        "orphan_events": history["orphan_events"],
        "last_reflection_at": format_ts(last) if last else None,
        "triggering_turns": history["triggering_turns"],
        "turns": history["turns"],
        "skills": history["skills"],
        "problems": problems,
    }


def agent_status(scan: AgentScan, now: datetime) -> dict:
    """The ``status --json`` object for one agent (scan must be refreshed)."""
    notes = SelfNotes(scan.paths, scan.settings)
    history = history_status(scan, notes, SkillStore(scan.paths, scan.settings))
    return compose_status(scan.paths, notes, history, last_reflection_at(scan))
