"""First run and guards: import creates the workspace, reads ~/.claude/projects whole, and refuses what is not a transcript."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from orkas_tui.cli import main
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.scan import AgentScan
from tests.conftest import NOW
from tests.importers.test_claude_code import session
from tests.importers.test_codex import rollout
from tests.importers.transcripts import write_lines

HOME_PROJECTS = Path(".claude") / "projects"


def fake_history(home: Path, samples: Path) -> list[Path]:
    """A ~/.claude/projects with three projects and the real layout (session file plus its subagents folder)."""
    projects = home / HOME_PROJECTS
    copies = [
        shutil.copytree(samples / "claude-code" / "marot-spotter__8463c716", projects / "-home-me-spotter-fum"),
        shutil.copy(
            samples / "claude-code" / "marot-spotter__short.jsonl",
            (projects / "-home-me-spotter").mkdir(parents=True) or projects / "-home-me-spotter" / "0a1b2c3d.jsonl",
        ),
        shutil.copy(
            samples / "claude-code" / "marot-spotter__tool_heavy.jsonl", projects / "-home-me-spotter" / "4e5f6a7b.jsonl"
        ),
    ]
    write_lines(projects / "-home-me-docs" / "5c6d7e8f.jsonl", session())
    return copies


def test_first_import_creates_the_workspace_and_reads_the_whole_history(tmp_path, samples, monkeypatch, capsys):
    home = Path.home()
    fake_history(home, samples)
    root = tmp_path / "fresh-orkas"
    monkeypatch.setenv("ORKAS_HOME", str(root))
    assert main(["import", "claude-code", "--settle", "0"]) == 0
    captured = capsys.readouterr()
    assert f"created workspace {root}" in captured.err
    assert f"-> agent claude-code ({root / 'agents' / 'claude-code'})" in captured.out
    files = len(list((home / HOME_PROJECTS).rglob("*.jsonl")))
    assert captured.out.startswith(f"{files} files,")
    scan = AgentScan(Workspace(root).agent("claude-code"), Workspace(root).settings)
    scan.refresh()
    assert len({t.conversation for t in scan.records()}) == files - 1  # all but the compaction helper agent
    assert main(["import", "claude-code", "--settle", "0"]) == 0
    assert "created workspace" not in capsys.readouterr().err


def test_a_large_history_shows_a_quiet_line_off_a_terminal_and_a_bar_on_one(tmp_path, monkeypatch, capsys):
    for n in range(12):
        write_lines(tmp_path / "projects" / f"p{n}" / f"s{n}.jsonl", session()[:4])
    args = ["import", "claude-code", str(tmp_path / "projects"), "--workspace", str(tmp_path / "ws"), "--settle", "0"]
    assert main(args) == 0
    assert "importing 12 session files..." in capsys.readouterr().err

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(args) == 0
    bar = terminal.getvalue()
    assert "\r[" + "#" * 30 + "] 12/12 sessions\n" in bar and "] 1/12 sessions" in bar


def test_a_small_import_draws_no_progress(tmp_path, capsys):
    write_lines(tmp_path / "s.jsonl", session())
    assert main(["import", "claude-code", str(tmp_path / "s.jsonl"), "--workspace", str(tmp_path / "ws"), "--settle", "0"]) == 0
    assert "importing" not in capsys.readouterr().err


def _refused(capsys, root: Path, args: list[str]) -> str:
    assert main([*args, "--workspace", str(root)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err
    assert not root.exists()  # no workspace, so no agent either
    return captured.err


def test_a_file_that_is_no_transcript_is_refused(tmp_path, capsys):
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
    err = _refused(capsys, tmp_path / "ws", ["import", "claude-code", str(passwd)])
    assert f"{passwd}: not a Claude Code transcript" in err and "does not look like any transcript" in err


def test_a_codex_rollout_imported_as_claude_code_is_refused_naming_its_kind(tmp_path, samples, capsys):
    rollout_file = next((samples / "codex").glob("*.jsonl"))
    err = _refused(capsys, tmp_path / "ws", ["import", "claude-code", str(rollout_file)])
    assert "not a Claude Code transcript: it looks like a Codex one (orkas-tui import codex ...)" in err


def test_a_claude_session_imported_as_codex_is_refused_naming_its_kind(tmp_path, samples, capsys):
    err = _refused(capsys, tmp_path / "ws", ["import", "codex", str(samples / "claude-code" / "marot-spotter__short.jsonl")])
    assert "not a Codex transcript: it looks like a Claude Code one (orkas-tui import claude-code ...)" in err


def test_a_folder_of_the_other_kind_is_refused(tmp_path, capsys):
    write_lines(tmp_path / "sessions" / "2026" / "rollout-1.jsonl", rollout())
    err = _refused(capsys, tmp_path / "ws", ["import", "claude-code", str(tmp_path / "sessions")])
    assert "looks like a Codex one" in err


def test_other_files_in_a_folder_are_left_out_and_said(tmp_path, capsys):
    write_lines(tmp_path / "mixed" / "s.jsonl", session())
    write_lines(tmp_path / "mixed" / "rollout-1.jsonl", rollout())
    assert (
        main(["import", "claude-code", str(tmp_path / "mixed"), "--workspace", str(tmp_path / "ws"), "--settle", "0", "--json"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["files"] == 1 and doc["problems"] == [
        f"skipped {tmp_path / 'mixed' / 'rollout-1.jsonl'}: not a Claude Code transcript: "
        "it looks like a Codex one (orkas-tui import codex ...)"
    ]


def test_a_source_with_no_sessions_creates_nothing_and_says_where_it_looked(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    err = _refused(capsys, tmp_path / "ws", ["import", "codex", str(tmp_path / "empty")])
    assert f"no Codex sessions in {tmp_path / 'empty'} (looked for *.jsonl files); nothing imported" in err
    err = _refused(capsys, tmp_path / "ws", ["import", "claude-code"])
    assert f"no Claude Code sessions: {Path.home() / HOME_PROJECTS} does not exist" in err


def test_export_writes_only_skill_files_into_the_destination(tmp_path, workspace, agent, capsys):
    SkillStore(agent, workspace.settings).create("Deploy", "Deploy safely", "Always dry-run first.\n", NOW)
    SkillStore(agent, workspace.settings).create("Release notes", "Write release notes", "Group by area.\n", NOW)
    home = tmp_path / "claude-home"
    assert main(["export", "claude-code", "coder", str(home / "skills"), "--workspace", str(workspace.root)]) == 0
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert written == ["CLAUDE.md", "skills/deploy/SKILL.md", "skills/release-notes/SKILL.md"]
