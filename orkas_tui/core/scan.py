"""The single truth about an agent's turns: tails plus observers, refreshed incrementally.

:class:`AgentScan` keeps one tail and one observer per conversation file. Each
:meth:`AgentScan.refresh` reads only bytes appended since the last one; a file
that shrank or was replaced is observed again from scratch. The CLI refreshes
once; the TUI refreshes on every change the watcher reports.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from orkas_tui.config import Settings
from orkas_tui.core.corrections import matcher_for
from orkas_tui.core.errors import TransientRule
from orkas_tui.core.observe import ConversationObserver, TurnRecord
from orkas_tui.core.tail import JsonlTail
from orkas_tui.core.workspace import AgentPaths


@dataclass
class ConversationState:
    path: Path
    tail: JsonlTail
    observer: ConversationObserver
    malformed: int = 0


@dataclass
class RefreshResult:
    """What one refresh changed: turn records touched, files started over, lines skipped."""

    changed: list[TurnRecord] = field(default_factory=list)
    reset: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    malformed: int = 0

    def __bool__(self) -> bool:
        return bool(self.changed or self.reset or self.removed or self.malformed)


class AgentScan:
    def __init__(self, paths: AgentPaths, settings: Settings) -> None:
        self.paths = paths
        self.settings = settings
        self.rule = TransientRule.from_settings(settings)
        self.matcher = matcher_for(settings.correction_phrases)
        self.conversations: dict[str, ConversationState] = {}

    @property
    def id(self) -> str:
        return self.paths.id

    @property
    def malformed_lines(self) -> int:
        return sum(c.malformed for c in self.conversations.values())

    @property
    def orphan_events(self) -> int:
        return sum(c.observer.orphans for c in self.conversations.values())

    def turns(self) -> Iterator[TurnRecord]:
        for state in self.conversations.values():
            yield from state.observer.turns

    def latest_activity(self) -> datetime | None:
        """The newest event timestamp over all conversations."""
        moments = [c.observer.latest_at for c in self.conversations.values() if c.observer.latest_at]
        return max(moments) if moments else None

    def _new_state(self, path: Path) -> ConversationState:
        observer = ConversationObserver(path.stem, self.rule, self.matcher)
        return ConversationState(path, JsonlTail(path), observer)

    def refresh(self, only: Path | None = None) -> RefreshResult:
        """Read new bytes of every conversation file (or of ``only``)."""
        result = RefreshResult()
        files = [only] if only is not None else self.paths.conversation_files()
        if only is None:
            present = {p.stem for p in files}
            for conv in [c for c in self.conversations if c not in present]:
                del self.conversations[conv]
                result.removed.append(conv)
        for path in files:
            state = self.conversations.get(path.stem)
            if state is None:
                state = self.conversations[path.stem] = self._new_state(path)
            reset, lines = state.tail.poll()
            if reset:
                fresh = self._new_state(path)
                fresh.tail = state.tail
                state = self.conversations[path.stem] = fresh
                result.reset.append(path.stem)
            observer = state.observer
            touched: dict[int, TurnRecord] = {}
            for line in lines:
                if line.event is None:
                    state.malformed += 1
                    result.malformed += 1
                    continue
                record = observer.feed(line.event, line.start, line.end)
                if record is not None:
                    touched[id(record)] = record
            result.changed.extend(touched.values())
        return result


class WorkspaceScan:
    """One :class:`AgentScan` per agent, created as agents appear."""

    def __init__(self, workspace) -> None:
        self.workspace = workspace
        self.agents: dict[str, AgentScan] = {}

    def refresh(self) -> dict[str, RefreshResult]:
        results = {}
        ids = self.workspace.agent_ids()
        for gone in [a for a in self.agents if a not in ids]:
            del self.agents[gone]
        for agent_id in ids:
            scan = self.agents.get(agent_id)
            if scan is None:
                scan = self.agents[agent_id] = AgentScan(self.workspace.agent(agent_id), self.workspace.settings)
            results[agent_id] = scan.refresh()
        return results
