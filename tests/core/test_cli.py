"""The CLI as a user runs it: real subprocesses, exit codes, one-line errors, JSON shape."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orkas_tui.cli import main

NOW = "2026-11-30T09:00:00Z"


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "orkas_tui", *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=60
    )


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def test_demo_is_deterministic_and_seed_dependent(tmp_path: Path) -> None:
    assert main(["demo", str(tmp_path / "a"), "--seed", "3"]) == 0
    assert main(["demo", str(tmp_path / "b"), "--seed", "3"]) == 0
    assert main(["demo", str(tmp_path / "c"), "--seed", "4"]) == 0
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    assert digest(tmp_path / "a") != digest(tmp_path / "c")


def test_demo_has_what_the_issue_asks_for(demo_ws: Path, capsys) -> None:
    assert main(["status", "--workspace", str(demo_ws), "--now", NOW, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    agents = {a["id"]: a for a in doc["agents"]}
    assert len(agents) >= 4
    turns = [t for a in agents.values() for t in a["turns"]]
    assert {"ok", "error", "aborted", "running"} <= {t["status"] for t in turns}
    assert any(t["real_errors"] for t in turns) and any(t["transient_errors"] for t in turns)
    evidence = " ".join(t["evidence"].get("user_correction", "") for t in turns)
    assert any(p in evidence for p in ("不对", "错了", "重新", "应该是"))
    assert any(p in evidence.lower() for p in ("incorrecto", "en vez de", "otra vez", "en realidad"))
    assert any(p in evidence.lower() for p in ("actually", "wrong", "that's not", "try again"))
    skills = [s for a in agents.values() for s in a["skills"]]
    assert any(s["invocations"] == 0 for s in skills)
    assert any((s["ineffective_rate"] or 0) > 0.5 for s in skills)
    assert any((s["edit_rate"] or 0) > 0.2 for s in skills)
    assert any(a["malformed_lines"] for a in agents.values())
    quiet = agents["archivist"]
    last = max(t["ended_at"] for t in quiet["turns"])
    assert quiet["last_reflection_at"] > last  # the agent with no changes


def test_status_json_shape(demo_ws: Path) -> None:
    result = run("status", "--workspace", str(demo_ws), "--now", NOW, "--json", "--agent", "coder")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["workspace"] == str(demo_ws) and doc["now"] == NOW and doc["threshold"] == 0.7
    (agent,) = doc["agents"]
    assert {"id", "malformed_lines", "last_reflection_at", "turns", "skills"} <= set(agent)
    turn = agent["turns"][0]
    assert {
        "conversation",
        "turn",
        "ended_at",
        "status",
        "tool_calls",
        "real_errors",
        "transient_errors",
        "signals",
        "score",
        "triggers",
        "evidence",
    } <= set(turn)
    skill = agent["skills"][0]
    assert {
        "slug",
        "name",
        "impressions",
        "invocations",
        "invocation_rate",
        "edit_rate",
        "ineffective_rate",
        "patch_count",
        "last_used_at",
    } <= set(skill)
    for t in agent["turns"]:
        assert set(t["signals"]) == set(t["evidence"])
        assert t["triggers"] == (t["score"] >= 0.7)


def test_status_text_is_a_table(demo_ws: Path) -> None:
    result = run("status", "--workspace", str(demo_ws), "--now", NOW)
    assert result.returncode == 0
    assert "== coder (Ada)" in result.stdout and "TRIGGER" in result.stdout and "n/a" in result.stdout


def test_workspace_comes_from_orkas_home(demo_ws: Path) -> None:
    result = run("status", "--json", env={"ORKAS_HOME": str(demo_ws)})
    assert json.loads(result.stdout)["workspace"] == str(demo_ws)


def test_prompt_prints_notes_and_skill_index(demo_ws: Path) -> None:
    result = run("prompt", "coder", "--workspace", str(demo_ws))
    assert result.returncode == 0
    assert "Use pnpm in the monorepo: When installing" in result.stdout
    assert "`bash`" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["status", "--workspace", "/nonexistent/ws"], "no workspace at /nonexistent/ws"),
        (["status", "--agent", "nobody"], "no agent 'nobody'"),
        (["status", "--agent", "../x"], "not a valid agent id"),
        (["status", "--now", "yesterday"], "--now: not an RFC 3339 time"),
        (["prompt", "ghost"], "no agent 'ghost'"),
    ],
)
def test_errors_are_one_line_without_traceback(demo_ws: Path, args: list[str], message: str) -> None:
    if "--workspace" not in args:
        args = [*args, "--workspace", str(demo_ws)]
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_bad_settings_are_one_line(demo_ws: Path) -> None:
    (demo_ws / "orkas.toml").write_text("threshold = 'x'\n")
    result = run("status", "--workspace", str(demo_ws))
    assert result.returncode == 2 and "threshold: must be a number" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_demo_refuses_a_workspace_with_agents(demo_ws: Path) -> None:
    result = run("demo", str(demo_ws))
    assert result.returncode == 2 and "already holds agents" in result.stderr


def test_a_bug_shows_its_traceback_and_asks_for_a_report(monkeypatch, capsys, tmp_path: Path) -> None:
    """Only the project's own errors (and the system's) are one line: a bug must not pass for a user error."""
    from orkas_tui.commands import status

    def broken(args) -> int:
        raise ValueError("an invariant broke")

    monkeypatch.setattr(status, "run_status", broken)
    assert main(["status", "--workspace", str(tmp_path)]) == 70
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "ValueError: an invariant broke" in err
    assert "this is a bug in orkas-tui" in err and "please report it" in err


def test_a_user_error_stays_one_line_without_a_traceback() -> None:
    done = run("--simulate")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "orkas-tui: --simulate needs --demo (it appends made-up turns to the demo workspace)\n"
