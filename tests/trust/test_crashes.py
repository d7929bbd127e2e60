"""SIGKILL at any moment: files stay whole, and an approve or a revert is finished or undone, never half.

The kill-point tests fork a child that replaces the mutating calls of ``os`` with
counting ones and SIGKILLs itself right after the K-th, for every K of a
five-operation approve and of a run of reverts; the parent then runs the recovery
and checks every invariant of docs/guarantees.md section 3.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import orjson
import pytest

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths, Workspace, read_state
from orkas_tui.core.store.changes import approve, recover_agent, reject, revert_change
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.proposals import ProposalError, create_proposal, load_proposal
from orkas_tui.core.store.skills import SkillStore
from tests.trust.workers import START, VERSIONS, known_bodies, known_files

REPO = Path(__file__).resolve().parents[2]
KILLS = 12
RANDOM_KILLS = 30


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


# --- Kill points: SIGKILL right after each mutating system call of an approve and of reverts ---

MUTATORS = ("replace", "rename", "unlink", "write", "rmdir", "truncate", "ftruncate")
NOW = START + timedelta(days=1)
APPROVE_OPS = [  # five operations; the create evicts a skill (the cap is 3)
    {"op": "create_skill", "name": "Fresh", "description": "when starting", "body": "Always run the checks first.\n"},
    {"op": "patch_skill", "skill": "keep", "find": "step one", "replace": "step one, then step two"},
    {"op": "delete_skill", "skill": "gone", "reason": "never read"},
    {"op": "update_self", "note": "profile", "content": "- good at shell\n- weak at docs\n"},
    {"op": "update_self", "note": "strategies", "content": "- prefer small diffs\n"},
]


def killed_run(action, kill_after: int | None) -> tuple[bool, int]:
    """Run ``action`` in a forked child that SIGKILLs itself right after its ``kill_after``-th
    mutating call (``os.replace``, ``os.write``, ``os.unlink``...); return (killed, calls made)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no cleanup, no return into pytest
        os.close(read_end)
        originals = {name: getattr(os, name) for name in MUTATORS}
        calls = 0

        def counted(name):
            def call(*args, **kwargs):
                nonlocal calls
                result = originals[name](*args, **kwargs)
                calls += 1
                if calls == kill_after:
                    os.kill(os.getpid(), signal.SIGKILL)
                return result

            return call

        for name in MUTATORS:
            setattr(os, name, counted(name))
        code = 0
        try:
            action()
        except BaseException:
            code = 1
        originals["write"](write_end, str(calls).encode())
        os._exit(code)
    os.close(write_end)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as pipe:
        reported = pipe.read()
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return True, kill_after or 0
    assert os.WEXITSTATUS(status) == 0, "the action failed on its own"
    return False, int(reported)


def files(root: Path) -> dict[str, bytes]:
    agent = root / "agents" / "a1"
    return {str(p.relative_to(agent)): p.read_bytes() for d in ("skills", "self") for p in (agent / d).glob("*.md")}


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A workspace at the skill cap with a proposal of five operations, and its reference run."""
    root = tmp_path_factory.mktemp("kill") / "ws"
    (root / "agents" / "a1").mkdir(parents=True)
    (root / "orkas.toml").write_text("[skills]\nmax_skills = 3\n")
    workspace = Workspace(root)
    paths = workspace.agent("a1")
    store = SkillStore(paths, workspace.settings)
    for hours, name in enumerate(("victim", "keep", "gone")):
        store.create(name, "d", f"The {name} skill: step one.\n", START + timedelta(hours=hours))
    SelfNotes(paths, workspace.settings).write("profile", "- good at shell\n", None, START)
    proposal = create_proposal(paths, workspace.settings, "five things", APPROVE_OPS, START, {})
    assert proposal.id == "a1.p1" and all(o.status == "pending" for o in proposal.operations)
    return root


@pytest.fixture(scope="module")
def reference(template: Path, tmp_path_factory) -> dict:
    """What a clean approve writes, and what it calls: the ground truth for every kill point."""
    root = tmp_path_factory.mktemp("reference") / "ws"
    shutil.copytree(template, root)
    killed, calls = killed_run(lambda: approve(Workspace(root), "a1.p1", NOW), None)
    assert not killed
    changes = list_changes(Workspace(root).agent("a1"))
    assert [(c.op_index, c.action) for c in changes] == [
        (0, "evict_skill"),
        (0, "create_skill"),
        (1, "patch_skill"),
        (2, "delete_skill"),
        (3, "update_self"),
        (4, "update_self"),
    ]
    return {
        "root": root,
        "calls": calls,
        "initial": files(template),
        "final": files(root),
        "changes": {(c.op_index, c.target): c for c in changes},
    }


def target_key(change) -> str:
    return f"skills/{change.target}.md" if change.kind == "skill" else f"self/{change.target}.md"


def check_after_approve_crash(root: Path, reference: dict) -> None:
    """Every invariant of a recovered approve, then a second approve finishes exactly the rest."""
    workspace = Workspace(root)
    paths = workspace.agent("a1")
    assert recover_agent(paths) is None or not (paths.private / "journal.json").exists()
    assert not (paths.private / "journal.json").exists()
    raw = orjson.loads((paths.private / "proposals" / "p1.json").read_bytes())
    assert {o["status"] for o in raw["operations"]} <= {"pending", "applied"}  # never "applying"
    _, proposal = load_proposal(workspace, "a1.p1")
    history = list_changes(paths)
    by_op: dict[int, list] = {}
    for change in history:
        by_op.setdefault(change.op_index, []).append(change)
    now_files = files(root)
    for item in proposal.operations:
        recorded = by_op.get(item.index, [])
        expected = [c for (i, _), c in reference["changes"].items() if i == item.index]
        if item.status == "applied":  # in history with before and after, and the files hold after
            assert sorted(c.id for c in recorded) == sorted(item.changes)
            assert [(c.target, c.before, c.after) for c in recorded] == [(c.target, c.before, c.after) for c in expected]
            for change in expected:
                assert now_files.get(target_key(change)) == (None if change.after is None else change.after.encode())
            with pytest.raises(ProposalError, match="already applied"):
                reject(workspace, "a1.p1", NOW, item.index)
        else:  # nothing of it anywhere: the files hold before
            assert recorded == [] and item.status == "pending"
            for change in expected:
                assert now_files.get(target_key(change)) == (None if change.before is None else change.before.encode())
    assert proposal.status == ("applied" if all(o.status == "applied" for o in proposal.operations) else "pending")
    _, result = approve(workspace, "a1.p1", NOW)
    assert not result.failed, result.failed
    assert files(root) == reference["final"]
    again = list_changes(paths)
    assert len(again) == len(reference["changes"])  # nothing applied twice
    assert {(c.op_index, c.target, c.before, c.after) for c in again} == {
        (c.op_index, c.target, c.before, c.after) for c in reference["changes"].values()
    }


def revert_all(root: Path) -> None:
    workspace = Workspace(root)
    for change in reversed(list_changes(workspace.agent("a1"))):
        if not change.reverted_at:
            revert_change(workspace, change.id, NOW)


def check_after_revert_crash(root: Path, reference: dict) -> None:
    """Each change is either reverted (file back to before) or not (file at after); then the rest revert."""
    paths = Workspace(root).agent("a1")
    recover_agent(paths)
    assert not (paths.private / "journal.json").exists()
    now_files = files(root)
    for change in list_changes(paths):
        text = change.before if change.reverted_at else change.after
        assert now_files.get(target_key(change)) == (None if text is None else text.encode())
    revert_all(root)
    assert files(root) == reference["initial"]
    assert all(c.reverted_at for c in list_changes(paths))


def fresh_copy(source: Path, tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(source, root)
    return root


def test_an_approve_killed_after_any_write_is_finished_by_the_next_command(template, reference, tmp_path) -> None:
    calls = reference["calls"]
    assert calls >= 30  # a five-operation approve: journal, files, history, proposal, events
    for k in range(1, calls + 1):
        root = fresh_copy(template, tmp_path, f"k{k}")
        killed, _ = killed_run(lambda root=root: approve(Workspace(root), "a1.p1", NOW), k)
        assert killed
        check_after_approve_crash(root, reference)
        shutil.rmtree(root)


def test_reverts_killed_after_any_write_are_finished_by_the_next_command(reference, tmp_path) -> None:
    probe = fresh_copy(reference["root"], tmp_path, "probe")
    killed, calls = killed_run(lambda: revert_all(probe), None)
    assert not killed and calls >= 6 * 4
    for k in range(1, calls + 1):
        root = fresh_copy(reference["root"], tmp_path, f"k{k}")
        assert killed_run(lambda root=root: revert_all(root), k)[0]
        check_after_revert_crash(root, reference)
        shutil.rmtree(root)


def test_random_kills_during_the_work_and_during_the_recovery(template, reference, tmp_path) -> None:
    """Seeded: kill an approve or a revert at a random write, then kill the recovery itself, then recover."""
    rng = random.Random(17)
    for round_ in range(RANDOM_KILLS):
        reverting = rng.random() < 0.5
        root = fresh_copy(reference["root"] if reverting else template, tmp_path, f"r{round_}")
        work = (lambda root=root: revert_all(root)) if reverting else (lambda root=root: approve(Workspace(root), "a1.p1", NOW))
        assert killed_run(work, rng.randint(1, reference["calls"] if not reverting else 24))[0]
        killed_run(lambda root=root: recover_agent(Workspace(root).agent("a1")), rng.randint(1, 8))
        (check_after_revert_crash if reverting else check_after_approve_crash)(root, reference)
        shutil.rmtree(root)


def test_status_finishes_an_interrupted_approve_and_says_so(template, reference, tmp_path) -> None:
    from tests.trust.conftest import cli

    root = fresh_copy(template, tmp_path, "status")
    journal = root / "agents" / "a1" / ".orkas" / "journal.json"
    for k in range(1, reference["calls"]):  # the first kill point that leaves an intent to finish
        assert killed_run(lambda: approve(Workspace(root), "a1.p1", NOW), k)[0]
        if journal.exists():
            break
    code, _, err = cli("status", "--workspace", str(root), "--now", "2026-11-30T09:00:00Z", "--json")
    assert code == 0 and err.startswith("orkas-tui: a1: finished an interrupted approval of a1.p1 operation 0")
    assert not journal.exists()
    _, proposal = load_proposal(Workspace(root), "a1.p1")
    assert proposal.operations[0].status == "applied" and len(proposal.operations[0].changes) == 2


def test_a_file_edited_by_hand_after_the_crash_rolls_the_operation_back(template, reference, tmp_path) -> None:
    """Killed after the evicted skill was removed; a person then writes the new skill's file by hand:
    the person's file is kept, the evicted skill comes back, the operation stays pending with why."""
    root = fresh_copy(template, tmp_path, "hand")
    agent = root / "agents" / "a1"
    assert killed_run(lambda: approve(Workspace(root), "a1.p1", NOW), 2)[0]  # the journal, then the eviction
    assert not (agent / "skills" / "victim.md").exists()
    (agent / "skills" / "fresh.md").write_text("my own words\n")
    message = recover_agent(Workspace(root).agent("a1"))
    assert message.startswith("a1: an interrupted approval of a1.p1 operation 0 was rolled back: skills/fresh.md changed")
    assert (agent / "skills" / "fresh.md").read_text() == "my own words\n"
    assert files(root)["skills/victim.md"] == reference["initial"]["skills/victim.md"]
    _, proposal = load_proposal(Workspace(root), "a1.p1")
    assert proposal.operations[0].status == "pending" and "skills/fresh.md changed on disk" in proposal.operations[0].reason
    assert list_changes(Workspace(root).agent("a1")) == [] and not (agent / ".orkas" / "journal.json").exists()


async def test_the_app_finishes_an_interrupted_approve_at_start(template, reference, tmp_path) -> None:
    from orkas_tui.tui.app import make_app

    root = fresh_copy(template, tmp_path, "app")
    journal = root / "agents" / "a1" / ".orkas" / "journal.json"
    assert killed_run(lambda: approve(Workspace(root), "a1.p1", NOW), 1)[0]  # only the intent is written
    assert journal.exists()
    app = make_app(root, clock=lambda: NOW, watch=False, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert not journal.exists()
        assert any("finished an interrupted approval of a1.p1 operation 0" in str(n.message) for n in app._notifications)
    _, proposal = load_proposal(Workspace(root), "a1.p1")
    assert proposal.operations[0].status == "applied"
