"""Child processes for the concurrency and crash tests: ``python -m tests.trust.workers CMD ARGS``.

Each worker does one known sequence of writes, so the parent can check exactly
what must be on disk afterwards.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

from orkas_tui.core.disk.write import ConflictError, atomic_write
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import UTC
from orkas_tui.core.read.workspace import AgentPaths, write_state
from orkas_tui.core.runtime import AgentRuntime
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.store.system_events import log_event

START = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
MARK = "<!-- next -->"


def runtime(root: str, turns: str) -> None:
    """Append ``turns`` turns to each of two conversations, and one system event per turn."""
    ticks = iter(range(10**9))
    agent = AgentRuntime(root, "a1", clock=lambda: START + timedelta(seconds=next(ticks)), settings=Settings())
    convs = [agent.conversation("left"), agent.conversation("right")]
    for i in range(int(turns)):
        for conv in convs:
            conv.start_turn(skills_indexed=[])
            conv.user(f"turn {i} " + "x" * (i % 50))
            for _ in range(i % 4):
                conv.tool_result(conv.tool_call("bash", {"i": i}), ok=False, error="exit 2")
            conv.end_turn("ok")
        log_event(agent.paths, "runtime_note", START, i=i)


def patcher(root: str, who: str, count: str) -> None:
    """Add ``count`` lines to skill ``shared`` and note ``strategies``, each a conflict-checked write."""
    paths = AgentPaths(Path(root) / "agents" / "a1")
    store, notes = SkillStore(paths, Settings()), SelfNotes(paths, Settings())
    while not (Path(root) / "go").exists():  # both writers start together
        time.sleep(0.001)
    for i in range(int(count)):
        line = f"- {who}-{i}\n"
        while True:
            try:
                store.patch("shared", MARK, line + MARK, START)
                break
            except ConflictError:
                continue
        while True:
            note = notes.read("strategies")
            try:
                notes.write("strategies", note.text + line, note.version, START)
                break
            except ConflictError:
                continue


VERSIONS = 4


def known_bodies() -> list[str]:
    """Bodies of very different sizes, so half a write could not pass for a whole one."""
    return [f"Always do step {i}.\n" + "y" * (i * 4_000) + "\n" for i in range(VERSIONS)]


def known_files() -> list[bytes]:
    return [(f"version {i}\n" + "z" * (i * 100_000)).encode() for i in range(VERSIONS)]


def writer(root: str) -> None:
    """Until killed: edit skill ``s`` to known bodies, save state with a known counter, rewrite a plain file."""
    paths = AgentPaths(Path(root) / "agents" / "a1")
    store = SkillStore(paths, Settings())
    bodies, files = known_bodies(), known_files()
    i = 0
    while True:
        store.edit("s", "d", bodies[i % VERSIONS], None, START, force=True)
        write_state(paths, counter=i % VERSIONS, pad="p" * (i % VERSIONS * 30_000))
        atomic_write(paths.root / "plain.bin", files[i % VERSIONS])
        if i == 0:
            (Path(root) / "ready").touch()
        i += 1


def approve_then_die(root: str, proposal_id: str) -> None:
    """Approve a proposal but die (as by SIGKILL: no cleanup) right after the first file is written."""
    import orkas_tui.core.store.operations as operations
    from orkas_tui.core.read.workspace import Workspace
    from orkas_tui.core.store.changes import approve

    def die(*_args, **_kwargs):
        os._exit(9)

    operations.record_change = die
    approve(Workspace(Path(root)), proposal_id, START)


if __name__ == "__main__":
    {"runtime": runtime, "patcher": patcher, "writer": writer, "approve_then_die": approve_then_die}[sys.argv[1]](*sys.argv[2:])
