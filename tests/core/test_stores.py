"""Skill and self-note stores: exact front matter, slugs, patches, caps, eviction, conflicts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import frontmatter
import orjson
import pytest

from orkas_tui.core.disk.write import ConflictError
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.notes import NoteError, SelfNotes, prompt_block
from orkas_tui.core.store.skills import KEYS, BrokenSkill, SkillError, SkillStore, slugify
from tests.conftest import NOW


@pytest.fixture
def paths(tmp_path: Path) -> AgentPaths:
    root = tmp_path / "agents" / "a1"
    root.mkdir(parents=True)
    return AgentPaths(root)


def events(paths: AgentPaths) -> list[dict]:
    return [orjson.loads(line) for line in paths.events.read_bytes().splitlines()]


def test_create_writes_exactly_the_six_keys(paths: AgentPaths) -> None:
    skill, evicted = SkillStore(paths, Settings()).create(
        "Weekly Report Export", "Compile the weekly report", "## Steps\n1. x\n", NOW
    )
    assert evicted is None and skill.slug == "weekly-report-export"
    post = frontmatter.loads((paths.skills / "weekly-report-export.md").read_text())
    assert tuple(post.metadata) == KEYS
    assert post.metadata["createdAt"] == "2026-11-30T09:00:00Z" and post.metadata["lastUsedAt"] is None
    assert post.metadata["patchCount"] == 0
    assert post.content == "## Steps\n1. x"
    assert events(paths)[-1] | {"ts": None} == {
        "ts": None,
        "type": "skill_created",
        "source": "orkas-tui",
        "skill": "weekly-report-export",
        "by": "user",
    }


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("../../etc/passwd", "etc-passwd"),
        ("/abs/path", "abs-path"),
        ("Ünïcode Nâme!", "unicode-name"),
        ("a" * 100, "a" * 64),
        ("..", None),
        ("官方统计", None),
    ],
)
def test_slugs_never_leave_skills_dir(name: str, slug: str | None) -> None:
    result = slugify(name)
    assert "/" not in result and ".." not in result and 1 <= len(result) <= 64
    if slug:
        assert result == slug
    else:
        assert result.startswith("skill-")


def test_create_refuses_a_duplicate_and_an_oversized_body(paths: AgentPaths) -> None:
    store = SkillStore(paths, Settings(max_skill_body_chars=100))
    store.create("Deploy", "d", "body", NOW)
    with pytest.raises(SkillError, match="already exists"):
        store.create("deploy", "d", "body", NOW)
    with pytest.raises(SkillError, match="over the 100 limit"):
        store.create("Other", "d", "x" * 101, NOW)


def test_read_sets_last_used_at(paths: AgentPaths) -> None:
    store = SkillStore(paths, Settings())
    store.create("Deploy", "d", "body\n", NOW)
    later = NOW + timedelta(hours=1)
    assert store.read("deploy", later).last_used_at == "2026-11-30T10:00:00Z"
    assert store.get("deploy").last_used_at == "2026-11-30T10:00:00Z"


def test_patch_replaces_one_exact_fragment(paths: AgentPaths) -> None:
    store = SkillStore(paths, Settings())
    store.create("Deploy", "d", "use npm\nthen test\n", NOW)
    patched = store.patch("deploy", "npm", "pnpm", NOW + timedelta(minutes=5))
    assert patched.body == "use pnpm\nthen test\n" and patched.patch_count == 1
    assert patched.updated_at == "2026-11-30T09:05:00Z" and patched.created_at == "2026-11-30T09:00:00Z"
    with pytest.raises(SkillError, match="occurs 0 times"):
        store.patch("deploy", "yarn", "x", NOW)
    store.patch("deploy", "then test", "test test", NOW)
    with pytest.raises(SkillError, match="occurs 2 times"):
        store.patch("deploy", "test", "x", NOW)
    with pytest.raises(SkillError, match="empty body"):
        store.patch("deploy", "use pnpm\ntest test\n", "", NOW)
    assert store.get("deploy").patch_count == 2


def test_a_persons_edit_on_disk_is_never_overwritten_silently(paths: AgentPaths) -> None:
    store = SkillStore(paths, Settings())
    skill, _ = store.create("Deploy", "d", "body\n", NOW)
    path = paths.skills / "deploy.md"
    path.write_text(path.read_text().replace("body", "hand edited"))
    with pytest.raises(ConflictError):
        store.edit("deploy", "d2", "mine\n", skill.version, NOW)
    assert "hand edited" in path.read_text()
    with pytest.raises(ConflictError):
        store.patch("deploy", "hand", "x", NOW, expected=skill.version)
    store.edit("deploy", "d2", "mine\n", skill.version, NOW, force=True)
    assert store.get("deploy").body == "mine\n"


def test_delete_with_stale_version_is_refused(paths: AgentPaths) -> None:
    store = SkillStore(paths, Settings())
    skill, _ = store.create("Deploy", "d", "body\n", NOW)
    (paths.skills / "deploy.md").write_text((paths.skills / "deploy.md").read_text() + "more\n")
    with pytest.raises(ConflictError):
        store.delete("deploy", NOW, expected=skill.version)
    store.delete("deploy", NOW)
    assert not (paths.skills / "deploy.md").exists()
    assert events(paths)[-1]["type"] == "skill_deleted"


def test_cap_evicts_never_used_oldest_first_then_least_recently_used(paths: AgentPaths) -> None:
    store = SkillStore(paths, Settings(max_skills=3))
    store.create("old unused", "d", "b", NOW)
    store.create("new unused", "d", "b", NOW + timedelta(hours=1))
    store.create("used", "d", "b", NOW + timedelta(hours=2))
    store.read("used", NOW + timedelta(hours=3))
    _, evicted = store.create("fourth", "d", "b", NOW + timedelta(hours=4))
    assert evicted.slug == "old-unused"
    _, evicted = store.create("fifth", "d", "b", NOW + timedelta(hours=5))
    assert evicted.slug == "new-unused"
    for slug, hour in (("fourth", 6), ("fifth", 7)):
        store.read(slug, NOW + timedelta(hours=hour))
    _, evicted = store.create("sixth", "d", "b", NOW + timedelta(hours=8))
    assert evicted.slug == "used"  # least recently used among used skills
    assert sorted(store.slugs()) == ["fifth", "fourth", "sixth"]
    assert [e["type"] for e in events(paths)].count("skill_evicted") == 3


def test_malformed_skill_files_are_reported_and_skipped(paths: AgentPaths) -> None:
    paths.skills.mkdir(parents=True)
    (paths.skills / "bad-yaml.md").write_text("---\nname: [unclosed\n---\nbody\n")
    (paths.skills / "no-name.md").write_text("---\ndescription: x\n---\nbody\n")
    (paths.skills / "binary.md").write_bytes(b"\xff\xfe\x00")
    (paths.skills / "Bad Slug.md").write_text("---\nname: x\n---\n")
    (paths.skills / "good.md").write_text("---\nname: Good\ndescription: fine\ncreatedAt: 2026-01-01T00:00:00Z\n---\nbody\n")
    skills, problems = SkillStore(paths, Settings()).load_all()
    assert [s.slug for s in skills] == ["good"]
    assert skills[0].created_at == "2026-01-01T00:00:00Z"  # unquoted YAML timestamp read as RFC 3339
    assert len(problems) == 3


def test_the_store_names_each_skill_file_it_cannot_use(paths: AgentPaths) -> None:
    paths.skills.mkdir(parents=True)
    (paths.skills / "bad-yaml.md").write_text("---\nname: [unclosed\n---\nbody\n")
    (paths.skills / "good.md").write_text("---\nname: Good\ndescription: fine\n---\nbody\n")
    store = SkillStore(paths, Settings())
    files = store.read_all()
    assert [s.slug for s in files.skills] == ["good"]
    assert files.broken == [BrokenSkill("bad-yaml", paths.skills / "bad-yaml.md", "bad-yaml.md: front matter is not valid YAML")]
    assert files.problems == store.load_all()[1] == ["bad-yaml.md: front matter is not valid YAML"]
    assert store.open("bad-yaml") == files.broken[0]
    assert store.open("good") == files.skills[0]


def test_notes_cap_refusal_says_by_how_much(paths: AgentPaths) -> None:
    notes = SelfNotes(paths, Settings())
    version = notes.write("profile", "x" * 2000, None, NOW)
    with pytest.raises(NoteError, match="2,153 characters, 153 over its 2,000-character cap"):
        notes.write("profile", "y" * 2153, version, NOW)
    assert notes.read("profile").text == "x" * 2000
    with pytest.raises(NoteError, match="unknown note"):
        notes.write("../evil", "x", None, NOW)


def test_notes_refuse_to_overwrite_an_external_edit(paths: AgentPaths) -> None:
    notes = SelfNotes(paths, Settings())
    version = notes.write("strategies", "first\n", None, NOW)
    paths.note("strategies").write_text("edited by hand\n")
    with pytest.raises(ConflictError):
        notes.write("strategies", "second\n", version, NOW)
    assert notes.read("strategies").text == "edited by hand\n"


def test_prompt_block_holds_notes_and_index(paths: AgentPaths) -> None:
    settings = Settings()
    notes = SelfNotes(paths, settings)
    notes.write("profile", "I stumble with `bash`.\n", None, NOW)
    store = SkillStore(paths, settings)
    store.create("Use pnpm", "Always use pnpm here", "b", NOW)
    block = prompt_block(notes, store.load_all()[0])
    assert "I stumble with `bash`." in block
    assert "Use pnpm: Always use pnpm here" in block


def test_atomic_write_leaves_no_temp_files(paths: AgentPaths) -> None:
    store = SkillStore(paths, Settings())
    for i in range(5):
        store.create(f"s{i}", "d", "b", NOW)
    leftovers = [p.name for p in paths.skills.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
