"""Subagent transcripts in both of Claude Code's layouts, on the real sample session and its real Task subagent.

Newer versions write ``<session>/subagents/agent-<id>.jsonl``; older ones wrote ``agent-<id>.jsonl``
beside the session files, the same records (each names its parent in ``sessionId``). In both the
parent's ``Task`` result links the subagent's conversation, and that conversation must exist.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from orkas_tui.importers.run import discover, import_files
from tests.importers.conftest import BIG_SESSION

SUBAGENT = BIG_SESSION.replace(".jsonl", "/subagents/agent-a7be2f0.jsonl")


def layout(samples: Path, root: Path, old: bool) -> Path:
    """``root/projects/-work-spotter/`` with the session and its subagent in the new or the old layout."""
    project = root / "projects" / "-work-spotter"
    project.mkdir(parents=True)
    session = samples / BIG_SESSION
    shutil.copyfile(session, project / session.name)
    target = project / "agent-a7be2f0.jsonl" if old else project / session.stem / "subagents" / "agent-a7be2f0.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(samples / SUBAGENT, target)
    return root / "projects"


def links(agent) -> tuple[set[str], set[str]]:
    """The subagent conversations the parent's results link, and the delegated conversations' parents."""
    linked, parents = set(), set()
    for conv in agent.conversations.glob("*.jsonl"):
        for line in conv.read_bytes().splitlines():
            event = orjson.loads(line)
            if event["type"] == "tool_result" and event.get("subagent"):
                linked.add(event["subagent"])
            if event["type"] == "turn_start" and event.get("delegated"):
                parents.add(event["parent"])
    return linked, parents


@pytest.mark.parametrize("old", [False, True], ids=["subagents-folder", "beside-the-session"])
def test_a_subagent_is_linked_to_its_parent_in_both_layouts(samples, workspace, agent, tmp_path, old):
    projects = layout(samples, tmp_path / "claude", old)
    import_files(agent, workspace.settings, "claude-code", discover("claude-code", [projects]), settle=0)
    names = {path.stem for path in agent.conversations.glob("*.jsonl")}
    linked, parents = links(agent)
    session = Path(BIG_SESSION).stem
    assert linked == {f"claude-{session}-agent-a7be2f0"}
    assert linked <= names  # the link does not dangle
    assert parents == {f"claude-{session}"}


def test_an_older_subagent_file_keeps_its_session_in_its_id(samples, workspace, agent, tmp_path):
    """The same agent id under two projects' sessions: two conversations, each named for its own session."""
    projects = layout(samples, tmp_path / "claude", old=True)
    other = projects / "-work-other"
    other.mkdir()
    lines = (samples / SUBAGENT).read_bytes().splitlines()
    session = Path(BIG_SESSION).stem
    (other / "agent-a7be2f0.jsonl").write_bytes(b"\n".join(lines).replace(session.encode(), b"other-session") + b"\n")
    import_files(agent, workspace.settings, "claude-code", discover("claude-code", [projects]), settle=0)
    names = {path.stem for path in agent.conversations.glob("*.jsonl")}
    assert {f"claude-{session}-agent-a7be2f0", "claude-other-session-agent-a7be2f0"} <= names
