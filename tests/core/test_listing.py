"""Listing an agent's files resolves the folder once and only the entries that are links: same answers as resolving each."""

from __future__ import annotations

import os
from pathlib import Path

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths, Area
from orkas_tui.core.store.skills import SkillStore


def one_by_one(paths: AgentPaths, folder: Path, suffix: str) -> list[Path]:
    """The definition: every visible file with the suffix whose resolved path is inside, readable."""
    entries = sorted(folder.iterdir()) if folder.is_dir() else []
    return [
        p
        for p in entries
        if p.suffix == suffix and not p.name.startswith(".") and p.is_file() and paths.contains(p) and os.access(p, os.R_OK)
    ]


def agent(root: Path) -> AgentPaths:
    paths = AgentPaths(root / "ws" / "agents" / "a1")
    for folder in (paths.conversations, paths.skills, paths.self_dir):
        folder.mkdir(parents=True)
    return paths


def test_mixed_entries_match_resolving_each(tmp_path: Path) -> None:
    paths = agent(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.jsonl").write_text("{}\n")
    conv = paths.conversations
    (conv / "b.jsonl").write_text("{}\n")
    (conv / "a.jsonl").write_text("{}\n")
    (conv / ".hidden.jsonl").write_text("{}\n")
    (conv / "notes.txt").write_text("")
    (conv / "dir.jsonl").mkdir()
    (conv / "in.jsonl").symlink_to(conv / "a.jsonl")
    (conv / "out.jsonl").symlink_to(outside / "x.jsonl")
    (conv / "dangling.jsonl").symlink_to(conv / "gone.jsonl")
    (conv / "loop.jsonl").symlink_to(conv / "loop.jsonl")
    assert paths.conversation_files() == one_by_one(paths, conv, ".jsonl")
    assert [p.name for p in paths.conversation_files()] == ["a.jsonl", "b.jsonl", "in.jsonl"]
    assert paths.skipped_files() == [  # nothing vanishes: every entry not read is reported, saying why
        f"{conv / 'dangling.jsonl'}: links to nothing; not read",
        f"{conv / 'dir.jsonl'}: is a folder, not a regular file; not read",
        f"{conv / 'loop.jsonl'}: is a link loop; not read",
        f"{conv / 'out.jsonl'}: links outside the workspace; not read",
    ]


def test_a_folder_that_links_out_of_the_workspace_reads_nothing(tmp_path: Path) -> None:
    paths = agent(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "s.md").write_text("---\nname: s\n---\nbody\n")
    paths.skills.rmdir()
    paths.skills.symlink_to(outside)
    assert SkillStore(paths, Settings()).slugs() == []
    assert paths.skipped_files() == [f"{paths.skills}: links outside the workspace; not read or written"]


def test_a_folder_that_links_inside_the_workspace_is_read(tmp_path: Path) -> None:
    paths = agent(tmp_path)
    shared = paths.workspace_root / "shared"
    shared.mkdir()
    (shared / "c.jsonl").write_text("{}\n")
    paths.conversations.rmdir()
    paths.conversations.symlink_to(shared)
    assert [p.name for p in paths.conversation_files()] == ["c.jsonl"]
    assert paths.skipped_files() == []


def test_one_survey_says_what_each_listing_says(tmp_path: Path) -> None:
    paths = agent(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("x")
    (paths.conversations / "a.jsonl").write_text("{}\n")
    (paths.skills / "s.md").write_text("---\nname: s\n---\n")
    (paths.skills / "Bad Slug.md").write_text("")
    (paths.skills / "leak.md").symlink_to(outside / "x.md")
    (paths.self_dir / "profile.md").write_text("me")
    survey = paths.survey()
    assert survey.readable[Area.CONVERSATIONS] == [p.name for p in paths.conversation_files()]
    assert [n[:-3] for n in survey.readable[Area.SKILLS] if n != "Bad Slug.md"] == SkillStore(paths, Settings()).slugs()
    assert survey.readable[Area.SELF] == ["profile.md"]
    assert survey.skipped == paths.skipped_files() == [f"{paths.skills / 'leak.md'}: links outside the workspace; not read"]
