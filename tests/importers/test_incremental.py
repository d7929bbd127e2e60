"""Incremental import: any sequence of partial imports writes what one import of the whole file writes."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.importers.run import import_files
from orkas_tui.importers.watch import watch_import
from tests.importers.conftest import BIG_SESSION
from tests.importers.test_claude_code import session
from tests.importers.test_codex import rollout
from tests.importers.transcripts import write_lines

FORMATS = {"claude-code": session, "codex": rollout}


def fresh(root: Path) -> tuple[Workspace, AgentPaths]:
    shutil.rmtree(root, ignore_errors=True)
    (root / "agents" / "coder").mkdir(parents=True)
    workspace = Workspace(root)
    return workspace, workspace.agent("coder")


def conversation_bytes(agent: AgentPaths) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in agent.conversation_files()}


def one_shot(tmp: Path, fmt: str, data: bytes) -> dict[str, bytes]:
    workspace, agent = fresh(tmp / "one")
    source = tmp / "src-one" / "s.jsonl"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_bytes(data)
    import_files(agent, workspace.settings, fmt, [source], settle=0)
    return conversation_bytes(agent)


@settings(max_examples=60, deadline=None)
@given(fmt=st.sampled_from(sorted(FORMATS)), cuts=st.lists(st.floats(0, 1), max_size=5))
def test_growing_file_adds_only_new_events(tmp_path_factory, fmt, cuts):
    tmp = tmp_path_factory.mktemp("grow")
    data = write_lines(tmp / "full.jsonl", FORMATS[fmt]()).read_bytes()
    workspace, agent = fresh(tmp / "many")
    source = tmp / "src" / "s.jsonl"
    source.parent.mkdir(parents=True, exist_ok=True)
    for cut in sorted(cuts):
        source.write_bytes(data[: int(len(data) * cut)])
        import_files(agent, workspace.settings, fmt, [source], settle=3600)
    source.write_bytes(data)
    import_files(agent, workspace.settings, fmt, [source], settle=0)
    assert conversation_bytes(agent) == one_shot(tmp, fmt, data)


def test_crash_between_append_and_state_is_undone(tmp_path, workspace, agent):
    data = write_lines(tmp_path / "full.jsonl", session()).read_bytes()
    source = tmp_path / "src" / "s.jsonl"
    source.parent.mkdir()
    source.write_bytes(data[: len(data) // 2])
    import_files(agent, workspace.settings, "claude-code", [source], settle=3600)
    conv = agent.conversations / "claude-s.jsonl"
    with open(conv, "ab") as handle:  # events an import appended before it died, its state unsaved
        handle.write(b'{"ts":"2026-03-01T10:00:00Z","type":"user","text":"half-written by a crashed import"}\n')
    source.write_bytes(data)
    import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    assert conversation_bytes(agent) == one_shot(tmp_path, "claude-code", data)


def test_truncated_transcript_imports_what_is_readable(tmp_path, workspace, agent):
    data = write_lines(tmp_path / "full.jsonl", session()[:12]).read_bytes()
    source = tmp_path / "src" / "s.jsonl"
    source.parent.mkdir()
    source.write_bytes(data + b'{"type":"user","message":{"role":"us')
    stats = import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    assert stats.turns == 1 and stats.tool_calls == 5
    assert len(stats.problems) == 1 and "cut off" in stats.problems[0]
    again = import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    assert (again.lines, again.turns) == (0, 0)


def test_shrunk_source_is_reported_not_reimported(tmp_path, workspace, agent):
    source = write_lines(tmp_path / "s.jsonl", session())
    import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    before = conversation_bytes(agent)
    write_lines(source, session()[:3])
    stats = import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    assert "shorter than" in stats.problems[0] and conversation_bytes(agent) == before


def test_concurrent_imports_write_each_event_once(tmp_path, workspace, agent):
    data = write_lines(tmp_path / "full.jsonl", session()).read_bytes()
    sources = []
    for n in range(3):
        source = tmp_path / f"src{n}" / "s.jsonl"
        source.parent.mkdir()
        source.write_bytes(data)
        sources.append(source)
    threads = [
        threading.Thread(target=import_files, args=(agent, workspace.settings, "claude-code", sources), kwargs={"settle": 0})
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert conversation_bytes(agent) == one_shot(tmp_path, "claude-code", data)


def test_watch_keeps_every_rule_on_the_real_session_appended_in_steps(samples, tmp_path):
    """The real session written in five pieces (some cut mid-line) while ``--watch`` runs gives the bytes of one import."""
    data = (samples / BIG_SESSION).read_bytes()
    expected_ws, expected_agent = fresh(tmp_path / "one")
    whole = tmp_path / "whole" / "s.jsonl"
    whole.parent.mkdir()
    whole.write_bytes(data)
    import_files(expected_agent, expected_ws.settings, "claude-code", [whole], settle=3600)
    workspace, agent = fresh(tmp_path / "watched")
    source = tmp_path / "live" / "s.jsonl"
    source.parent.mkdir()
    source.write_bytes(b"")
    stop = threading.Event()
    thread = threading.Thread(
        target=watch_import,
        args=(agent, workspace.settings, "claude-code", [source.parent], 3600.0, lambda _s: None, stop),
        kwargs={"tick": 0.1},
    )
    thread.start()
    state = agent.private / "imports" / "claude-s.json"
    try:
        for cut in (0.1, 0.37, 0.5, 0.81, 1.0):
            with open(source, "ab") as handle:
                handle.write(data[source.stat().st_size : int(len(data) * cut)])
            readable = data[: int(len(data) * cut)].rfind(b"\n") + 1
            _wait_for(lambda readable=readable: state.exists() and json.loads(state.read_text())["offset"] == readable)
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    assert conversation_bytes(agent) == conversation_bytes(expected_agent)
    assert b'"trigger":"task-notification"' in conversation_bytes(agent)["claude-s.jsonl"]


def _wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the watcher"
        time.sleep(0.05)
