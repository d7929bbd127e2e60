"""The hook's spool: Codex's lifecycle hooks, the SessionStart catch-up, concurrent hooks, links, imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orkas_tui.cli import main
from orkas_tui.core.read.hook_log import read_log
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.journal import apply_lock
from tests.importers.test_hooks import (
    BIG,
    HEAVY,
    ROLLOUT,
    SHORT,
    THREAD,
    conversations,
    env,
    home,
    hook,
    log,
    place,
    stop_json,
    wait_for_drain,
)

__all__ = ["home"]  # the fake-HOME fixture, shared with the hook tests


def codex_hook(home: Path, payload: dict, agent: str = "cx") -> subprocess.CompletedProcess:
    """``orkas-tui hook codex`` as Codex's lifecycle hooks run it: the event's JSON on stdin, no argument."""
    argv = [sys.executable, "-m", "orkas_tui", "hook", "codex", "--agent", agent]
    done = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env(home), timeout=60)
    wait_for_drain(home / ".orkas")
    return done


def rollout(samples: Path, home: Path, thread: str = THREAD, day: str = "2025/11/17") -> Path:
    folder = home / ".codex" / "sessions" / day
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"rollout-2025-11-17T15-30-28-{thread}.jsonl"
    shutil.copyfile(samples / ROLLOUT, target)
    return target


def codex_event(event: str, path: Path | None, session: str = THREAD) -> dict:
    """The fields of codex-rs/hooks' ``stop.command.input`` schema (SessionStart: ``source`` for the turn's)."""
    payload = {
        "session_id": session,
        "transcript_path": str(path) if path else None,
        "cwd": "/home/me/code",
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
    }
    if event == "SessionStart":
        return payload | {"source": "startup"}
    return payload | {"turn_id": "t-1", "stop_hook_active": False, "last_assistant_message": "done " * 2000}


def test_codex_stop_hook_imports_the_rollout_it_names(home: Path, samples: Path) -> None:
    path = rollout(samples, home)
    done = codex_hook(home, codex_event("Stop", path))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert list(conversations(home, "cx")) == [f"codex-2025-11-17T15-30-28-{THREAD}.jsonl"]
    assert [e["type"] for e in log(home, "cx")] == ["hook_imported"]
    by_hook = conversations(home, "cx")
    assert main(["import", "codex", str(path), "--agent", "by-import"]) == 0
    assert conversations(home, "by-import") == by_hook


def test_codex_stop_hook_without_a_transcript_path_finds_the_threads_rollout(home: Path, samples: Path) -> None:
    rollout(samples, home)
    assert codex_hook(home, codex_event("Stop", None)).returncode == 0
    assert list(conversations(home, "cx")) == [f"codex-2025-11-17T15-30-28-{THREAD}.jsonl"]
    assert codex_hook(home, codex_event("Stop", None, session="../../etc")).returncode == 0
    assert "without a usable thread-id" in log(home, "cx")[-1]["message"]


def test_codex_stop_hook_naming_a_file_outside_its_sessions_is_refused(home: Path, samples: Path) -> None:
    outside = home / "elsewhere.jsonl"
    shutil.copyfile(samples / ROLLOUT, outside)
    assert codex_hook(home, codex_event("Stop", outside)).returncode == 0
    assert conversations(home, "cx") == {} and "outside" in log(home, "cx")[-1]["message"]


def test_codex_session_start_catches_up_a_rollout_no_hook_named(home: Path, samples: Path) -> None:
    path = rollout(samples, home)  # its Stop hook was killed, or Codex ran without hooks
    done = codex_hook(home, codex_event("SessionStart", None, session="019a93b9-0000-4000-8000-00000000000f"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    by_catch_up = conversations(home, "cx")
    assert list(by_catch_up) == [f"codex-2025-11-17T15-30-28-{THREAD}.jsonl"]
    assert main(["import", "codex", str(path), "--agent", "by-import"]) == 0
    assert conversations(home, "by-import") == by_catch_up


def test_catch_up_reads_what_changed_since_the_last_one(home: Path, samples: Path) -> None:
    """The rule of docs/importers.md: the first catch-up reads the last day; each later one, what changed since the last."""
    old = place(samples, home, SHORT)
    week_ago = time.time() - 7 * 86400
    os.utime(old, (week_ago, week_ago))
    first = place(samples, home, HEAVY)
    assert hook(home, stop_json(first, "SessionStart")).returncode == 0
    assert list(conversations(home)) == [f"claude-{first.stem}.jsonl"]  # a week old: not the last day's
    mark = json.loads((home / ".orkas" / "agents" / "claude-code" / ".orkas" / "hook-catch-up.json").read_bytes())
    assert mark["claude-code"] == pytest.approx(time.time(), abs=60)
    later = place(samples, home, BIG)  # written after the last catch-up began
    before = mark["claude-code"] - 3600
    os.utime(first, (before, before))
    assert hook(home, stop_json(later, "SessionStart")).returncode == 0
    assert sorted(conversations(home)) == sorted(
        [
            f"claude-{first.stem}.jsonl",
            f"claude-{later.stem}.jsonl",
            "claude-8463c716-a2ea-4c14-9efa-87158ebd9f20-agent-a7be2f0.jsonl",
        ]
    )
    assert log(home)[-1]["session"] == "catch-up" and log(home)[-1]["files"] == 3  # the session, its two subagent files


def test_hooks_at_once_bring_every_session_in_without_another_hook(home: Path, samples: Path) -> None:
    """Six hooks at once, three sessions, while an approve holds the agent for a second (the code before
    the spool waited 0.5 s, then left the session to the session's next hook)."""
    sessions = [place(samples, home, name) for name in (SHORT, HEAVY, BIG)] * 2
    argv = [sys.executable, "-m", "orkas_tui", "hook", "claude-code"]
    paths = AgentPaths(home / ".orkas" / "agents" / "claude-code")
    paths.private.mkdir(parents=True)
    with apply_lock(paths):
        procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env(home)) for _ in sessions]
        for proc, session in zip(procs, sessions, strict=True):
            proc.stdin.write(stop_json(session))  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        assert [(p.wait(60), p.stdout.read()) for p in procs] == [(0, b"")] * len(sessions)  # type: ignore[union-attr]
        time.sleep(1.0)
    wait_for_drain(home / ".orkas")
    assert main(["import", "claude-code", "--agent", "by-import"]) == 0
    assert len(conversations(home)) == 4 and conversations(home) == conversations(home, "by-import")
    assert not (home / ".orkas" / ".orkas" / "hook-spool").exists()


@pytest.mark.parametrize("linked", ["hook-spool", ".orkas"])
def test_a_spool_linked_out_of_the_workspace_is_never_written(home: Path, samples: Path, tmp_path: Path, linked: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "hook-spool").write_text("mine\n")
    private = home / ".orkas" / ".orkas"
    private.parent.mkdir(parents=True)
    if linked == ".orkas":
        private.symlink_to(outside)
    else:
        private.mkdir()
        (private / "hook-spool").symlink_to(outside / "hook-spool")
    done = hook(home, stop_json(place(samples, home, SHORT)))
    assert (done.returncode, done.stdout) == (0, b"")
    assert b"links outside the workspace" in done.stderr  # the one thing a hook says, when it cannot spool
    assert [p.name for p in outside.iterdir()] == ["hook-spool"] and (outside / "hook-spool").read_text() == "mine\n"


def test_the_hook_imports_neither_the_cli_nor_the_core(home: Path, samples: Path) -> None:
    """What makes a hook call a few interpreter starts (benchmarks/hook.py measures it)."""
    code = (
        "import sys\nfrom orkas_tui.cli import main\nmain(['hook', 'claude-code'])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('orkas_tui') or m in HEAVY)))"
    ).replace("HEAVY", repr({"argparse", "json", "orjson", "pathlib", "re", "subprocess", "typing", "msgspec"}))
    session = place(samples, home, SHORT)
    done = subprocess.run([sys.executable, "-c", code], input=stop_json(session), capture_output=True, env=env(home), timeout=60)
    wait_for_drain(home / ".orkas")
    assert done.stdout.decode().split() == [
        "orkas_tui",
        "orkas_tui.cli",
        "orkas_tui.core",
        "orkas_tui.core.read",
        "orkas_tui.core.read.home",
        "orkas_tui.importers",
        "orkas_tui.importers.spool",
    ]
    assert conversations(home)  # and the session came in all the same


@pytest.mark.parametrize(
    "argv, said",
    [
        (["claude-code", "--agent"], "--agent needs a value"),
        (["claude-code", "--verbose"], "unknown option '--verbose'"),
    ],
)
def test_bad_options_are_logged_not_shown(home: Path, argv: list[str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orkas_tui", "hook", *argv], input=b"{}", capture_output=True, env=env(home), timeout=60
    )
    wait_for_drain(home / ".orkas")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert said in log(home)[-1]["message"]


def test_a_bad_format_is_logged_in_the_workspace_and_makes_no_agent(home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orkas_tui", "hook", "claude", "--agent", "x"], capture_output=True, env=env(home), timeout=60
    )
    wait_for_drain(home / ".orkas")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [(_, entry)] = read_log(home / ".orkas" / ".orkas")
    assert "the format is claude-code or codex, not 'claude'" in entry["message"]
    assert not (home / ".orkas" / "agents" / "x").exists()
