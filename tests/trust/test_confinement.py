"""No read or write escapes the workspace through a linked folder, a linked events.jsonl or a ``..`` target.

Each case links one of an agent's own folders (or the whole agent, or events.jsonl)
to a folder outside the workspace, then runs what would write there: ``status``
(its caches), ``approve``, ``revert`` and ``reflect --dry-run``. The outside folder
must stay exactly as it was, and the link must be reported in ``problems``.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import orjson
import pytest

from orkas_tui.core.disk.confine import OutsideWorkspace, read_versioned
from orkas_tui.core.disk.write import append_jsonl, atomic_write, file_lock, remove_file
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import UTC
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.store.proposals import create_proposal
from orkas_tui.core.store.skills import SkillStore
from tests.core.helpers import turn, write_lines
from tests.trust.conftest import NOW, cli, only_agent, status_json
from tests.trust.test_bad_files import GOOD_SKILL

WHEN = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
OPS = [
    {"op": "create_skill", "name": "Fresh", "description": "d", "body": "Always fresh.\n"},
    {"op": "patch_skill", "skill": "mine", "find": "Always", "replace": "Never"},
    {"op": "update_self", "note": "profile", "content": "I stumble on `bash`."},
]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(folder.rglob("*"))}


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, AgentPaths, Path]:
    """A workspace with one agent (a conversation, a skill, a note, a pending proposal) and an outside folder."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    outside.mkdir()
    agent = root / "agents" / "a1"
    write_lines(agent / "conversations" / "c.jsonl", turn("t1"))
    (agent / "skills").mkdir()
    (agent / "skills" / "mine.md").write_text(GOOD_SKILL)
    (agent / "self").mkdir()
    (agent / "self" / "profile.md").write_text("me\n")
    paths = AgentPaths(agent)
    create_proposal(paths, Settings(), "three ops", OPS, WHEN, {})
    code, _, err = cli("proposals", "approve", "a1.p1", "--op", "1", "--workspace", str(root), "--now", NOW)
    assert code == 0, err  # change a1.c1, for revert to try; operations 0 and 2 stay pending
    return root, paths, outside


def move_out(folder: Path, outside: Path) -> Path:
    """Move ``folder`` to ``outside`` and leave a link to it in its place (the attack)."""
    target = outside / folder.name
    shutil.move(str(folder), str(target))
    folder.symlink_to(target, target_is_directory=True)
    return target


@pytest.mark.parametrize("which", ["skills", "self", ".orkas", "agent"])
def test_a_linked_folder_is_reported_and_never_written_through(world, which: str) -> None:
    root, paths, outside = world
    folder = paths.root if which == "agent" else paths.root / which
    move_out(folder, outside)
    before = snapshot(outside)

    agent = only_agent(status_json(root))
    assert f"{folder}: links outside the workspace" in "\n".join(agent["problems"])
    status_json(root)  # a second, warm run: still nothing cached through the link
    for command in (("proposals", "approve", "a1.p1"), ("proposals", "reject", "a1.p1"), ("revert", "a1.c1")):
        code, _, err = cli(*command, "--workspace", str(root), "--now", NOW)
        assert code == 2 and "links outside the workspace" in err and "Traceback" not in err, (command, err)
    code, _, err = cli("reflect", "a1", "--dry-run", "--workspace", str(root), "--now", NOW)
    assert "Traceback" not in err

    assert snapshot(outside) == before


def test_a_linked_folder_inside_the_workspace_is_used(world) -> None:
    """The rule is where a path really is: a folder linked to another place in the workspace is fine."""
    root, paths, _ = world
    shared = root / "shared-skills"
    shutil.move(str(paths.skills), str(shared))
    paths.skills.symlink_to(shared, target_is_directory=True)
    assert not only_agent(status_json(root))["problems"]
    code, _, err = cli("proposals", "approve", "a1.p1", "--workspace", str(root), "--now", NOW)
    assert code == 0, err
    assert (shared / "fresh.md").is_file()


def test_events_linked_outside_are_never_read_or_appended(world) -> None:
    root, paths, outside = world
    secret = outside / "events.jsonl"
    secret.write_bytes(orjson.dumps({"ts": "2026-11-20T10:00:00Z", "type": "note", "text": "OUTSIDE-SECRET"}) + b"\n")
    paths.events.unlink()
    paths.events.symlink_to(secret)
    before = snapshot(outside)

    problems = "\n".join(only_agent(status_json(root))["problems"])
    assert f"{paths.events}: links outside the workspace" in problems
    code, out, err = cli("reflect", "a1", "--dry-run", "--workspace", str(root), "--now", NOW)
    assert code == 0, err
    assert "OUTSIDE-SECRET" not in out
    code, _, err = cli("proposals", "approve", "a1.p1", "--workspace", str(root), "--now", NOW)
    assert code == 2 and "events.jsonl: links outside the workspace" in err
    assert not (paths.skills / "fresh.md").exists()  # refused before anything was touched
    assert snapshot(outside) == before


def test_a_history_target_that_climbs_out_is_refused(world) -> None:
    """A tampered ``.orkas/history`` entry naming ``../../../../outside/x``: revert writes nothing outside."""
    root, paths, outside = world
    code, _, err = cli("proposals", "approve", "a1.p1", "--workspace", str(root), "--now", NOW)
    assert code == 0, err
    history = paths.private / "history"
    climbing = "../" * (len(paths.self_dir.relative_to(outside.parent).parts)) + "outside/x"
    for entry in history.glob("c*.json"):
        change = orjson.loads(entry.read_bytes())
        change.update(kind="note", target=climbing, before="PLANTED", after=None)
        entry.write_bytes(orjson.dumps(change))
    for change_id in ("a1.c1", "a1.c2", "a1.c3"):
        code, _, err = cli("revert", change_id, "--workspace", str(root), "--now", NOW)
        assert code == 2 and "Traceback" not in err
    assert snapshot(outside) == {}


def test_the_primitives_refuse_every_path_that_resolves_outside(tmp_path: Path) -> None:
    """core/disk itself: whatever a caller passes, nothing under a workspace reaches outside it."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "agents" / "a1").mkdir(parents=True)
    outside.mkdir()
    (outside / "f.md").write_text("outside")
    Workspace(root)
    (root / "agents" / "a1" / "out").symlink_to(outside, target_is_directory=True)
    (root / "agents" / "a1" / "f.md").symlink_to(outside / "f.md")
    climb = root / "agents" / "a1" / ".." / ".." / ".." / "outside" / "g.md"
    through = root / "agents" / "a1" / "out" / "g.md"
    for path in (climb, through):
        with pytest.raises(OutsideWorkspace):
            atomic_write(path, "x")
        with pytest.raises(OutsideWorkspace):
            append_jsonl(path, {"type": "x"})
        with pytest.raises(OutsideWorkspace), file_lock(path):
            pass
    with pytest.raises(OutsideWorkspace):
        remove_file(through.with_name("f.md"))
    with pytest.raises(OutsideWorkspace):
        read_versioned(root / "agents" / "a1" / "f.md")
    with pytest.raises(OutsideWorkspace):
        append_jsonl(root / "agents" / "a1" / "f.md", {"type": "x"})
    assert snapshot(outside) == {"f.md": b"outside"}
    assert not (root / "agents" / "out").exists()


def test_a_skill_store_on_a_linked_agent_reads_and_writes_nothing(world) -> None:
    _root, paths, outside = world
    target = move_out(paths.root, outside)
    before = snapshot(target)
    store = SkillStore(paths, Settings())
    assert store.load_all() == ([], [])
    with pytest.raises(ValueError, match="links outside the workspace"):  # SkillError
        store.create("New", "d", "body\n", WHEN)
    assert snapshot(target) == before


def test_an_import_never_cuts_or_appends_a_file_outside(world) -> None:
    """The importer's crash rollback truncates the conversation it appended to: never through a linked folder."""
    from orkas_tui.importers.run import import_files
    from tests.importers.test_claude_code import session
    from tests.importers.transcripts import write_lines as write_transcript

    root, paths, outside = world
    source = write_transcript(root.parent / "src" / "s.jsonl", session())
    stats = import_files(paths, Settings(), "claude-code", [source], settle=0)
    assert not stats.problems
    (conv,) = [p for p in paths.conversation_files() if p.name != "c.jsonl"]
    target = move_out(paths.conversations, outside)
    with open(target / conv.name, "ab") as handle:
        handle.write(b"outside bytes the import never wrote\n")  # looks like a crashed import's tail
    before = snapshot(outside)
    stats = import_files(paths, Settings(), "claude-code", [source], settle=0)
    assert "links outside the workspace" in "\n".join(stats.problems)
    assert snapshot(outside) == before


def test_the_stores_refuse_a_change_before_writing_anything(world) -> None:
    """A person's edit (the app saves through the stores, not the apply lock) is refused with the store's own
    error, so the app shows it instead of failing; nothing is half done (no skill without its event)."""
    from orkas_tui.core.store.notes import NoteError, SelfNotes
    from orkas_tui.core.store.skills import SkillError

    _root, paths, outside = world
    move_out(paths.self_dir, outside)
    before, events = snapshot(outside), paths.events.read_bytes()
    with pytest.raises(NoteError, match="links outside the workspace"):
        SelfNotes(paths, Settings()).write("profile", "new", None, WHEN, force=True)
    store = SkillStore(paths, Settings())
    for change in (
        lambda: store.create("New", "d", "body\n", WHEN),
        lambda: store.delete("mine", WHEN),
        lambda: store.read("mine", WHEN),
    ):
        with pytest.raises(SkillError, match="links outside the workspace"):
            change()
    assert snapshot(outside) == before
    assert sorted(p.name for p in paths.skills.glob("*.md")) == ["mine.md"]
    assert paths.events.read_bytes() == events


def test_a_reflection_of_a_linked_agent_is_a_failed_outcome_that_writes_nothing(world) -> None:
    """What a cycle or the daemon runs: no model call, no state, reply or lock file through the link, no crash."""
    from orkas_tui.core.reflect.reflection import reflect

    root, paths, outside = world
    move_out(paths.private, outside)
    before = snapshot(outside)
    outcome = reflect(Workspace(root), "a1", WHEN)
    assert outcome.status == "failed" and "links outside the workspace" in outcome.message
    assert snapshot(outside) == before
