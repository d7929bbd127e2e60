"""Concurrent writers: a runtime appending while orkas-tui reads and writes; two writers on one file."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import orjson

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.scan import AgentScan
from tests.modelserver import ModelServer, reply
from tests.reflection.conftest import NOW, configure, set_reflected, trigger_turn
from tests.trust.workers import MARK, START

REPO = Path(__file__).resolve().parents[2]
TURNS = 300


def spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.trust.workers", *args], cwd=REPO)


def turns_of(scan: AgentScan) -> list[dict]:
    return scan.rows()


def test_runtime_appends_while_orkas_reads_and_writes(tmp_path: Path) -> None:
    """Nothing lost, nothing counted twice: live scans, cached restarts and our own event appends."""
    paths = AgentPaths(tmp_path / "agents" / "a1")
    paths.conversations.mkdir(parents=True)
    store = SkillStore(paths, Settings())
    child = spawn("runtime", str(tmp_path), str(TURNS))
    live = AgentScan(paths, Settings(), persist=False)
    restarts = created = 0
    seen = set()
    while child.poll() is None or created < 5:
        live.refresh()
        seen.add(len(turns_of(live)))
        restarted = AgentScan(paths, Settings())  # a new process: cache first, then the appended bytes
        restarted.refresh()
        restarted.save_cache()
        restarts += 1
        if created < 40:
            store.create(f"skill {created}", "d", "Always check.\n", START)
            created += 1
    assert child.wait(timeout=60) == 0
    live.refresh()
    fresh = AgentScan(paths, Settings(), persist=False)
    fresh.refresh()
    cached = AgentScan(paths, Settings())
    cached.refresh()
    assert len(turns_of(fresh)) == 2 * TURNS
    assert turns_of(live) == turns_of(fresh) == turns_of(cached)
    assert fresh.malformed_lines == live.malformed_lines == cached.malformed_lines == 0
    assert sum(t.tool_calls for t in turns_of(fresh)) == 2 * sum(i % 4 for i in range(TURNS))
    events = [orjson.loads(line) for line in paths.events.read_bytes().splitlines()]
    assert sorted(e["i"] for e in events if e["type"] == "runtime_note") == list(range(TURNS))
    assert sum(e["type"] == "skill_created" for e in events) == created
    assert restarts > 1
    assert len(seen - {0, 2 * TURNS}) > 1, "the reads never overlapped the appends"


def test_two_writers_never_lose_each_others_changes(tmp_path: Path) -> None:
    """Version checks under the write lock: every conflict is detected and retried, none overwritten."""
    paths = AgentPaths(tmp_path / "agents" / "a1")
    SkillStore(paths, Settings()).create("shared", "d", f"Lines:\n{MARK}\n", START)
    count = 40
    children = [spawn("patcher", str(tmp_path), who, str(count)) for who in ("a", "b")]
    (tmp_path / "go").touch()
    assert [c.wait(timeout=120) for c in children] == [0, 0]
    skill = SkillStore(paths, Settings()).get("shared")
    expected = sorted(f"- {who}-{i}" for who in "ab" for i in range(count))
    assert sorted(line for line in skill.body.splitlines() if line.startswith("- ")) == expected
    assert skill.patch_count == 2 * count
    for who in "ab":  # each writer's own lines stay in its order
        mine = [line for line in skill.body.splitlines() if line.startswith(f"- {who}-")]
        assert mine == [f"- {who}-{i}" for i in range(count)]
    note = paths.note("strategies").read_text()
    assert sorted(note.splitlines()) == expected


def test_two_processes_never_reflect_on_one_agent_at_once(tmp_path: Path) -> None:
    """The app and the daemon both try: one reflects, the other is told ``busy``; one request, one outcome."""
    root = tmp_path / "ws"
    set_reflected(root, "a1", NOW - timedelta(days=2))
    trigger_turn(root, "a1", NOW - timedelta(hours=3))
    answer = {
        "summary": "s",
        "operations": [{"op": "create_skill", "name": "Once", "description": "d", "body": "Always check.\n"}],
    }
    with ModelServer([reply(answer, delay_s=1.5)]) as server:
        configure(root, server)
        argv = [
            sys.executable,
            "-m",
            "orkas_tui",
            "reflect",
            "a1",
            "--json",
            "--workspace",
            str(root),
            "--now",
            "2026-11-30T09:00:00Z",
        ]
        runs = [subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        outcomes = [json.loads(run.communicate(timeout=90)[0]) for run in runs]
    assert sorted(o["status"] for o in outcomes) == ["busy", "proposed"]
    assert len(server.requests) == 1
    assert len(list((root / "agents" / "a1" / ".orkas" / "proposals").glob("p*.json"))) == 1
