"""Export: SKILL.md per skill, and a notes block that never touches the rest of CLAUDE.md / AGENTS.md."""

from __future__ import annotations

from dataclasses import replace

import frontmatter
import pytest

from orkas_tui.core.store.export import ExportError, export_agent, listing_entry, markers, plan_listing, replace_block
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.skills import Skill, SkillStore
from orkas_tui.core.store.standing import SkillStanding
from tests.conftest import NOW


@pytest.fixture
def taught(workspace, agent):
    store = SkillStore(agent, workspace.settings)
    store.create(
        "Docs deploy", "Deploy the docs site with make publish", "When deploying docs, always run `make publish`.\n", NOW
    )
    store.create("pytest_fast", "", "Never run the full suite first; run `pytest -x tests/unit`.\n", NOW)
    SelfNotes(agent, workspace.settings).write("profile", "I stumble on `make` targets.", None, NOW)
    return agent


def test_skills_have_the_front_matter_agents_read(tmp_path, workspace, taught):
    dest = tmp_path / ".claude" / "skills"
    result = export_agent(taught, workspace.settings, "claude-code", dest)
    assert sorted(p.split("/")[-2] for p in result.written) == ["docs-deploy", "pytest_fast"]
    post = frontmatter.loads((dest / "docs-deploy" / "SKILL.md").read_text())
    assert post.metadata == {"name": "docs-deploy", "description": "Deploy the docs site with make publish"}
    assert "always run `make publish`" in post.content
    assert frontmatter.loads((dest / "pytest_fast" / "SKILL.md").read_text()).metadata == {
        "name": "pytest-fast",
        "description": "pytest_fast",
    }
    memory = (tmp_path / ".claude" / "CLAUDE.md").read_text()
    begin, end = markers("coder")
    assert memory.startswith(begin) and memory.endswith(end + "\n") and "I stumble on `make` targets." in memory


def test_long_multiline_description_is_one_line_of_500(tmp_path, workspace, agent):
    SkillStore(agent, workspace.settings).create("Long", "line one\nline two " + "x" * 600, "Always be brief.\n", NOW)
    export_agent(agent, workspace.settings, "codex", tmp_path / "skills")
    description = frontmatter.loads((tmp_path / "skills" / "long" / "SKILL.md").read_text()).metadata["description"]
    assert len(description) == 500 and description.startswith("line one line two x") and description.endswith("…")


def test_manual_edit_outside_markers_survives_reexport(tmp_path, workspace, taught):
    dest = tmp_path / "proj" / ".codex" / "skills"
    agents_md = dest.parent / "AGENTS.md"
    agents_md.parent.mkdir(parents=True)
    agents_md.write_bytes(b"# House rules\r\nUse tabs.\r\n")
    export_agent(taught, workspace.settings, "codex", dest)
    text = agents_md.read_bytes()
    head, _rest = text.split(markers("coder")[0].encode(), 1)
    assert head == b"# House rules\r\nUse tabs.\r\n\n"
    agents_md.write_bytes(b"PREFIX edit\n" + text + b"\nTRAILING edit \xe2\x9c\x93\n")
    SelfNotes(taught, workspace.settings).write("strategies", "Ask before deleting files.", None, NOW)
    result = export_agent(taught, workspace.settings, "codex", dest)
    after = agents_md.read_bytes()
    assert result.memory_status == "updated"
    assert after.startswith(b"PREFIX edit\n# House rules\r\nUse tabs.\r\n\n") and after.endswith(
        b"\nTRAILING edit \xe2\x9c\x93\n"
    )
    assert b"Ask before deleting files." in after and after.count(markers("coder")[0].encode()) == 1
    again = export_agent(taught, workspace.settings, "codex", dest)
    assert (again.memory_status, again.written, agents_md.read_bytes()) == ("unchanged", [], after)


def test_hand_edited_skill_is_not_overwritten(tmp_path, workspace, taught):
    dest = tmp_path / "skills"
    export_agent(taught, workspace.settings, "claude-code", dest)
    skill_md = dest / "docs-deploy" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "My own note.\n")
    SkillStore(taught, workspace.settings).patch("docs-deploy", "make publish`.", "make publish` then check the URL.", NOW)
    result = export_agent(taught, workspace.settings, "claude-code", dest)
    assert result.conflicts == [str(skill_md.resolve())] and skill_md.read_text().endswith("My own note.\n")
    forced = export_agent(taught, workspace.settings, "claude-code", dest, force=True)
    assert str(skill_md.resolve()) in forced.written and "check the URL" in skill_md.read_text()


def test_patched_skill_updates_in_place_and_deleted_one_is_reported(tmp_path, workspace, taught):
    dest = tmp_path / "skills"
    export_agent(taught, workspace.settings, "claude-code", dest)
    store = SkillStore(taught, workspace.settings)
    store.patch("docs-deploy", "make publish`.", "make publish` twice.", NOW)
    store.delete("pytest_fast", NOW)
    result = export_agent(taught, workspace.settings, "claude-code", dest)
    assert result.written == [str((dest / "docs-deploy" / "SKILL.md").resolve())]
    assert result.stale == [str((dest / "pytest_fast" / "SKILL.md").resolve())]
    assert "twice" in (dest / "docs-deploy" / "SKILL.md").read_text()


def test_broken_markers_are_refused():
    begin, end = markers("coder")
    with pytest.raises(ExportError):
        replace_block(f"x\n{begin}\nold\n", "coder", "new")
    with pytest.raises(ExportError):
        replace_block(f"x\n{end}\n", "coder", "new")
    with pytest.raises(ExportError):
        replace_block("x\n", "coder", f"note\n{end}\n")
    assert replace_block(f"a{begin}\nold\n{end}b", "coder", "new") == f"a{begin}\nnew\n{end}b"


def test_sixty_skills_export_within_the_listing_budget_and_name_the_left_out(tmp_path, workspace, agent):
    """60 skills of about 450 characters of description list ~27,000 characters: the agent would drop
    most without a word. The export writes the most recently used that fit, and names the others."""
    store = SkillStore(agent, workspace.settings)
    for i in range(60):
        store.create(
            f"skill {i:02d}", f"Use when step {i} of the release fails. " + "Check the logs first. " * 19, "Body.\n", NOW
        )
    dest = tmp_path / ".claude" / "skills"
    result = export_agent(agent, workspace.settings, "claude-code", dest)
    written = list(dest.glob("*/SKILL.md"))
    listing = sum(
        len(path.parent.name) + len(frontmatter.loads(path.read_text()).metadata["description"]) + 4 for path in written
    )
    assert workspace.settings.listing_chars("claude-code") == 8_000
    assert 0 < listing <= 8_000 and len(written) == len(result.written)
    left = {line.split(":")[0] for line in result.omitted}
    assert left and left.isdisjoint(path.parent.name for path in written)
    assert len(left) + len(written) == 60
    assert all("over the listing budget" in line for line in result.omitted)
    assert any(line.startswith("- left out: ") for line in result.lines())
    assert "omitted" in result.to_json()


def _skill(slug: str, used: str | None) -> Skill:
    return Skill(slug, slug, "d" * 90, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", 0, used, "Body.\n")


def test_with_nothing_measured_the_listing_keeps_the_skills_used_most_recently():
    old, recent, never = _skill("old", "2026-02-01T00:00:00Z"), _skill("recent", "2026-03-01T00:00:00Z"), _skill("never", None)
    kept, omitted = plan_listing([old, never, recent], listing_entry(old) + listing_entry(recent), {})
    assert [s.slug for s in kept] == ["old", "recent"]
    assert [s.slug for s, _why in omitted] == ["never"]


def test_the_listing_ranks_by_benefit_then_invocation_rate_then_recency():
    """A skill measured to help comes first; one with nothing measured yet ranks as one that changed
    nothing: above a skill measured to hurt, however recently that one was used."""
    skills = [_skill(slug, f"2026-03-0{i}T00:00:00Z") for i, slug in enumerate(["helps", "hurts", "used", "idle", "new"], 1)]
    found = {
        "helps": SkillStanding(0.4, 0.1),
        "hurts": SkillStanding(-0.2, 0.9),
        "used": SkillStanding(None, 0.8),
        "idle": SkillStanding(None, 0.0),
    }
    size = listing_entry(skills[0])
    for fits, expected in [
        (1, ["helps"]),
        (2, ["helps", "used"]),
        (3, ["helps", "used", "new"]),
        (4, ["helps", "used", "new", "idle"]),
    ]:
        kept, omitted = plan_listing(skills, size * fits, found)
        assert sorted(s.slug for s in kept) == sorted(expected)
    assert dict((s.slug, why.split("); ")[1]) for s, why in omitted) == {
        "hurts": "benefit -0.20 per turn, invoked in 90% of the turns that showed it"
    }


def test_export_ranks_by_the_benefit_it_measured(tmp_path, capsys):
    """On the demo, "rollback-deployment" helped (a measured change) and "check-the-context-first" was
    used last: with room for one, the dry run and the export after it both keep the one that helped."""
    from orkas_tui.core.read.workspace import Workspace
    from orkas_tui.demo.workspace import write_demo
    from tests.reflection.conftest import run_json

    root = write_demo(tmp_path / "demo")
    paths = Workspace.open(root).agent("ops")
    skills = {s.slug: s for s in SkillStore(paths, Workspace.open(root).settings).load_all()[0]}
    assert skills["check-the-context-first"].last_used_at > skills["rollback-deployment"].last_used_at
    room = max(listing_entry(s) for s in skills.values())
    (root / "orkas.toml").write_text(f"[export]\nlisting_chars_claude_code = {room}\n")
    dest = tmp_path / "skills"
    plan = run_json(capsys, "export", "claude-code", "ops", str(dest), "--dry-run", "--workspace", str(root))
    assert plan["exported"] == ["rollback-deployment"] and len(plan["omitted"]) == 2
    assert any("no measured benefit yet" in line for line in plan["omitted"])
    result = export_agent(paths, Workspace.open(root).settings, "claude-code", dest)  # as after an applied change: no scan
    assert [p.split("/")[-2] for p in result.written] == ["rollback-deployment"]


def test_a_long_description_is_cut_after_a_whole_sentence_or_word():
    from orkas_tui.core.store.export import DESCRIPTION_LIMIT, rendered_description

    sentences = replace(_skill("s", None), description="Use when the release fails. " * 30)
    cut = rendered_description(sentences)
    assert len(cut) <= DESCRIPTION_LIMIT and cut.endswith("fails.") and not cut.endswith("…")
    words = replace(_skill("w", None), description="Use when " + "the release step fails again and again " * 20)
    cut = rendered_description(words)
    assert len(cut) <= DESCRIPTION_LIMIT and cut.endswith("…") and cut[:-1].split(" ")[-1] in words.description.split()


def export_linked_demo(root, dest):
    """The demo's coder linked for export to ``dest`` and exported: (workspace, paths, first slug, its copy)."""
    from orkas_tui.core.read.workspace import Workspace

    (root / "orkas.toml").write_text(f'[agents.coder]\nformat = "claude-code"\nexport_skills = "{dest}"\n')
    workspace = Workspace.open(root)
    paths = workspace.agent("coder")
    export_agent(paths, workspace.settings, "claude-code", dest)
    slug = SkillStore(paths, workspace.settings).slugs()[0]
    return workspace, paths, slug, dest / slug / "SKILL.md"


def edit_by_hand(copy, description: str = "") -> None:
    """Someone adds a line to an exported copy (and puts ``description`` before its description)."""
    text = copy.read_text("utf-8").replace('description: "', f'description: "{description}', 1)
    copy.write_text(text + "\nA line of my own.\n", "utf-8")


def _linked_demo(tmp_path):
    from orkas_tui.demo.workspace import write_demo

    workspace, paths, slug, edited = export_linked_demo(write_demo(tmp_path / "demo"), tmp_path / "skills")
    edit_by_hand(edited, "Mine: ")
    return workspace, paths, slug, edited


def test_a_hand_edit_where_exported_can_be_adopted_into_the_skill(tmp_path):
    from orkas_tui.core.store.export import hand_edit
    from orkas_tui.core.store.history import list_changes
    from orkas_tui.core.store.user_edits import adopt_hand_edit

    workspace, paths, slug, edited = _linked_demo(tmp_path)
    found = hand_edit(paths, workspace.settings, slug)
    assert found is not None and found.path == edited and "A line of my own." in found.theirs and found.ours != found.theirs
    skill, change = adopt_hand_edit(paths, workspace.settings, slug, NOW)
    assert "A line of my own." in skill.body and skill.description.startswith("Mine: ")
    assert change.action == "edit_skill" and list_changes(paths)[-1].id == change.id
    assert hand_edit(paths, workspace.settings, slug) is None  # the copy and the skill say the same again
    assert "A line of my own." in edited.read_text("utf-8")


def test_a_hand_edit_where_exported_can_be_overwritten_and_only_that_one(tmp_path):
    from orkas_tui.core.store.export import hand_edit, overwrite_hand_edit

    workspace, paths, slug, edited = _linked_demo(tmp_path)
    other = SkillStore(paths, workspace.settings).slugs()[1]
    other_file = edited.parent.parent / other / "SKILL.md"
    other_file.write_text(other_file.read_text("utf-8") + "\nkept\n", "utf-8")
    before = SkillStore(paths, workspace.settings).get(slug).body
    result = overwrite_hand_edit(paths, workspace.settings, slug, NOW)
    assert "A line of my own." not in edited.read_text("utf-8") and str(edited) in result.written
    assert hand_edit(paths, workspace.settings, slug) is None and SkillStore(paths, workspace.settings).get(slug).body == before
    assert other_file.read_text("utf-8").endswith("\nkept\n") and hand_edit(paths, workspace.settings, other) is not None
