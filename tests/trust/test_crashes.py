"""SIGKILL at any moment of a skill write, a state save or a plain atomic write: old or new, never half."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from orkas_tui.config import Settings
from orkas_tui.core.proposals import approve, create_proposal, load_proposal
from orkas_tui.core.skills import SkillStore
from orkas_tui.core.workspace import AgentPaths, Workspace, read_state
from tests.trust.workers import START, VERSIONS, known_bodies, known_files

REPO = Path(__file__).resolve().parents[2]
KILLS = 12


def test_killed_writers_leave_whole_files(tmp_path: Path) -> None:
    paths = AgentPaths(tmp_path / "agents" / "a1")
    SkillStore(paths, Settings()).create("s", "d", known_bodies()[0], START)
    bodies, files = known_bodies(), known_files()
    rng = random.Random(7)
    for _ in range(KILLS):
        ready = tmp_path / "ready"
        ready.unlink(missing_ok=True)
        child = subprocess.Popen([sys.executable, "-m", "tests.trust.workers", "writer", str(tmp_path)], cwd=REPO)
        deadline = time.monotonic() + 30
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        assert child.poll() is None, "the writer died on its own"
        time.sleep(rng.uniform(0, 0.05))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        skill = SkillStore(paths, Settings()).get("s")  # parses: front matter and body whole
        assert skill.body.strip() in {b.strip() for b in bodies}
        raw = orjson.loads(paths.state.read_bytes())  # a half-written JSON would not parse
        assert raw["counter"] in range(VERSIONS) and raw["pad"] == "p" * (raw["counter"] * 30_000)
        assert read_state(paths)["counter"] == raw["counter"]
        assert (paths.root / "plain.bin").read_bytes() in files
    leftovers = [p.name for p in paths.skills.iterdir() if p.name != "s.md"]
    assert all(name.startswith(".") for name in leftovers)  # a killed write's temp file is hidden, never a skill
    assert [s.slug for s in SkillStore(paths, Settings()).load_all()[0]] == ["s"]


OPS = [
    {"op": "patch_skill", "skill": "s", "find": "Always do step 0.", "replace": "Always do step 0. Then step 0b."},
    {"op": "create_skill", "name": "Fresh", "description": "d", "body": "Never skip the check.\n"},
    {"op": "update_self", "note": "strategies", "content": "- prefer small diffs\n"},
]


@pytest.mark.parametrize("op", OPS, ids=[o["op"] for o in OPS])
def test_reapplying_after_a_crash_never_applies_an_operation_twice(tmp_path: Path, op: dict) -> None:
    """The worst moment: the file is written, the history and the proposal are not yet."""
    paths = AgentPaths(tmp_path / "agents" / "a1")
    SkillStore(paths, Settings()).create("s", "d", "Always do step 0.\n", START)
    proposal = create_proposal(paths, Settings(), "one op", [op], START, {})
    child = subprocess.run([sys.executable, "-m", "tests.trust.workers", "approve_then_die", str(tmp_path), proposal.id],
                           cwd=REPO, timeout=60)
    assert child.returncode == 9, "the worker did not die where it should"
    after_crash = {p.relative_to(paths.root): p.read_bytes() for p in (paths.skills, paths.self_dir) for p in p.glob("*.md")}
    _, result = approve(Workspace(tmp_path), proposal.id, START)
    assert not result.applied and not result.failed, result
    now = {p.relative_to(paths.root): p.read_bytes() for p in (paths.skills, paths.self_dir) for p in p.glob("*.md")}
    assert now == after_crash
    _, reloaded = load_proposal(Workspace(tmp_path), proposal.id)
    assert reloaded.operations[0].status == "applied"
