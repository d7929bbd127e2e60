"""Symlinks out of the workspace and unreadable files: not read, reported, the rest still read.

Rule: a conversation, skill or note whose path (symlinks resolved) lies outside the
workspace root is never read, and so never reaches a report, a prompt or a model.
Links that stay inside the workspace (one agent sharing another's skill) are followed.
Writes replace the link itself, never the file it points to.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import orjson
import pytest

from orkas_tui.core.disk.confine import OutsideWorkspace
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import UTC
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.skills import SkillStore
from tests.core.helpers import turn, write_lines
from tests.trust.conftest import cli, only_agent, status_json
from tests.trust.test_bad_files import GOOD_SKILL

SECRET = "TOP-SECRET-OUTSIDE"
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace and, beside it, a folder of private files a link could point at."""
    root, outside = tmp_path / "ws", tmp_path / "private"
    outside.mkdir()
    (outside / "conv.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in turn("t9", user=SECRET)))
    (outside / "skill.md").write_text(GOOD_SKILL.replace("Deploy", SECRET))
    (outside / "note.md").write_text(f"`{SECRET}`")
    agent = root / "agents" / "a1"
    write_lines(agent / "conversations" / "ok.jsonl", turn("t1"))
    (agent / "skills").mkdir()
    (agent / "self").mkdir()
    (agent / "skills" / "mine.md").write_text(GOOD_SKILL)
    return root, outside


def link_out(root: Path, outside: Path) -> AgentPaths:
    agent = root / "agents" / "a1"
    (agent / "conversations" / "leak.jsonl").symlink_to(outside / "conv.jsonl")
    (agent / "skills" / "leak.md").symlink_to(outside / "skill.md")
    (agent / "self" / "profile.md").symlink_to(outside / "note.md")
    return AgentPaths(agent)


def test_links_out_of_the_workspace_are_not_read_and_are_reported(world) -> None:
    root, outside = world
    link_out(root, outside)
    code, out, err = cli("status", "--workspace", str(root), "--json", "--now", "2026-11-30T09:00:00Z")
    assert code == 0, err
    assert SECRET not in out
    agent = only_agent(orjson.loads(out))
    assert [t["turn"] for t in agent["turns"]] == ["t1"]
    assert [s["slug"] for s in agent["skills"]] == ["mine"]
    problems = "\n".join(agent["problems"])
    for name in ("leak.jsonl", "leak.md", "profile.md"):
        assert f"{name}: links outside the workspace" in problems or f"{name} links outside the workspace" in problems
    code, out, _ = cli("prompt", "--workspace", str(root), "a1")
    assert code == 0 and SECRET not in out and "Deploy" in out


def test_writes_replace_the_link_never_the_outside_file(world) -> None:
    root, outside = world
    paths = link_out(root, outside)
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    store = SkillStore(paths, Settings())
    with pytest.raises(Exception, match="outside the workspace"):
        store.patch("leak", "Always", "Never", NOW)
    (paths.skills / "dangling.md").symlink_to(outside / "new.md")
    store.create("dangling", "d", "Always check.\n", NOW)
    assert not (outside / "new.md").exists() and not (paths.skills / "dangling.md").is_symlink()
    notes = SelfNotes(paths, Settings())
    assert notes.read("profile").text == ""
    with pytest.raises(OutsideWorkspace):  # the note is a link out of the workspace: refused, not followed
        notes.write("profile", "hello", None, NOW)
    assert {p.name: p.read_bytes() for p in outside.iterdir() if p.name != "new.md"} == before


def test_links_inside_the_workspace_are_followed(world) -> None:
    root, _ = world
    other = root / "agents" / "a2" / "skills"
    other.mkdir(parents=True)
    (other / "shared.md").symlink_to(root / "agents" / "a1" / "skills" / "mine.md")
    agents = {a["id"]: a for a in status_json(root)["agents"]}
    assert [s["slug"] for s in agents["a2"]["skills"]] == ["shared"]
    assert not agents["a2"]["problems"]


def test_a_symlink_loop_is_reported_not_followed(world) -> None:
    root, _ = world
    conv = root / "agents" / "a1" / "conversations"
    (conv / "loop.jsonl").symlink_to(conv / "loop2.jsonl")
    (conv / "loop2.jsonl").symlink_to(conv / "loop.jsonl")
    agent = only_agent(status_json(root))
    assert [t["turn"] for t in agent["turns"]] == ["t1"]


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp folder another user can traverse (pytest's own tmp is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="orkas-trust-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def unprivileged(fn: Callable[[], object]) -> object:
    """Run ``fn`` as a user that permission bits apply to.

    root reads a chmod-000 file anyway, so under root (as in CI) ``fn`` runs in a
    forked child that drops to ``nobody``; its result comes back as JSON. ``fn``
    is run once first in this process so every module it needs is imported.
    """
    if os.geteuid() != 0:
        return fn()
    fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(65534)
            os.setuid(65534)
            payload = orjson.dumps({"ok": fn()})
        except BaseException:
            payload = orjson.dumps({"error": traceback.format_exc()})
        os.write(write, payload)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    result = orjson.loads(data)
    assert "error" not in result, result.get("error")
    return result["ok"]


def test_unreadable_files_are_reported_and_the_rest_read(shared_tmp: Path) -> None:
    root = shared_tmp / "ws"
    agent = root / "agents" / "a1"
    write_lines(agent / "conversations" / "ok.jsonl", turn("t1"))
    write_lines(agent / "conversations" / "locked.jsonl", turn("t2"))
    (agent / "skills").mkdir()
    (agent / "self").mkdir()
    (agent / "skills" / "mine.md").write_text(GOOD_SKILL)
    (agent / "skills" / "locked.md").write_text(GOOD_SKILL)
    (agent / "self" / "profile.md").write_text("`bash`")
    for folder in (root, root / "agents", agent, agent / "conversations", agent / "skills", agent / "self"):
        folder.chmod(0o755)
    for path in (agent / "conversations" / "ok.jsonl", agent / "skills" / "mine.md"):
        path.chmod(0o644)
    for path in (agent / "conversations" / "locked.jsonl", agent / "skills" / "locked.md", agent / "self" / "profile.md"):
        path.chmod(0o000)

    def run() -> dict:
        code, out, err = cli("status", "--workspace", str(root), "--json", "--now", "2026-11-30T09:00:00Z")
        return {"code": code, "doc": orjson.loads(out) if code == 0 else err}

    result = unprivileged(run)
    assert result["code"] == 0, result["doc"]
    doc = only_agent(result["doc"])
    if os.geteuid() == 0 and [t["turn"] for t in doc["turns"]] == ["t2", "t1"]:
        pytest.fail("the child did not drop privileges")
    assert [t["turn"] for t in doc["turns"]] == ["t1"]
    assert [s["slug"] for s in doc["skills"]] == ["mine"]
    problems = "\n".join(doc["problems"])
    assert "locked.jsonl: cannot be read" in problems
    assert "locked.md" in problems and "profile.md" in problems


def test_an_unlistable_folder_is_reported(shared_tmp: Path) -> None:
    root = shared_tmp / "ws"
    agent = root / "agents" / "a1"
    write_lines(agent / "conversations" / "ok.jsonl", turn("t1"))
    (agent / "skills").mkdir()
    for folder in (root, root / "agents", agent):
        folder.chmod(0o755)
    (agent / "conversations").chmod(0o000)
    (agent / "skills").chmod(0o000)

    def run() -> dict:
        code, out, err = cli("status", "--workspace", str(root), "--json")
        return {"code": code, "doc": orjson.loads(out) if code == 0 else err}

    result = unprivileged(run)
    assert result["code"] == 0, result["doc"]
    problems = "\n".join(only_agent(result["doc"])["problems"])
    assert "conversations: cannot be listed" in problems and "skills: cannot be listed" in problems


def test_a_fifo_in_place_of_a_note_or_skill_never_hangs(world) -> None:
    """Opening a FIFO for reading blocks until a writer comes; it is reported instead."""
    root, _ = world
    agent = root / "agents" / "a1"
    os.mkfifo(agent / "self" / "profile.md")
    os.mkfifo(agent / "skills" / "pipe.md")
    paths = AgentPaths(agent)
    results: list[object] = []

    def run() -> None:
        try:
            SkillStore(paths, Settings()).get("pipe")
        except Exception as exc:  # the refusal is what is checked
            results.append(str(exc))
        results.append("\n".join(only_agent(status_json(root))["problems"]))

    worker = threading.Thread(target=run, daemon=True)  # a regression hangs the thread, not the suite
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "reading a FIFO blocked"
    refusal, problems = results
    assert "not a regular file" in refusal
    assert "profile.md cannot be read (not a regular file)" in problems


def test_an_unreadable_events_file_leaves_the_dry_run_working(shared_tmp: Path) -> None:
    """``events.jsonl`` at mode 000: the bundle is built without its system events (was: the dry run failed),
    and status says why."""
    root = shared_tmp / "ws"
    agent = root / "agents" / "a1"
    write_lines(agent / "conversations" / "ok.jsonl", turn("t1", user="please deploy"))
    write_lines(agent / "events.jsonl", [{"ts": "2026-11-20T10:00:00Z", "type": "skill_created", "skill": "s"}])
    for folder in (root, root / "agents", agent, agent / "conversations"):
        folder.chmod(0o777)
    (agent / "conversations" / "ok.jsonl").chmod(0o644)
    (agent / "events.jsonl").chmod(0o000)

    def run() -> dict:
        code, out, err = cli("reflect", "a1", "--dry-run", "--workspace", str(root), "--now", "2026-11-30T09:00:00Z")
        return {"code": code, "out": out, "err": err, "status": status_json(root)}

    result = unprivileged(run)
    assert result["code"] == 0, result["err"]
    assert "please deploy" in result["out"]
    assert (
        f"{agent / 'events.jsonl'}: cannot be read and appended to (permission denied); not read or written"
        in only_agent(result["status"])["problems"]
    )
