"""FIFOs, sockets, devices, link loops and links to folders: reported in ``problems``, never opened.

Opening a FIFO for reading blocks until a writer comes, so a regression here hangs
the command: each command runs in a child process with a timeout.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.timefmt import UTC
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.proposals import create_proposal
from tests.core.helpers import turn, write_lines
from tests.trust.conftest import NOW
from tests.trust.test_bad_files import GOOD_SKILL

REPO = Path(__file__).resolve().parents[2]
WHEN = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
LIMIT = 60  # seconds: a hang, not a slow machine


def run(*args: str) -> subprocess.CompletedProcess:
    """``orkas-tui ARGS`` in a child; a hang fails the test instead of stopping the suite."""
    try:
        return subprocess.run([sys.executable, "-m", "orkas_tui", *args], cwd=REPO, capture_output=True, text=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"orkas-tui {' '.join(args)} hung on a special file")


@pytest.fixture
def agent(tmp_path: Path) -> AgentPaths:
    root = tmp_path / "ws"
    agent = root / "agents" / "a1"
    write_lines(agent / "conversations" / "ok.jsonl", turn("t1"))
    (agent / "skills").mkdir()
    (agent / "self").mkdir()
    (agent / "skills" / "mine.md").write_text(GOOD_SKILL)
    paths = AgentPaths(agent)
    create_proposal(
        paths,
        Settings(),
        "one op",
        [{"op": "create_skill", "name": "Fresh", "description": "d", "body": "Always fresh.\n"}],
        WHEN,
        {},
    )
    return paths


def test_special_entries_are_listed_as_problems_not_dropped(agent: AgentPaths) -> None:
    skills, conversations = agent.skills, agent.conversations
    os.mkfifo(skills / "pipe.md")
    os.mknod(skills / "sock.md", stat.S_IFSOCK | 0o600)
    (skills / "loop.md").symlink_to(skills / "loop.md")
    (skills / "folder.md").symlink_to(agent.self_dir, target_is_directory=True)
    os.mkfifo(conversations / "pipe.jsonl")
    os.mkfifo(agent.self_dir / "strategies.md")
    result = run("status", "--workspace", str(agent.workspace_root), "--json", "--now", NOW)
    assert result.returncode == 0, result.stderr
    (doc,) = json.loads(result.stdout)["agents"]
    assert [s["slug"] for s in doc["skills"]] == ["mine"]
    assert [t["turn"] for t in doc["turns"]] == ["t1"]
    problems = "\n".join(doc["problems"])
    for line in (
        f"{skills / 'pipe.md'}: is a FIFO, not a regular file",
        f"{skills / 'sock.md'}: is a socket",
        f"{skills / 'loop.md'}: is a link loop",
        f"{skills / 'folder.md'}: is a folder, not a regular file",
        f"{conversations / 'pipe.jsonl'}: is a FIFO",
        f"{agent.self_dir / 'strategies.md'}: is a FIFO",
    ):
        assert line in problems
    result = run("prompt", "--workspace", str(agent.workspace_root), "a1")
    assert result.returncode == 0 and "Deploy" in result.stdout


def test_a_fifo_events_file_never_hangs_a_dry_run_or_an_approve(agent: AgentPaths) -> None:
    os.mkfifo(agent.events)
    root = str(agent.workspace_root)
    result = run("reflect", "a1", "--dry-run", "--workspace", root, "--now", NOW)
    assert result.returncode == 0, result.stderr
    assert "please do it" in result.stdout  # the conversation is still in the bundle
    result = run("proposals", "approve", "a1.p1", "--workspace", root, "--now", NOW)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{agent.events}: is a FIFO, not a regular file" in result.stderr
    assert not (agent.skills / "fresh.md").exists()
    result = run("status", "--workspace", root, "--json", "--now", NOW)  # the apply lock was not left held
    assert result.returncode == 0 and "events.jsonl: is a FIFO" in result.stdout


def test_a_fifo_orkas_toml_is_one_line_not_a_hang(agent: AgentPaths) -> None:
    os.mkfifo(agent.workspace_root / "orkas.toml")
    result = run("status", "--workspace", str(agent.workspace_root))
    assert result.returncode == 2
    assert result.stderr.strip() == f"orkas-tui: {agent.workspace_root / 'orkas.toml'}: cannot read (not a regular file)"


def test_a_fifo_state_or_cache_never_hangs_status(agent: AgentPaths) -> None:
    agent.private.mkdir(exist_ok=True)
    for name in ("state.json", "scan-cache.json", "status-cache.bin"):
        os.mkfifo(agent.private / name)
    result = run("status", "--workspace", str(agent.workspace_root), "--json", "--now", NOW)
    assert result.returncode == 0, result.stderr


def test_a_fifo_events_file_refuses_a_persons_edit_before_anything_is_written(agent: AgentPaths) -> None:
    """The app's own saves (not under the apply lock): refused whole, never a skill written and its event
    hanging on the FIFO (opening a FIFO to write blocks until a reader comes)."""
    import threading

    from orkas_tui.core.store.notes import NoteError, SelfNotes
    from orkas_tui.core.store.skills import SkillError, SkillStore

    os.mkfifo(agent.events)
    errors: list[str] = []

    def edit() -> None:
        for change, refusal in (
            (lambda: SkillStore(agent, Settings()).create("New", "d", "body\n", WHEN), SkillError),
            (lambda: SelfNotes(agent, Settings()).write("profile", "x", None, WHEN), NoteError),
        ):
            try:
                change()
            except refusal as exc:
                errors.append(str(exc))

    worker = threading.Thread(target=edit, daemon=True)  # a regression hangs the thread, not the suite
    worker.start()
    worker.join(timeout=LIMIT)
    assert not worker.is_alive(), "a write blocked on the FIFO events.jsonl"
    assert len(errors) == 2 and all("events.jsonl: is a FIFO, not a regular file" in e for e in errors)
    assert not (agent.skills / "new.md").exists() and not (agent.self_dir / "profile.md").exists()


def test_an_agent_folder_of_the_wrong_kind_is_reported(agent: AgentPaths) -> None:
    """``skills`` as a plain file and ``events.jsonl`` as a folder: named, not silently read as empty."""
    import shutil

    shutil.rmtree(agent.skills)
    agent.skills.write_text("not a folder")
    agent.events.mkdir()
    result = run("status", "--workspace", str(agent.workspace_root), "--json", "--now", NOW)
    assert result.returncode == 0, result.stderr
    (doc,) = json.loads(result.stdout)["agents"]
    assert f"{agent.skills}: is a file, not a folder; not read or written" in doc["problems"]
    assert f"{agent.events}: is a folder, not a regular file; not read or written" in doc["problems"]


def test_a_fifo_proposal_or_history_entry_never_hangs_a_listing(agent: AgentPaths) -> None:
    root = str(agent.workspace_root)
    (agent.private / "history").mkdir(parents=True, exist_ok=True)
    os.mkfifo(agent.private / "proposals" / "p9.json")
    os.mkfifo(agent.private / "history" / "c9.json")
    result = run("proposals", "list", "--workspace", root, "--json")
    assert result.returncode == 0 and "a1.p1" in result.stdout, result.stderr
    assert run("history", "a1", "--workspace", root).returncode == 0
    for command in (("proposals", "show", "a1.p9"), ("revert", "a1.c9")):
        result = run(*command, "--workspace", root)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr


def test_a_fifo_import_or_export_state_never_hangs(agent: AgentPaths, tmp_path: Path) -> None:
    from tests.importers.test_claude_code import session
    from tests.importers.transcripts import write_lines as write_transcript

    root = str(agent.workspace_root)
    source = write_transcript(tmp_path / "src" / "s.jsonl", session())
    result = run("import", "claude-code", str(source), "--agent", "a1", "--workspace", root)
    assert result.returncode == 0, result.stderr
    (state,) = (agent.private / "imports").glob("*.json")
    state.unlink()
    os.mkfifo(state)
    (agent.private / "exports").mkdir()
    os.mkfifo(agent.private / "exports" / "claude-code.json")
    for command in (
        ("import", "claude-code", str(source), "--agent", "a1"),
        ("export", "claude-code", "a1", str(tmp_path / "dest")),
    ):
        result = run(*command, "--workspace", root)
        assert "Traceback" not in result.stderr and "not a regular file" in result.stdout + result.stderr, result
