"""Per-agent state the app renders, loaded in thread workers.

An :class:`AgentData` owns one :class:`AgentScan` (only new bytes are read on each
refresh), a tail of ``events.jsonl`` and the skill and note stores. :meth:`AgentData.load`
re-reads only the areas a file change touched and returns an :class:`AgentView`:
plain data the widgets turn into rows. Nothing here imports Textual.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime

from orkas_tui.core.observe.skill_metrics import NO_USE, SkillMetrics
from orkas_tui.core.read.events import decode_system_line
from orkas_tui.core.read.not_read import read_not_read
from orkas_tui.core.read.tail import JsonlTail
from orkas_tui.core.read.workspace import AGENT_AREAS, AgentMeta, AgentPaths, Area, Workspace, read_agent_meta
from orkas_tui.core.reflect.effects import Effect
from orkas_tui.core.reflect.keepers import keepers
from orkas_tui.core.reflect.queue import QueuePlan, Standing, last_cycle_at, plan_for
from orkas_tui.core.reflect.spend import Usage, read_usage, totals
from orkas_tui.core.reflect.verdict import Verdict, judged, verdict
from orkas_tui.core.store.export import hand_edited, unlisted, way_out
from orkas_tui.core.store.history import Change, list_changes
from orkas_tui.core.store.notes import NOTES, Note, SelfNotes, prompt_block
from orkas_tui.core.store.proposals import Proposal, list_proposals
from orkas_tui.core.store.scopes import Scope, all_scopes
from orkas_tui.core.store.skills import BrokenSkill, Skill, SkillStore
from orkas_tui.core.summary.report import Activity, SkillRow, last_reflection
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.turn import Turn
from orkas_tui.importers.hook_log import problems_since, read_log, seen_at

EVENTS_KEPT = 2_000


@dataclass(frozen=True)
class AgentView:
    """One consistent picture of an agent, handed from a worker thread to the UI."""

    id: str
    meta: AgentMeta
    malformed: int
    last_reflection: datetime | None
    turns: list[Turn]
    skills: list[SkillRow]
    broken_skills: dict[str, BrokenSkill]  # the files that do not parse: listed, and opened to be fixed
    events: list[tuple[int, dict]]
    hook_log: list[tuple[int, dict]]  # the hooks' runs and problems: shown with the events, never sent to the model
    notes: dict[str, Note]
    prompt: str
    proposals: list[Proposal]
    changes: list[Change]
    hand_edited: dict[str, str] = field(default_factory=dict)  # slug -> its exported SKILL.md, edited by hand since
    unlisted: dict[str, str] = field(default_factory=dict)  # slug -> why the linked agent's export leaves it out
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # slug -> what its rates say, over which turns
    hook_problems: int = 0  # hook problems logged since the person last looked at the Events tab
    export_fix: str = ""  # how a person resolves one (the agent's export link)
    scopes: dict[str, Scope] = field(default_factory=dict)  # slug -> where its export goes (core/store/scopes.py)
    areas: frozenset[Area] = field(default_factory=frozenset)
    touched: frozenset[tuple[str, int]] | None = None  # (conversation, seq) of the turns this load changed; None: any
    not_read: dict = field(default_factory=dict)  # what imports could not read (core/read/not_read.py)

    @property
    def name(self) -> str:
        return self.meta.name or self.id


class AgentData:
    def __init__(self, paths: AgentPaths, workspace: Workspace) -> None:
        settings = workspace.settings
        self.workspace = workspace  # its settings follow orkas.toml while the app runs: the export link
        self.paths = paths
        self.scan = AgentScan(paths, settings, autosave=False)  # saved when the app is idle: save_caches
        self.store = SkillStore(paths, settings)
        self.notes = SelfNotes(paths, settings)
        self._loaded = False
        self._events_tail = JsonlTail(paths.events)
        self._events: deque[tuple[int, dict]] = deque(maxlen=EVENTS_KEPT)
        self._skills: list[Skill] = []
        self._broken: dict[str, BrokenSkill] = {}
        self._notes: dict[str, Note] = {}
        self._meta = AgentMeta()
        self._proposals: list[Proposal] = []
        self._changes: list[Change] = []
        self._hand_edited: dict[str, str] = {}
        self._unlisted: dict[str, str] = {}
        self._judged_by: dict[str, Effect] = {}  # slug -> the effect of its latest change in force
        self._export_fix = ""
        self._scopes: dict[str, Scope] = {}
        self._hook_log: list[tuple[int, dict]] = []
        self._hook_seen: str | None = None
        self._not_read: dict = {}

    @property
    def id(self) -> str:
        return self.paths.id

    def load(self, areas: frozenset[Area] = AGENT_AREAS) -> AgentView:
        """Re-read the touched areas (everything the first time); call from a worker thread."""
        if not self._loaded:
            areas, self._loaded = AGENT_AREAS, True
        touched: frozenset[tuple[str, int]] | None = frozenset()
        if Area.SELF in areas:
            self._notes = {note: self.notes.read(note) for note in NOTES}
            self.scan.rescore(self._notes["profile"].text)  # the profile names the weak tools
        if Area.CONVERSATIONS in areas:
            touched = frozenset(self.scan.refresh().changed)
        if areas is AGENT_AREAS or Area.SELF in areas:  # any turn's score may have changed
            touched = None
        if Area.EVENTS in areas:
            reset, lines = self._events_tail.poll(decode_system_line)
            if reset:
                self._events.clear()
            self._events.extend((line.start, line.event.data) for line in lines if line.event is not None)
        if Area.SKILLS in areas:
            files = self.store.read_all()
            self._skills, self._broken = files.skills, {b.slug: b for b in files.broken}
        if Area.META in areas:
            self._meta = read_agent_meta(self.paths)
        if Area.PRIVATE in areas:
            self._proposals = list_proposals(self.paths)
            self._changes = list_changes(self.paths)
            self._hook_log = read_log(self.paths.private)
            self._hook_seen = seen_at(self.paths.private)
            self._not_read = read_not_read(self.paths)
        if areas & {Area.SKILLS, Area.PRIVATE}:  # an export, or a skill changed since: read where it was exported
            link = self.workspace.settings.agents.get(self.id)
            self._hand_edited = hand_edited(self.paths, link, self._skills) if link else {}
            self._unlisted = unlisted(self.paths, link, self._skills, self.workspace.settings) if link else {}
            self._export_fix = way_out(self.id, link) if link else ""
            self._scopes = all_scopes(self.paths, [skill.slug for skill in self._skills])
        if areas & {Area.CONVERSATIONS, Area.PRIVATE}:  # new turns, or a change applied or reverted
            self._judged_by = judged(self.scan, self._changes)
        use = self.scan.skill_use()
        judge_after = self.workspace.settings.judge_after
        return AgentView(
            id=self.id,
            meta=self._meta,
            malformed=self.scan.malformed_lines,
            last_reflection=last_reflection(self.scan.paths),
            turns=self.scan.newest_turns(),
            skills=[SkillRow(s, use.get(s.slug) or SkillMetrics()) for s in self._skills],
            broken_skills=dict(self._broken),
            events=list(self._events),
            hook_log=list(self._hook_log),
            hook_problems=problems_since(self._hook_log, self._hook_seen),
            notes=dict(self._notes),
            prompt=prompt_block(self.notes, self._skills),
            proposals=list(self._proposals),
            changes=list(self._changes),
            hand_edited=dict(self._hand_edited),
            unlisted=dict(self._unlisted),
            verdicts={
                s.slug: verdict(s.last_used_at, use.get(s.slug) or NO_USE, self._judged_by.get(s.slug), judge_after)
                for s in self._skills
            },
            export_fix=self._export_fix,
            scopes=dict(self._scopes),
            areas=areas,
            touched=touched,
            not_read=dict(self._not_read),
        )


class WorkspaceData:
    """Every agent's data behind one lock: loads run in order, one at a time, off the UI thread."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.agents: dict[str, AgentData] = {}
        self.lock = threading.RLock()
        self._activity: dict[str, tuple[datetime | None, Activity]] = {}  # the queue's view of each agent
        self._usage: dict[str, list[Usage]] = {}  # each agent's reflections' cost, read again when its events change

    def sync_agents(self) -> list[str]:
        """Pick up agents that appeared or went away; return the ones that went away."""
        ids = self.workspace.agent_ids()
        gone = [a for a in self.agents if a not in ids]
        for agent_id in gone:
            del self.agents[agent_id]
            self._activity.pop(agent_id, None)
            self._usage.pop(agent_id, None)
        for agent_id in ids:
            if agent_id not in self.agents:
                self.agents[agent_id] = AgentData(self.workspace.agent(agent_id), self.workspace)
        return gone

    def targets(self, touched: dict[str, set[Area]] | None) -> tuple[dict[str, frozenset[Area]], list[str]]:
        """The agents to re-read with their areas (every agent, everything, when ``touched`` is ``None``),
        and the ids of agents that went away."""
        gone: list[str] = []
        if touched is None or any(a not in self.agents for a in touched) or any(Area.AGENT in s for s in touched.values()):
            gone = self.sync_agents()
        targets = {}
        for agent_id in self.agents:
            if touched is None or agent_id in touched:
                targets[agent_id] = (
                    AGENT_AREAS if touched is None or Area.AGENT in touched[agent_id] else frozenset(touched[agent_id])
                )
        return targets, gone

    def load(self, agent_id: str, areas: frozenset[Area]) -> AgentView:
        """Re-read one agent's areas; the queue weighs its activity again at the next :meth:`plan`."""
        self._activity.pop(agent_id, None)
        if Area.EVENTS in areas:
            self._usage.pop(agent_id, None)
        return self.agents[agent_id].load(areas)

    def save_caches(self) -> None:
        """Write the scan cache of every agent that read new bytes since its last save."""
        for data in self.agents.values():
            if data.scan.unsaved or data.scan.pending_removals:
                data.scan.save_cache()

    def plan(self, now: datetime) -> QueuePlan:
        """The next cycle's decision for every agent, from the scans already read.

        Only agents re-read since the last plan have their activity weighed again (every
        turn scored): after one appended turn that is one agent, not the workspace.
        """
        standings: list[Standing] = []
        for agent_id, data in self.agents.items():
            if agent_id not in self._activity:
                last = last_reflection(data.scan.paths)
                self._activity[agent_id] = (last, data.scan.activity())
            if agent_id not in self._usage:
                self._usage[agent_id] = read_usage(data.scan.paths)
            standings.append((data.scan.paths, *self._activity[agent_id]))
        settings = self.workspace.settings
        spent = totals((u for found in self._usage.values() for u in found), now, settings.model.daily_budget_usd)
        return plan_for(standings, now, settings, last_cycle_at(self.workspace), spent, keepers(self.workspace))
