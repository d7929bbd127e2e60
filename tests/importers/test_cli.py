"""The import and export commands, and --watch: keeps importing, stops cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from orkas_tui.cli import main
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.importers.watch import watch_import
from tests.conftest import NOW
from tests.importers.test_claude_code import session
from tests.importers.test_samples import source_counts
from tests.importers.transcripts import write_lines

REPO = Path(__file__).resolve().parents[2]


def test_import_json_counts_and_second_run_adds_nothing(samples, workspace, capsys):
    """Expected counts come from the sources: every thread's tool_use ids and excused is_error results, but not those
    of Claude Code's compaction helper agent (its summary is no work on the task)."""
    files = sorted((samples / "claude-code").rglob("*.jsonl"))
    threads = [source_counts(p) for p in files if not p.stem.startswith("agent-acompact")]
    args = [
        "import",
        "claude-code",
        str(samples / "claude-code"),
        "--agent",
        "cc",
        "--workspace",
        str(workspace.root),
        "--json",
        "--settle",
        "0",
    ]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["files"], first["tool_calls"], first["transient_errors"]) == (
        len(files),
        len(set().union(*(t["call_ids"] for t in threads))),  # a resumed file's copied calls count once
        sum(t["excused"] for t in threads),
    )
    assert (first["turns"], first["interrupts"]) == (10, 5)  # 1 + 2 typed prompts in the small samples, the big one's prompt
    # and its task notification, one delegated subagent task; one interrupt in short, two in tool_heavy; the resumed
    # pair's two prompts (its first one once, though both files hold it) and its one interrupt; the interrupted
    # session's prompt, the prompt after its interrupt, and that interrupt
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert (second["lines"], second["turns"]) == (0, 0)


def test_import_defaults_to_the_agents_own_folder(tmp_path, workspace, capsys):
    write_lines(tmp_path / "home" / ".claude" / "projects" / "-home-me-proj" / "s1.jsonl", session())
    assert main(["import", "claude-code", "--agent", "mine", "--workspace", str(workspace.root), "--settle", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"1 files, 43 new lines -> agent mine ({workspace.root / 'agents' / 'mine'}): 5 turns, 7 tool calls, "
        "2 real and 4 transient errors, 1 interrupts"
    )
    assert (
        "not read: 3 malformed lines, 1 unknown assistant block/hologram, 1 unknown mystery-record, 1 unknown system/brand_new_subtype"
        in out
    )
    assert "1 inline subagent (sidechain) record" in out


def test_import_of_missing_source_is_one_line_error(workspace, capsys):
    assert main(["import", "codex", "/nonexistent/x.jsonl", "--agent", "cc", "--workspace", str(workspace.root)]) == 2
    assert capsys.readouterr().err.startswith("orkas-tui: no such file or folder")


def test_export_command(workspace, agent, tmp_path, capsys):
    dest = tmp_path / "codex-home" / "skills"
    assert main(["export", "codex", "coder", str(dest), "--workspace", str(workspace.root), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["written"], doc["memory_status"], doc["memory"]) == ([], "created", str(dest.parent / "AGENTS.md"))


def test_export_of_a_linked_agent_needs_no_dest(workspace, agent, tmp_path, capsys):
    """``export codex coder`` goes where ``[agents.coder]`` says, as an approve's export does; an
    agent with no link and no DEST is one line saying what to give."""
    SkillStore(agent, workspace.settings).create("Deploy", "Deploy safely", "Always dry-run first.\n", NOW)
    args = ["export", "codex", "coder", "--workspace", str(workspace.root)]
    assert main(args) == 2
    assert "no DEST: give the skills folder, or link the agent ([agents.coder] export_skills" in capsys.readouterr().err
    dest, memory = tmp_path / "codex-home" / "skills", tmp_path / "notes" / "AGENTS.md"
    (workspace.root / "orkas.toml").write_text(
        f'[agents.coder]\nformat = "codex"\nexport_skills = "{dest}"\nexport_memory = "{memory}"\n'
    )
    assert main(args) == 0
    assert (dest / "deploy" / "SKILL.md").is_file() and memory.is_file()


def test_export_exits_1_when_a_hand_edit_is_kept(workspace, agent, tmp_path, capsys):
    SkillStore(agent, workspace.settings).create("Deploy", "Deploy safely", "Always dry-run first.\n", NOW)
    args = ["export", "claude-code", "coder", str(tmp_path / "skills"), "--workspace", str(workspace.root)]
    assert main(args) == 0
    skill_md = tmp_path / "skills" / "deploy" / "SKILL.md"
    skill_md.write_text("mine\n")
    capsys.readouterr()
    assert main(args) == 1
    assert "was edited since the last export; left as is" in capsys.readouterr().out and skill_md.read_text() == "mine\n"


def test_watch_imports_lines_as_they_arrive(tmp_path, workspace, agent):
    lines = session()
    source = write_lines(tmp_path / "src" / "s.jsonl", lines[:3])
    reports, stop = [], threading.Event()
    thread = threading.Thread(
        target=watch_import,
        args=(agent, workspace.settings, "claude-code", [source.parent], 3600.0, reports.append, stop),
        kwargs={"tick": 0.2},
    )
    thread.start()
    try:
        _wait(lambda: reports, "the first import")
        write_lines(source, lines)
        scan = AgentScan(agent, workspace.settings)
        _wait(lambda: (scan.refresh(), len(list(scan.records())) == 5)[1], "the grown session's turns")
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    assert sum(r.turns for r in reports) == 5


def test_watch_ends_a_quiet_running_turn_on_a_tick(tmp_path, workspace, agent):
    source = write_lines(tmp_path / "src" / "s.jsonl", session()[:12])
    reports, stop = [], threading.Event()
    thread = threading.Thread(
        target=watch_import,
        args=(agent, workspace.settings, "claude-code", [source.parent], 0.5, reports.append, stop),
        kwargs={"tick": 0.1},
    )
    thread.start()
    try:
        _wait(lambda: reports, "the first import")
        assert reports[0].running == [str(source)]
        scan = AgentScan(agent, workspace.settings)
        _wait(lambda: (scan.refresh(), [t.status for t in scan.records()] == ["ok"])[1], "the quiet turn to end")
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()


def test_watch_stops_cleanly_on_ctrl_c(tmp_path, workspace):
    source = write_lines(tmp_path / "src" / "s.jsonl", session())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "orkas_tui",
            "import",
            "claude-code",
            str(source.parent),
            "--agent",
            "w",
            "--workspace",
            str(workspace.root),
            "--watch",
            "--settle",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout.readline().startswith("watching ")
        assert "5 turns" in proc.stdout.readline()
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert proc.returncode == 0 and err == "stopped watching: 5 turns, 7 tool calls imported into agent w\n"


def _wait(condition, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
