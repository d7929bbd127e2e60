"""One picture of an agent, loaded by areas: what ``status``, ``status --json`` and the app all read.

An :class:`AgentPicture` owns one :class:`~orkas_tui.core.summary.scan.AgentScan` (only new
bytes are read on each refresh), a tail of ``events.jsonl`` and the skill and note stores.
:meth:`AgentPicture.load` re-reads only the areas a change touched and returns an
:class:`AgentView`: plain data, one consistent picture, that the app's widgets turn into rows
and :func:`agent_status` turns into an agent's ``status`` object. :class:`WorkspacePicture`
holds every agent's picture and plans the queue over them; :func:`workspace_status` is the
whole ``status`` document. No view computes a fact of an agent itself: it reads it here.
"""

from __future__ import annotations

import threading
from collections import deque
from datetime import datetime
from typing import TYPE_CHECKING

import msgspec

from orkas_tui.core.observe.skill_metrics import NO_USE
from orkas_tui.core.read.events import decode_system_line
from orkas_tui.core.read.hook_log import problems_since, read_log, seen_at
from orkas_tui.core.read.not_read import read_not_read
from orkas_tui.core.read.tail import JsonlTail
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AGENT_AREAS, AgentMeta, AgentPaths, Area, Survey, Workspace, read_agent_meta
from orkas_tui.core.reflect.effects import Effect
from orkas_tui.core.reflect.keepers import keepers
from orkas_tui.core.reflect.queue import QueuePlan, Standing, last_cycle_at, plan_for
from orkas_tui.core.reflect.spend import Usage, read_usage, totals
from orkas_tui.core.reflect.verdict import Verdict, judged, verdict
from orkas_tui.core.store.history import Change, list_changes
from orkas_tui.core.store.notes import NOTES, Note, SelfNotes, prompt_block
from orkas_tui.core.store.skills import BrokenSkill, Skill, SkillStore
from orkas_tui.core.summary.cache import read_skills
from orkas_tui.core.summary.fold import Run
from orkas_tui.core.summary.report import Activity, SkillRow, compose_status, last_reflection
from orkas_tui.core.summary.scan import AgentScan, refreshed
from orkas_tui.core.summary.turn import Turn

if TYPE_CHECKING:  # what only the app's details need is imported when they are read: status never does
    from orkas_tui.core.store.proposals import Proposal
    from orkas_tui.core.store.scopes import Scope

EVENTS_KEPT = 2_000
RECENT_REFLECTIONS = 10  # each agent's newest reflections in status --json


class AgentView(msgspec.Struct, frozen=True, kw_only=True):
    """One consistent picture of an agent, handed from a worker thread to the UI (or to ``status``).
    (A Struct, not a dataclass: its thirty fields cost a dataclass about 2 ms to build at import.)"""

    id: str
    meta: AgentMeta
    malformed: int
    last_reflection: datetime | None
    turns: list[Turn]  # newest first: every turn, or the newest the picture was asked for (``newest``)
    skills: list[SkillRow]
    broken_skills: dict[str, BrokenSkill]  # the files that do not parse: listed, and opened to be fixed
    events: list[tuple[int, dict]]
    hook_log: list[tuple[int, dict]]  # the hooks' runs and problems: shown with the events, never sent to the model
    notes: dict[str, Note]
    prompt: str
    proposals: list[Proposal]
    changes: list[Change]
    hand_edited: dict[str, str] = msgspec.field(default_factory=dict)  # slug -> its exported SKILL.md, edited by hand since
    unlisted: dict[str, str] = msgspec.field(default_factory=dict)  # slug -> why the linked agent's export leaves it out
    verdicts: dict[str, Verdict] = msgspec.field(default_factory=dict)  # slug -> what its rates say, over which turns
    hook_problems: int = 0  # hook problems logged since the person last looked at the Events tab
    export_fix: str = ""  # how a person resolves one (the agent's export link)
    scopes: dict[str, Scope] = msgspec.field(default_factory=dict)  # slug -> where its export goes (core/store/scopes.py)
    areas: frozenset[Area] = msgspec.field(default_factory=frozenset)
    touched: frozenset[tuple[str, int]] | None = None  # (conversation, seq) of the turns this load changed; None: any
    not_read: dict = msgspec.field(default_factory=dict)  # what imports could not read (core/read/not_read.py)
    turn_count: int = 0  # every turn, however many ``turns`` holds
    triggering: int = 0  # the turns whose score reached the threshold (the summary's count)
    orphans: int = 0  # events outside any turn
    line_problems: list[str] = msgspec.field(default_factory=list)  # lines skipped for their length
    skipped: list[str] = msgspec.field(default_factory=list)  # the conversation, skill and note files not read, and why
    runs: list[Run] = msgspec.field(default_factory=list)  # the turns newest first as runs, none decoded (``runs``)

    @property
    def name(self) -> str:
        return self.meta.name or self.id


class AgentPicture:
    """An agent's picture, kept up to date by :meth:`load`. ``newest``: carry only that many of the
    newest turns (``status`` without ``--all-turns``); ``runs``: carry the turn order as runs instead (``status --json``
    prints them from the cache's bytes); ``details``: also what only the app shows (the prompt
    block, the proposals, the hook log, and where the skills are exported and how they look there:
    scopes, hand edits, what the export leaves out). ``scan``: one already refreshed (read no conversation on the first load), with the
    ``survey`` it was listed from."""

    def __init__(
        self,
        paths: AgentPaths,
        workspace: Workspace,
        scan: AgentScan | None = None,
        survey: Survey | None = None,
        newest: int | None = None,
        runs: bool = False,
        details: bool = True,
        profile: Note | None = None,
    ) -> None:
        settings = workspace.settings
        self.workspace = workspace  # its settings follow orkas.toml while the app runs: the export link
        self.paths = paths
        self.scan = scan if scan is not None else AgentScan(paths, settings, autosave=False)  # saved when idle: save_caches
        self.store = SkillStore(paths, settings)
        self.notes = SelfNotes(paths, settings)
        self.newest, self.runs, self.details = newest, runs, details
        self._fresh = scan is not None  # its conversations are read: the first load reads none
        self._survey = survey
        self._loaded = scan is not None  # else the first load reads every area, whatever it is given
        self._events_tail = JsonlTail(paths.events)
        self._events: deque[tuple[int, dict]] = deque(maxlen=EVENTS_KEPT)
        self._skills: list[Skill] = []
        self._broken: dict[str, BrokenSkill] = {}
        self._notes: dict[str, Note] = {}
        self._read_notes = {} if profile is None else {"profile": profile}  # read by the caller: the first load reads it no more
        self._prompt = ""
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
        self._skipped: list[str] = []

    @property
    def id(self) -> str:
        return self.paths.id

    def load(self, areas: frozenset[Area] = AGENT_AREAS) -> AgentView:
        """Re-read the touched areas (everything the first time); call from a worker thread."""
        if not self._loaded:
            areas, self._loaded = AGENT_AREAS, True
        touched: frozenset[tuple[str, int]] | None = frozenset()
        survey = self._survey
        self._survey = None
        if survey is None and areas & {Area.CONVERSATIONS, Area.SKILLS, Area.SELF}:
            survey = self.paths.survey()  # the three folders listed once: what is read, and why the rest is not
        if survey is not None:
            self._skipped = survey.skipped
        if Area.SELF in areas:
            ready, self._read_notes = self._read_notes, {}
            self._notes = {note: ready[note] if note in ready else self.notes.read(note) for note in NOTES}
            self.scan.rescore(self._notes["profile"].text)  # the profile names the weak tools
        if Area.CONVERSATIONS in areas and not self._fresh:
            touched = frozenset(self.scan.refresh(survey.readable[Area.CONVERSATIONS] if survey else None).changed)
        self._fresh = False
        if areas is AGENT_AREAS or Area.SELF in areas:  # any turn's score may have changed
            touched = None
        if Area.EVENTS in areas:
            reset, lines = self._events_tail.poll(decode_system_line)
            if reset:
                self._events.clear()
            self._events.extend((line.start, line.event.data) for line in lines if line.event is not None)
        if Area.SKILLS in areas:
            names = survey.readable[Area.SKILLS] if survey else self.paths.readable_names(self.paths.skills, ".md")
            files = read_skills(self.paths, self.workspace.settings, names)
            self._skills, self._broken = files.skills, {b.slug: b for b in files.broken}
        if self.details and areas & {Area.SELF, Area.SKILLS}:
            self._prompt = prompt_block(self._notes, self._skills)
        if Area.META in areas:
            self._meta = read_agent_meta(self.paths)
        if Area.PRIVATE in areas:
            self._changes = list_changes(self.paths)
            self._not_read = read_not_read(self.paths)
        if self.details:
            self._read_details(areas)
        if areas & {Area.CONVERSATIONS, Area.PRIVATE}:  # new turns, or a change applied or reverted
            self._judged_by = judged(self.scan, self._changes)
        scan = self.scan
        use = scan.skill_use()
        judge_after = self.workspace.settings.judge_after
        return AgentView(
            id=self.id,
            meta=self._meta,
            malformed=scan.malformed_lines,
            last_reflection=last_reflection(scan.paths),
            turns=[] if self.runs else scan.newest_turns(self.newest),
            runs=scan.newest_runs(self.newest) if self.runs else [],
            turn_count=scan.turn_count,
            triggering=scan.triggering_turns,
            orphans=scan.orphan_events,
            line_problems=scan.line_problems(),
            skipped=list(self._skipped),
            skills=[SkillRow(s, use.get(s.slug, NO_USE)) for s in self._skills],
            broken_skills=dict(self._broken),
            events=list(self._events),
            hook_log=list(self._hook_log),
            hook_problems=problems_since(self._hook_log, self._hook_seen),
            notes=dict(self._notes),
            prompt=self._prompt,
            proposals=list(self._proposals),
            changes=list(self._changes),
            hand_edited=dict(self._hand_edited),
            unlisted=dict(self._unlisted),
            verdicts={
                s.slug: verdict(s.last_used_at, use.get(s.slug, NO_USE), self._judged_by.get(s.slug), judge_after)
                for s in self._skills
            },
            export_fix=self._export_fix,
            scopes=dict(self._scopes),
            areas=areas,
            touched=touched,
            not_read=dict(self._not_read),
        )

    def _read_details(self, areas: frozenset[Area]) -> None:
        """What only the app shows: the proposals, the hook log, and where the skills are exported
        and how they look there."""
        from orkas_tui.core.store.export import hand_edited, unlisted, way_out
        from orkas_tui.core.store.proposals import list_proposals
        from orkas_tui.core.store.scopes import all_scopes

        if Area.PRIVATE in areas:
            self._proposals = list_proposals(self.paths)
            self._hook_log = read_log(self.paths.private)
            self._hook_seen = seen_at(self.paths.private)
        if areas & {Area.SKILLS, Area.PRIVATE}:  # an export, or a skill changed since: read it there
            link = self.workspace.settings.agents.get(self.id)
            self._hand_edited = hand_edited(self.paths, link, self._skills) if link else {}
            self._unlisted = unlisted(self.paths, link, self._skills, self.workspace.settings) if link else {}
            self._export_fix = way_out(self.id, link) if link else ""
            self._scopes = all_scopes(self.paths, [skill.slug for skill in self._skills])


class WorkspacePicture:
    """Every agent's picture behind one lock: loads run in order, one at a time, off the UI thread.
    ``newest``, ``runs`` and ``details``: what each agent's view carries (:class:`AgentPicture`)."""

    def __init__(self, workspace: Workspace, newest: int | None = None, runs: bool = False, details: bool = True) -> None:
        self.workspace = workspace
        self.agents: dict[str, AgentPicture] = {}
        self.lock = threading.RLock()
        self.newest, self.runs, self.details = newest, runs, details
        self._activity: dict[str, tuple[datetime | None, Activity]] = {}  # the queue's view of each agent
        self._usage: dict[str, list[Usage]] = {}  # each agent's reflections' cost, read again when its events change

    def _picture(
        self, agent_id: str, scan: AgentScan | None = None, survey: Survey | None = None, profile: Note | None = None
    ) -> AgentPicture:
        paths = scan.paths if scan is not None else self.workspace.agent(agent_id)
        return AgentPicture(paths, self.workspace, scan, survey, self.newest, self.runs, self.details, profile)

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
                self.agents[agent_id] = self._picture(agent_id)
        return gone

    def read_all(self, jobs: int = 1) -> None:
        """Every agent's conversations read at once, the cold ones in up to ``jobs`` processes
        (:func:`~orkas_tui.core.summary.scan.refreshed`: only a caller with no threads of its own may
        pass more than 1), and their caches saved: what ``status`` does before it loads a view."""
        settings = self.workspace.settings
        listed = []
        for agent_id in self.workspace.agent_ids():
            paths = self.workspace.agent(agent_id)
            survey = paths.survey()
            listed.append((paths, SelfNotes(paths, settings).read("profile"), survey))
        scans = refreshed(
            [(paths, profile.text, survey.readable[Area.CONVERSATIONS]) for paths, profile, survey in listed], settings, jobs
        )
        self.agents = {
            scan.id: self._picture(scan.id, scan, survey, profile)
            for scan, (_, profile, survey) in zip(scans, listed, strict=True)
        }
        self._activity.clear()
        self._usage.clear()

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

    def usage(self, agent_id: str) -> list[Usage]:
        """The agent's reflections' tokens and cost, oldest first (read again once its events change)."""
        if agent_id not in self._usage:
            self._usage[agent_id] = read_usage(self.agents[agent_id].paths)
        return self._usage[agent_id]

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
            standings.append((data.scan.paths, *self._activity[agent_id]))
        settings = self.workspace.settings
        usage = (u for agent_id in self.agents for u in self.usage(agent_id))
        spent = totals(usage, now, settings.model.daily_budget_usd)
        return plan_for(standings, now, settings, last_cycle_at(self.workspace), spent, keepers(self.workspace))


STATUS_AREAS = AGENT_AREAS - {Area.EVENTS}  # what status shows of an agent: all but its event log


def agent_status(view: AgentView, picture: AgentPicture, plan: QueuePlan, usage: list[Usage]) -> dict:
    """One agent's ``status --json`` object, from its view: counts, turns (as the picture carries
    them), skills with their use and verdicts, problems, what imports could not read, its queue
    decision and its newest reflections' cost."""
    fields = {
        "malformed_lines": view.malformed,
        "orphan_events": view.orphans,
        "triggering_turns": view.triggering,
        "turns": view.runs if picture.runs else [turn.summary for turn in view.turns],
        "line_problems": view.line_problems,
    }
    if picture.newest is not None:  # only the newest turns asked for
        fields["turn_count"] = view.turn_count
    skills = [{**row.to_json(), "verdict": view.verdicts[row.skill.slug].to_json()} for row in view.skills]
    problems = [broken.problem for broken in view.broken_skills.values()]
    row = compose_status(picture.paths, view.notes, fields, skills, problems, view.last_reflection, view.skipped, view.meta)
    row["not_read"] = view.not_read  # what imports could not read: unknown kinds, malformed lines
    if (decision := plan.decision(view.id)) is not None:  # every agent is planned
        row["queue"] = decision.to_json()
    row["reflections"] = [u.to_json() for u in reversed(usage[-RECENT_REFLECTIONS:])]  # newest first
    return row


def workspace_status(
    workspace: Workspace, now: datetime, agent_id: str | None = None, jobs: int = 1, newest: int | None = None, runs: bool = False
) -> dict:
    """The whole ``status --json`` document: each shown agent's :func:`agent_status` (every agent,
    or ``agent_id``'s alone), the queue planned over every agent (the per-cycle cap depends on all
    of them), the spend and what runs the schedule. ``newest`` and ``runs``: see :class:`AgentPicture`;
    ``jobs``: see :meth:`WorkspacePicture.read_all`."""
    if agent_id:
        workspace.agent(agent_id)
    pictures = WorkspacePicture(workspace, newest, runs, details=False)
    pictures.read_all(jobs)
    plan = pictures.plan(now)
    rows = [
        agent_status(picture.load(STATUS_AREAS), picture, plan, pictures.usage(shown))
        for shown, picture in pictures.agents.items()
        if not agent_id or shown == agent_id
    ]
    plan_doc = plan.to_json()
    return {
        "workspace": str(workspace.root),
        "now": format_ts(now),
        "threshold": workspace.settings.threshold,
        "next_cycle_at": plan_doc["next_cycle_at"],
        "cycle_due_at": plan_doc["cycle_due_at"],
        "run_by": plan_doc["run_by"],
        "spending": plan_doc["spending"],
        "agents": rows,
    }
