"""The user's skills come in with their sessions: indexed per turn, invoked, rated; export then import is the same skill."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from orkas_tui.cli import main
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.skills import SkillStore
from tests.conftest import NOW
from tests.importers.transcripts import cc_call, cc_result, cc_text, cc_user, cx_call, cx_exec, cx_output, cx_user, write_lines

PROJECT = "/home/me/shop"
BEFORE = datetime(2026, 2, 1, tzinfo=UTC).timestamp()  # before the sessions of ``transcripts.ts`` (2026-03-01)


def present_before_the_sessions(*folders: Path) -> None:
    """The skill files' mtimes set to before the sessions: they were offered to them."""
    for folder in folders:
        for path in folder.glob("*/SKILL.md"):
            os.utime(path, (BEFORE, BEFORE))


def skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}"


def claude_home(home: Path, project: Path) -> None:
    """A user skill, a project skill (in the session's cwd), and two sessions: one in the project, one elsewhere."""
    (home / ".claude" / "skills" / "commit").mkdir(parents=True)
    (home / ".claude" / "skills" / "commit" / "SKILL.md").write_text(
        skill_md("commit", "Commit with a clear message", "Run the tests first.\n")
    )
    (project / ".claude" / "skills" / "deploy").mkdir(parents=True)
    (project / ".claude" / "skills" / "deploy" / "SKILL.md").write_text(skill_md("deploy", "Deploy the shop", "Dry-run first.\n"))
    present_before_the_sessions(home / ".claude" / "skills", project / ".claude" / "skills")
    here = {"cwd": str(project)}
    write_lines(
        home / ".claude" / "projects" / "-home-me-shop" / "s1.jsonl",
        [
            cc_user(1, "commit this", **here),
            cc_call(2, "k1", "Skill", {"skill": "commit"}, **here),
            cc_result(3, "k1", "Launching skill: commit", **here),
            cc_text(4, "Committed.", **here),
            cc_user(10, "that's wrong, the message should be shorter", **here),
            cc_text(11, "Amended.", **here),
            cc_user(20, "deploy it", **here),
            cc_call(21, "r1", "Read", {"file_path": f"{project}/.claude/skills/deploy/SKILL.md"}, **here),
            cc_result(22, "r1", "1→---", **here),
            cc_text(
                23, 'API Error: 401 {"type":"error","error":{"type":"authentication_error"}}', isApiErrorMessage=True, **here
            ),
        ],
    )
    write_lines(
        home / ".claude" / "projects" / "-home-me-other" / "s2.jsonl",
        [cc_user(30, "hello", cwd="/home/me/other"), cc_text(31, "Hi.", cwd="/home/me/other")],
    )


def status(root: Path, agent: str, capsys) -> dict:
    capsys.readouterr()
    assert main(["status", "--workspace", str(root), "--agent", agent, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (entry,) = doc["agents"] if isinstance(doc, dict) and "agents" in doc else doc
    return entry


def turn_events(root: Path, agent: str) -> list[dict]:
    return [
        json.loads(x)
        for p in sorted((root / "agents" / agent / "conversations").glob("*.jsonl"))
        for x in p.read_text().splitlines()
    ]


def test_user_and_project_skills_are_imported_indexed_and_rated(tmp_path, capsys):
    home, root = Path.home(), tmp_path / "ws"
    claude_home(home, tmp_path / "shop")
    assert main(["import", "claude-code", "--workspace", str(root), "--settle", "0"]) == 0
    assert "skills: 2 imported, 0 updated, 0 unchanged" in capsys.readouterr().out
    starts = {(e["turn"], tuple(e["skills_indexed"])) for e in turn_events(root, "claude-code") if e["type"] == "turn_start"}
    assert starts == {
        ("t1", ("commit", "deploy")),
        ("t2", ("commit", "deploy")),
        ("t3", ("commit", "deploy")),
        ("t1", ("commit",)),
    }
    rates = {s["slug"]: s for s in status(root, "claude-code", capsys)["skills"]}
    # commit: offered in 4 turns, used in t1, which the next prompt corrected (a post-use edit)
    assert (rates["commit"]["impressions"], rates["commit"]["invocations"], rates["commit"]["edit_rate"]) == (4, 1, 1.0)
    # deploy: offered in the project's 3 turns, read in t3, which ended in a real error (authentication)
    assert (rates["deploy"]["impressions"], rates["deploy"]["invocation_rate"], rates["deploy"]["ineffective_rate"]) == (
        3,
        0.3333,
        1.0,
    )
    # reading a skill sets lastUsedAt: to the time of its latest read in the transcript
    assert (rates["commit"]["last_used_at"], rates["deploy"]["last_used_at"]) == ("2026-03-01T10:00:03Z", "2026-03-01T10:00:22Z")


def test_no_skills_imports_and_indexes_none(tmp_path, capsys):
    claude_home(Path.home(), tmp_path / "shop")
    assert main(["import", "claude-code", "--workspace", str(tmp_path / "ws"), "--settle", "0", "--no-skills"]) == 0
    assert "skills:" not in capsys.readouterr().out
    assert all(e["skills_indexed"] == [] for e in turn_events(tmp_path / "ws", "claude-code") if e["type"] == "turn_start")
    assert not (tmp_path / "ws" / "agents" / "claude-code" / "skills").exists()


def test_export_then_import_is_the_same_skill_and_its_rates_carry_on(tmp_path, capsys):
    root, home = tmp_path / "ws", Path.home()
    (root / "agents" / "claude-code").mkdir(parents=True)
    paths = Workspace(root).agent("claude-code")
    store = SkillStore(paths, Workspace(root).settings)
    store.create("Release notes", "Write release notes", "Group by area.\n", NOW)
    store.create("db_migrate", "Migrate the database", "Back up first.\n", NOW)
    before = {p.name: p.read_bytes() for p in paths.skills.iterdir()}
    assert main(["export", "claude-code", "claude-code", str(home / ".claude" / "skills"), "--workspace", str(root)]) == 0
    present_before_the_sessions(home / ".claude" / "skills")  # exported before the session below
    write_lines(
        home / ".claude" / "projects" / "p" / "s.jsonl",
        [
            cc_user(1, "write the notes"),
            cc_call(2, "k1", "Skill", {"skill": "release-notes"}),
            cc_result(3, "k1", "ok"),
            cc_text(4, "Done."),
        ],
    )
    capsys.readouterr()
    for _ in range(2):
        assert main(["import", "claude-code", "--workspace", str(root), "--settle", "0", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["skills"]["unchanged"] == ["db_migrate", "release-notes"]
    after = {p.name: p.read_bytes() for p in paths.skills.iterdir()}
    assert sorted(after) == sorted(before) and after["db_migrate.md"] == before["db_migrate.md"]  # no copy, nothing rewritten
    assert after["release-notes.md"] == before["release-notes.md"].replace(
        b"lastUsedAt: null", b'lastUsedAt: "2026-03-01T10:00:03Z"'
    )
    rates = {s["slug"]: s for s in status(root, "claude-code", capsys)["skills"]}
    assert (rates["release-notes"]["impressions"], rates["release-notes"]["invocations"]) == (1, 1)
    capsys.readouterr()
    assert (
        main(["export", "claude-code", "claude-code", str(home / ".claude" / "skills"), "--workspace", str(root), "--json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["written"] == []


def test_import_then_export_leaves_the_users_skill_file_alone(tmp_path, capsys):
    root, home = tmp_path / "ws", Path.home()
    claude_home(home, tmp_path / "shop")
    source = home / ".claude" / "skills" / "commit" / "SKILL.md"
    original = source.read_bytes()
    assert main(["import", "claude-code", "--workspace", str(root), "--settle", "0"]) == 0
    capsys.readouterr()
    assert (
        main(["export", "claude-code", "claude-code", str(home / ".claude" / "skills"), "--workspace", str(root), "--json"]) == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert str(source) in doc["unchanged"] and doc["conflicts"] == [] and source.read_bytes() == original


def test_a_changed_source_updates_the_skill_unless_it_changed_here_too(tmp_path, capsys):
    root, home = tmp_path / "ws", Path.home()
    claude_home(home, tmp_path / "shop")
    args = ["import", "claude-code", "--workspace", str(root), "--settle", "0", "--json"]
    assert main(args) == 0
    source = home / ".claude" / "skills" / "commit" / "SKILL.md"
    source.write_text(skill_md("commit", "Commit with a clear message", "Run the tests first. Sign it.\n"))
    capsys.readouterr()
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["skills"]["updated"] == ["commit"]
    store = SkillStore(Workspace(root).agent("claude-code"), Workspace(root).settings)
    assert store.get("commit").body == "Run the tests first. Sign it.\n"
    store.patch("commit", "Sign it.", "Sign it with -S.", NOW)
    source.write_text(skill_md("commit", "Commit", "Something else.\n"))
    assert main(args) == 0
    (conflict,) = json.loads(capsys.readouterr().out)["skills"]["conflicts"]
    assert conflict.startswith(str(source)) and "left as is" in conflict
    assert "Sign it with -S." in store.get("commit").body


def test_a_broken_skill_file_is_reported_and_the_rest_imports(tmp_path, capsys):
    home = Path.home()
    claude_home(home, tmp_path / "shop")
    (home / ".claude" / "skills" / "broken").mkdir()
    (home / ".claude" / "skills" / "broken" / "SKILL.md").write_text("---\nname: [unclosed\n---\nbody\n")
    assert main(["import", "claude-code", "--workspace", str(tmp_path / "ws"), "--settle", "0", "--json"]) == 0
    skills = json.loads(capsys.readouterr().out)["skills"]
    assert skills["created"] == ["commit", "deploy"] and skills["problems"] == [
        f"{home / '.claude' / 'skills' / 'broken' / 'SKILL.md'}: front matter is not valid YAML; not imported"
    ]


def test_codex_skills_come_from_the_codex_home(tmp_path, capsys):
    home = Path.home()
    for folder in ("build-fix", ".system/plan"):
        (home / ".codex" / "skills" / folder).mkdir(parents=True)
        (home / ".codex" / "skills" / folder / "SKILL.md").write_text(skill_md(folder.split("/")[-1], "d", "Body.\n"))
    present_before_the_sessions(home / ".codex" / "skills", home / ".codex" / "skills" / ".system")
    write_lines(
        home / ".codex" / "sessions" / "2026" / "03" / "01" / "rollout-2026-03-01T10-00-00-abc.jsonl",
        [
            cx_user(1, "fix the build"),
            cx_call(2, "c1", "shell", {"command": ["bash", "-lc", "cat ~/.codex/skills/build-fix/SKILL.md"]}),
            cx_output(3, "c1", cx_exec("---", 0)),
        ],
    )
    assert main(["import", "codex", "--workspace", str(tmp_path / "ws"), "--settle", "0"]) == 0
    (start,) = [e for e in turn_events(tmp_path / "ws", "codex") if e["type"] == "turn_start"]
    assert start["skills_indexed"] == ["build-fix", "plan"]
    assert any(
        e == {"ts": "2026-03-01T10:00:03Z", "type": "skill_read", "skill": "build-fix"}
        for e in turn_events(tmp_path / "ws", "codex")
    )
