"""An agent's conversations read and folded: tails, observers and summaries, refreshed incrementally.

:class:`AgentScan` keeps one :class:`~orkas_tui.core.summary.fold.ConversationState` per
conversation file. Each :meth:`AgentScan.refresh` reads only bytes appended since the
last one and folds the turns they changed; a file that shrank or was replaced is read
again from its start. It starts from the agent's cache (:mod:`orkas_tui.core.summary.cache`),
so a warm start reads no old history and builds no turn record it is not asked for. The
CLI refreshes once; the TUI on every change the watcher reports. Every view reads what
this holds: the picture of an agent (:mod:`orkas_tui.core.picture`: status and the TUI), the
queue (:meth:`activity`), the bundle and the effects of changes (:meth:`turns`, :meth:`newest_turns`).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.signals import weakness_tools
from orkas_tui.core.observe.skill_metrics import SkillMetrics, add_uses
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import TurnRecord
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.read.workspace import AgentPaths, write_state
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.summary.cache import SummaryCache, entry_line, still_matches
from orkas_tui.core.summary.fold import (
    ConversationState,
    Run,
    Uses,
    activity_since,
    newest_first,
    newest_pairs,
    newest_runs,
    pair_runs,
)
from orkas_tui.core.summary.report import MARKS, Activity, last_reflection, read_marks
from orkas_tui.core.summary.turn import Turn, TurnSummary


@dataclass
class RefreshResult:
    """What one refresh changed: (conversation, seq) of turns touched, files started over or gone, lines skipped."""

    changed: list[tuple[str, int]] = field(default_factory=list)
    reset: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    malformed: int = 0

    def __bool__(self) -> bool:
        return bool(self.changed or self.reset or self.removed or self.malformed)


SAVE_AFTER = 256 * 1024  # bytes read since the last save before the cache is written again


class AgentScan:
    def __init__(
        self, paths: AgentPaths, settings: Settings, persist: bool = True, autosave: bool = True, profile: str | None = None
    ) -> None:
        """``autosave=False``: :meth:`refresh` never writes the cache; the owner calls :meth:`save_cache`
        when it has time (the TUI, so a cache write never sits between an append and its row).
        ``profile``: the text of ``self/profile.md`` when the caller has just read it."""
        self.paths = paths
        self.settings = settings
        self.rule = TransientRule.from_settings(settings)
        self.matcher = matcher_for(settings.correction_phrases)
        if profile is None:
            profile = SelfNotes(paths, settings).read("profile").text
        self.weak = weakness_tools(profile)
        self.conversations: dict[str, ConversationState] = {}
        self.persist = persist
        self.autosave = autosave
        self.cache = SummaryCache(paths, settings, self.weak)
        self._restored: dict[str, ConversationState] | None = None if persist else {}
        self._gone: set[str] = set()  # conversations the cache still has
        self.uses: Uses = {}  # the skill-use counts over every turn of every conversation (:meth:`skill_use`)
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

    @property
    def turn_count(self) -> int:
        return sum(c.count for c in self.conversations.values())

    @property
    def triggering_turns(self) -> int:
        """How many turns reached the threshold: each conversation's count, kept by its fold."""
        return sum(c.triggering for c in self.conversations.values())

    def line_problems(self) -> list[str]:
        """One line per conversation with lines skipped for their length."""
        return [p for c in self.conversations.values() if (p := c.long_line_problem())]

    def turns(self) -> Iterator[Turn]:
        """Every turn's summary and trace, conversation by conversation in turn order: what the
        bundle and the effects read (no turn record built)."""
        for state in self.conversations.values():
            yield from map(Turn, itertools.count(), state.summaries, state.traces)

    def newest_turns(self, count: int | None = None) -> list[Turn]:
        """:meth:`turns` newest first (:func:`newest_order`), made on every change the watcher
        reports: what the app's Turns tab shows. Taken as runs of one conversation
        (:func:`newest_runs`), each conversation's lists looked up once per run. ``count``: only
        that many, decoding only the conversations they are in (:func:`newest_pairs`: text status)."""
        if count is not None:
            return [
                Turn(seq, state.summaries[seq], state.traces[seq])
                for state, seq in newest_pairs(self.conversations.values(), count)
            ]
        turns: list[Turn] = []
        for state, seqs in newest_runs(self.conversations.values()):
            summaries, traces = state.summaries, state.traces
            turns += [Turn(seq, summaries[seq], traces[seq]) for seq in seqs]
        return turns

    def newest_runs(self, count: int | None = None) -> list[Run]:
        """Every turn newest first as runs of one conversation (:func:`newest_runs`), none decoded:
        what ``status --json`` prints from the cache's bytes. ``count``: only that many
        (:func:`newest_pairs`), as the text shows them."""
        if count is None:
            return newest_runs(self.conversations.values())
        return pair_runs(newest_pairs(self.conversations.values(), count))

    def records(self) -> Iterator[TurnRecord]:
        """The observer's turn records, conversation by conversation (built from the summaries
        after a restore): what tests of the observer read."""
        for state in self.conversations.values():
            yield from state.records()

    def rows(self) -> list[TurnSummary]:
        """Every turn's summary (what ``status --json`` prints), newest first (no turn record built)."""
        return newest_first(self.conversations.values())

    def skill_use(self) -> dict[str, SkillMetrics]:
        """Each skill's use counts over the agent's turns: a copy, so a view keeps what it was shown
        while the next refresh folds new turns in."""
        return {slug: msgspec.structs.replace(counts) for slug, counts in self.uses.items()}

    def marks(self) -> dict[str, int]:
        """Each conversation's read mark: how far the last reflection read it. An agent reflected on
        before read marks existed gets them once from its ``last_reflection_at`` (each conversation's
        mark is the end of its last turn that ended by then), written to its state so that a history
        imported afterwards, however old, is still unseen; never reflected on: no marks, nothing seen."""
        marks = read_marks(self.paths)
        if marks is not None:
            return marks
        last = last_reflection(self.paths)
        if last is None:
            return {}
        derived = {}
        for stem, state in self.conversations.items():
            ends = [
                t.end for s, t in zip(state.summaries, state.traces, strict=True) if (e := parse_ts(s.ended_at)) and e <= last
            ]
            if ends:
                derived[stem] = max(ends)
        with contextlib.suppress(OSError):  # a read-only workspace: the marks hold for this run
            write_state(self.paths, **{MARKS: derived})
        return derived

    def activity(self) -> Activity:
        """What no reflection has seen yet (:func:`activity_since` over :meth:`marks`)."""
        return activity_since(self.conversations.values(), self.marks())

    def status_fields(self) -> dict:
        """The status fields that follow from the conversations, every turn's summary newest first
        included: what a test holds a ``status`` document's agent against."""
        return {
            "malformed_lines": self.malformed_lines,
            "orphan_events": self.orphan_events,
            "triggering_turns": self.triggering_turns,
            "turns": self.rows(),
            "line_problems": self.line_problems(),
        }

    @property
    def pending_removals(self) -> bool:
        """Conversations gone from disk that the cache still holds."""
        return bool(self._gone)

    def rescore(self, profile: str) -> bool:
        """Score every turn again if the tools ``profile`` names changed (no file is read); ``True`` if so."""
        weak = weakness_tools(profile)
        if weak == self.weak:
            return False
        self.weak = weak
        self.cache = SummaryCache(self.paths, self.settings, weak)
        for state in self.conversations.values():
            state.fold_all(self.settings, weak, self.uses)
        self.unsaved += 1  # every row changed: the cache is written whole at the next save
        return True

    def _new_state(self, stem: str) -> ConversationState:
        path = self.paths.conversations / f"{stem}.jsonl"
        return ConversationState(path, self.rule, self.matcher, self.settings.max_line_bytes)

    def _restore(self, stem: str) -> ConversationState:
        """A conversation's state: from the cache when its entry still matches the file."""
        state = self._cached().pop(stem, None)
        self._gone.discard(stem)
        return self._new_state(stem) if state is None else state

    def _cached(self) -> dict[str, ConversationState]:
        """The states the cache holds that no refresh took yet (read from the file the first time)."""
        if self._restored is None:
            self._restored, self.uses = self.cache.load(self._new_state)
            self._gone.update(self._restored)
            if self.cache.rescore:
                for state in self._restored.values():
                    state.fold_all(self.settings, self.weak, self.uses)
                self.unsaved += 1  # every row changed: written whole at the next save
        return self._restored

    def save_cache(self) -> bool:
        """Write what changed since the last save to the cache; ``False`` if it cannot be written (read-only disk)."""
        if not self.persist:
            return False
        if self._restored is None:
            self._restored = {}
        saved = self.cache.save(self.conversations, self.uses, self._gone)
        if saved:
            self._gone.clear()
            self.unsaved = 0
        return saved

    def refresh(self, listed: list[str] | None = None) -> RefreshResult:
        """Read new bytes of every conversation file and fold what they changed (``listed``: the
        readable ``.jsonl`` names of the conversations folder, when the caller has just listed it)."""
        with collector_paused():
            return self._refresh(self._listed() if listed is None else listed)

    def _listed(self) -> list[str]:
        return self.paths.readable_names(self.paths.conversations, ".jsonl")

    def _refresh(self, listed: list[str]) -> RefreshResult:
        result = RefreshResult()
        stems = [name[: -len(".jsonl")] for name in listed]
        present = set(stems)
        for conv in [c for c in self.conversations if c not in present]:
            self.conversations.pop(conv).forget(self.uses)
            self._gone.add(conv)
            result.removed.append(conv)
        folder = str(self.paths.conversations)
        for stem in stems:
            self._refresh_one(stem, f"{folder}/{stem}.jsonl", result)
        if self._restored:  # what the cache holds of conversations no longer on disk
            for state in self._restored.values():
                state.forget(self.uses)
            self._restored.clear()
        # listing order: the order the queue adds trigger scores in
        self.conversations = {stem: self.conversations[stem] for stem in stems if stem in self.conversations}
        if self.persist and self.autosave and (self.unsaved >= SAVE_AFTER or self.cache.rescore):
            self.save_cache()
        return result

    def _refresh_one(self, stem: str, path: str, result: RefreshResult) -> None:
        known = self.conversations.get(stem)
        new = known is None
        if known is None:
            state = self.conversations[stem] = self._restore(stem) if self.persist else self._new_state(stem)
        else:
            state = known
        try:
            stat = os.stat(path)
        except OSError:
            stat = None
        if stat is not None and state.seen == (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns):
            if new:  # restored from the cache: all of it is new to this scan
                result.changed += [(stem, seq) for seq in range(state.count)]
                result.malformed += state.malformed
            return
        if state.probe is not None:  # restored, and the file changed since: does it still start the same?
            if stat is None or not still_matches(state, stat):
                state = self._start_over(state)
            state.probe = None
        reset, blocks = state.tail.poll_blocks()
        if reset:
            state = self._start_over(state)
            result.reset.append(stem)
        elif new:
            result.malformed += state.malformed
        observer = state.observer
        whole = new or reset or not state.count  # every turn is new to this scan's reader
        touched: dict[int, TurnRecord] = {}
        for base, block in blocks:
            state.read_on(block)
            self.unsaved += len(block)
            changed, malformed = observer.feed_block(block, base)
            touched.update(changed)
            state.malformed += malformed
            result.malformed += malformed
        if long_lines := state.tail.take_long_lines():
            state.long_lines += long_lines
            state.malformed += len(long_lines)
            result.malformed += len(long_lines)
        if touched and len(touched) == len(observer.turns):
            state.fold_all(self.settings, self.weak, self.uses)
        elif touched:
            state.fold(touched.values(), self.settings, self.weak, self.uses)
        if whole:
            result.changed += [(stem, seq) for seq in range(state.count)]
        else:
            result.changed += [(stem, record.seq) for record in touched.values()]
        if stat is not None and state.tail.offset <= stat.st_size:
            state.seen = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)

    def _start_over(self, state: ConversationState) -> ConversationState:
        """A new state for a file to read from its start, the old one's turns no longer counted."""
        state.forget(self.uses)
        fresh = self.conversations[state.stem] = self._new_state(state.stem)
        return fresh


@contextmanager
def collector_paused(freeze: bool = False) -> Iterator[None]:
    """Reading a history allocates millions of acyclic objects; the cyclic collector
    would rescan them all again and again (a quarter of a cold scan) for nothing.
    ``freeze``: what survives is moved out of the collector's sight before it runs again,
    or its first pass walks all of it once more (50 to 100 ms after a warm status)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if freeze:
                gc.freeze()
            gc.enable()


def settle_marks(paths: AgentPaths, settings: Settings) -> None:
    """Give an agent reflected on before read marks existed its marks now (:meth:`AgentScan.marks`),
    before anything new is written: an importer calls this first, so a history it brings in,
    however old, is never taken for what the last reflection saw. Costs a state read otherwise."""
    if read_marks(paths) is None and last_reflection(paths) is not None:
        scan = AgentScan(paths, settings)
        scan.refresh()
        scan.marks()


PARALLEL_AFTER = 8 * 1024 * 1024  # history bytes to read before a second process pays for itself
PARTS_PER_WORKER = 4  # pieces of the history per worker: one slow piece holds the others up less


def refreshed(
    agents: Sequence[tuple[AgentPaths, str | None, list[str] | None]], settings: Settings, jobs: int = 1
) -> list[AgentScan]:
    """A refreshed, saved :class:`AgentScan` for each ``(paths, profile text, conversation names
    just listed or None)``, in order.

    A cold scan is CPU-bound per conversation and conversations share nothing but the agent's
    skill-use counts (a sum), so when agents have no cache and there is enough to read, up to
    ``jobs`` forked processes read runs of conversations side by side, one agent's or many
    (:func:`_build_in_processes`); this process writes each agent's cache from what they
    return, as one process would have written it, and starts from it. Only a caller with no
    threads of its own may pass ``jobs > 1`` (the CLI).
    """
    scans = [AgentScan(paths, settings, autosave=False, profile=profile) for paths, profile, _ in agents]
    listed = [scan._listed() if names is None else names for scan, (_, _, names) in zip(scans, agents, strict=True)]
    if jobs > 1:
        cold = [(scan, names, sizes) for scan, names in zip(scans, listed, strict=True) if (sizes := _cold_sizes(scan, names))]
        total = sum(sum(sizes) for _, _, sizes in cold)
        if total >= PARALLEL_AFTER:
            parts = [
                part for scan, names, sizes in cold for part in _parts(scan, names, sizes, total / (jobs * PARTS_PER_WORKER))
            ]
            if len(parts) > 1:
                parts.sort(key=lambda part: -part.size)  # largest first: workers end together
                _build_in_processes(parts, min(jobs, len(parts)))
    for scan, names in zip(scans, listed, strict=True):
        scan.refresh(names)
        scan.save_cache()
    return scans


def _cold_sizes(scan: AgentScan, names: list[str]) -> list[int]:
    """Each file's bytes to read if the agent's cache holds nothing (none if it holds something)."""
    if scan._cached() or not names:
        return []
    return [_size(scan.paths.conversations / name) for name in names]


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


@dataclass(eq=False)
class _Part:
    """A run of one agent's conversations (in listing order) for one worker; ``of``: the agent's parts."""

    scan: AgentScan
    index: int
    of: list[_Part | None]
    names: list[str]
    size: int


def _parts(scan: AgentScan, names: list[str], sizes: list[int], target: float) -> list[_Part]:
    """The agent's conversations cut, in listing order, into runs of about ``target`` bytes."""
    runs: list[tuple[list[str], int]] = [([], 0)]
    for name, size in zip(names, sizes, strict=True):
        if runs[-1][0] and runs[-1][1] + size / 2 > target:
            runs.append(([], 0))
        runs[-1][0].append(name)
        runs[-1] = (runs[-1][0], runs[-1][1] + size)
    of: list[_Part | None] = [None] * len(runs)
    return [_Part(scan, k, of, run, size) for k, (run, size) in enumerate(runs)]


def _build(paths: AgentPaths, settings: Settings, profile: str, names: list[str]) -> tuple[list[bytes], Uses]:
    """What a worker returns for a run of conversations: each one's whole cache entry, and what
    their turns add to the skill-use counts."""
    scan = AgentScan(paths, settings, persist=False, autosave=False, profile=profile)
    scan.refresh(names)
    return [entry_line(state) for state in scan.conversations.values()], scan.uses


def _build_in_processes(parts: list[_Part], workers: int) -> None:
    """Read ``parts`` in forked workers; as soon as an agent's parts are all back its cache is
    written whole (:meth:`SummaryCache.write_whole`) and its scan starts from it, while the workers
    read on. Whatever they could not build (no fork on this platform, a worker killed, a read-only
    disk) is built in this process by the caller's refresh."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return
    profiles = {id(part.scan): _profile(part.scan) for part in parts}
    results: dict[int, tuple[list[bytes], Uses]] = {}
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = {
                pool.submit(_build, part.scan.paths, part.scan.settings, profiles[id(part.scan)], part.names): part
                for part in parts
            }
            for future in as_completed(futures):
                part = futures[future]
                results[id(part)] = future.result()
                part.of[part.index] = part
                if all(part.of):
                    _restart_from(part.scan, [results.pop(id(done)) for done in part.of if done is not None])
    except (BrokenProcessPool, OSError):
        return


def _restart_from(scan: AgentScan, results: list[tuple[list[bytes], Uses]]) -> None:
    """Write the agent's cache from its parts' entries (in listing order) and counts, then read it."""
    uses: Uses = {}
    for _, counts in results:
        add_uses(uses, counts)
    if scan.cache.write_whole([line for lines, _ in results for line in lines], uses):
        scan._restored = None
        scan._gone.clear()
        scan._cached()


def _profile(scan: AgentScan) -> str:
    return SelfNotes(scan.paths, scan.settings).read("profile").text


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
