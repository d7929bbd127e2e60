"""The single truth about an agent's turns: tails plus observers, refreshed incrementally.

:class:`AgentScan` keeps one tail and one observer per conversation file. Each
:meth:`AgentScan.refresh` reads only bytes appended since the last one; a file
that shrank or was replaced is observed again from scratch. The CLI refreshes
once; the TUI refreshes on every change the watcher reports.

What was observed is kept in a per-agent cache (:mod:`orkas_tui.core.summary.scan_cache`)
once enough new bytes were read, so the next process starts from it and reads
only what was appended since.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ConversationObserver, TurnRecord
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.tail import JsonlTail
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary import scan_cache


@dataclass
class ConversationState:
    path: Path
    tail: JsonlTail
    observer: ConversationObserver
    malformed: int = 0  # lines skipped: not a spec event, or over the line cap
    long_lines: list[tuple[int, int]] = field(default_factory=list)  # (start, length) of those over the cap

    def long_line_problem(self) -> str | None:
        """The problem line for the lines skipped for their length, if any."""
        if not self.long_lines:
            return None
        start, length = self.long_lines[0]
        more = f" and {len(self.long_lines) - 1} more" if len(self.long_lines) > 1 else ""
        return (
            f"{self.path}: a line of {length:,} bytes at byte {start:,}{more} is over the "
            f"{self.tail.max_line:,}-byte line cap (max_line_bytes); skipped"
        )


@dataclass
class RefreshResult:
    """What one refresh changed: turn records touched, files started over, lines skipped."""

    changed: list[TurnRecord] = field(default_factory=list)
    reset: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    malformed: int = 0

    def __bool__(self) -> bool:
        return bool(self.changed or self.reset or self.removed or self.malformed)


SAVE_AFTER = 256 * 1024  # bytes observed since the last save before the cache is written again


class AgentScan:
    def __init__(self, paths: AgentPaths, settings: Settings, persist: bool = True, autosave: bool = True) -> None:
        """``autosave=False``: :meth:`refresh` never writes the cache; the owner calls :meth:`save_cache`
        when it has time (the TUI, so a cache write never sits between an append and its row)."""
        self.paths = paths
        self.settings = settings
        self.rule = TransientRule.from_settings(settings)
        self.matcher = matcher_for(settings.correction_phrases)
        self.conversations: dict[str, ConversationState] = {}
        self.persist = persist
        self._fingerprint = scan_cache.fingerprint(settings)
        self._cached: scan_cache.CachedEntries | None = None
        self.autosave = autosave
        self.unsaved = 0

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
        return ConversationState(path, JsonlTail(path, max_line=self.settings.max_line_bytes), observer)

    def _state(self, path: Path) -> ConversationState:
        """A new conversation's state: from the cache when its entry still matches the file."""
        state = self._new_state(path)
        if self.persist:
            if self._cached is None:
                self._cached = scan_cache.read_entries(self.paths, self._fingerprint)
            entry = self._cached.take(path.stem)
            if entry is not None:
                scan_cache.restore(entry, path, state)
        return state

    def save_cache(self, keep: Iterable[str] = ()) -> bool:
        """Write what is observed now to the cache; ``False`` if it cannot be written (read-only disk).

        ``keep``: conversations this scan did not read whose cached entries stay as they are
        (a scan that refreshed only the files that changed).
        """
        if keep and self._cached is None:
            self._cached = scan_cache.read_entries(self.paths, self._fingerprint)
        carried = {stem: raw for stem in keep if (raw := self._cached.raw(stem)) is not None} if keep else None
        try:
            scan_cache.write_entries(self.paths, self._fingerprint, self.conversations, carried)
        except OSError:
            return False
        self.unsaved = 0
        return True

    def refresh(self, only: Path | None = None) -> RefreshResult:
        """Read new bytes of every conversation file (or of ``only``)."""
        with collector_paused():
            return self._refresh(only)

    def _refresh(self, only: Path | None) -> RefreshResult:
        result = RefreshResult()
        files = [only] if only is not None else self.paths.conversation_files()
        if only is None:
            present = {p.stem for p in files}
            for conv in [c for c in self.conversations if c not in present]:
                del self.conversations[conv]
                result.removed.append(conv)
        for path in files:
            touched: dict[int, TurnRecord] = {}
            state = self.conversations.get(path.stem)
            new = state is None
            if new:
                state = self.conversations[path.stem] = self._state(path)
            reset, blocks = state.tail.poll_blocks()
            if reset:
                fresh = self._new_state(path)
                fresh.tail = state.tail
                state = self.conversations[path.stem] = fresh
                result.reset.append(path.stem)
            elif new:  # restored from the cache: all of it is new to this scan
                touched.update((id(t), t) for t in state.observer.turns)
                result.malformed += state.malformed
            observer = state.observer
            for base, block in blocks:
                self.unsaved += len(block)
                changed, malformed = observer.feed_block(block, base)
                touched.update(changed)
                state.malformed += malformed
                result.malformed += malformed
            if long_lines := state.tail.take_long_lines():
                state.long_lines += long_lines
                state.malformed += len(long_lines)
                result.malformed += len(long_lines)
            result.changed.extend(touched.values())
        if self.persist and self.autosave and self.unsaved >= SAVE_AFTER:
            self.save_cache()
        return result


@contextmanager
def collector_paused() -> Iterator[None]:
    """Reading a history allocates millions of acyclic objects; the cyclic collector
    would rescan them all again and again (a quarter of a cold scan) for nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
