"""A hook or its detached import SIGKILLed at every step loses nothing and imports nothing twice.

Each case runs the real ``orkas-tui hook claude-code`` (a subprocess, as Claude Code runs
it) after a session grew by its second half, with ``ORKAS_TUI_KILL_AT`` naming the step at
which the hook, or the drain it starts, kills itself with SIGKILL (no cleanup, no
``finally``: what a host's timeout or a closed terminal does). Then the next SessionStart
hook, or an ``import``, runs, and the agent's conversation must hold every turn and every
tool call of the transcript exactly once: byte for byte what one import of the whole
transcript writes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orkas_tui.cli import main
from tests.importers.test_hooks import HEAVY, SHORT, env, stop_json, wait_for_drain

HOOK_STEPS = ["hook-read", "hook-appended", "hook-locked", "hook-spawned"]
DRAIN_STEPS = ["drain-start", "drain-taken", "import-synced", "drain-imported"]
SPLIT = 19  # the transcript's line that opens its second prompt: the first half is one whole turn


def run_hook(home: Path, payload: bytes, kill_at: str | None = None) -> int:
    extra = {"ORKAS_TUI_KILL_AT": kill_at} if kill_at else {}
    argv = [sys.executable, "-m", "orkas_tui", "hook", "claude-code", "--agent", "claude"]
    done = subprocess.run(argv, input=payload, capture_output=True, env=env(home) | extra, timeout=60)
    assert done.stdout == b""
    wait_for_drain(home / ".orkas")  # a drain killed lets go of the lock as it dies
    return done.returncode


@pytest.fixture(scope="module")
def base(samples: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[bytes]]:
    """A fake HOME whose session's first half came in through a SessionStart hook's catch-up."""
    home = tmp_path_factory.mktemp("kill") / "home"
    session = home / ".claude" / "projects" / "-home-me-code" / "grows.jsonl"
    session.parent.mkdir(parents=True)
    lines = (samples / HEAVY).read_bytes().splitlines(keepends=True)
    session.write_bytes(b"".join(lines[:SPLIT]))
    assert run_hook(home, stop_json(session, "SessionStart")) == 0
    assert conversation(home), "the first half was not imported"
    return home, session, lines


def conversation(home: Path, agent: str = "claude", session: str = "*") -> bytes:
    found = list((home / ".orkas" / "agents" / agent / "conversations").glob(f"{session}.jsonl"))
    return found[0].read_bytes() if len(found) == 1 else b""


def counted(events: bytes, kind: str) -> int:
    return sum(1 for line in events.splitlines() if json.loads(line)["type"] == kind)


@pytest.mark.parametrize("step", HOOK_STEPS + DRAIN_STEPS)
def test_a_kill_at_any_step_loses_nothing_and_imports_nothing_twice(
    base: tuple[Path, Path, list[bytes]], samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    origin, _, lines = base
    home = tmp_path / "home"
    shutil.copytree(origin, home, symlinks=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "ORKAS_HOME"):
        monkeypatch.delenv(name, raising=False)
    session = home / ".claude" / "projects" / "-home-me-code" / "grows.jsonl"
    with open(session, "ab") as out:
        out.writelines(lines[SPLIT:])
    code = run_hook(home, stop_json(session), kill_at=step)
    private = home / ".orkas" / ".orkas"
    assert code == (-9 if step in HOOK_STEPS else 0)  # the hook itself was killed, or its drain
    if step in DRAIN_STEPS:  # the drain died before deleting what it took
        assert (private / "hook-spool.taken").exists() or (private / "hook-spool").exists()
    if step == "import-synced":  # events on disk that no import state claims yet
        state = json.loads((home / ".orkas" / "agents" / "claude" / ".orkas" / "imports" / "claude-grows.json").read_bytes())
        assert len(conversation(home, session="claude-grows")) > state["conv_bytes"]

    whole = tmp_path / "whole.jsonl"
    shutil.copyfile(session, whole)
    assert main(["import", "claude-code", str(whole), "--agent", "reference"]) == 0
    reference = conversation(home, "reference")
    if step != "hook-read":  # the line is in the spool: the next hook's drain, about another session, reads it
        other = session.with_name("other.jsonl")
        shutil.copyfile(samples / SHORT, other)
        assert run_hook(home, stop_json(other)) == 0
        assert conversation(home, session="claude-grows") == reference

    if (HOOK_STEPS + DRAIN_STEPS).index(step) % 2:
        assert main(["import", "claude-code", "--agent", "claude"]) == 0
    assert run_hook(home, stop_json(session, "SessionStart")) == 0  # the next session's start catches up
    assert main(["import", "claude-code", "--agent", "claude"]) == 0  # and a later import adds nothing
    events = conversation(home, session="claude-grows")
    assert events == reference
    records = [json.loads(line) for line in lines]
    tool_uses = [b["id"] for r in records if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "tool_use"]
    calls = [json.loads(line)["id"] for line in events.splitlines() if json.loads(line)["type"] == "tool_call"]
    assert sorted(calls) == sorted(tool_uses)  # every tool call of the transcript, once
    assert counted(events, "turn_start") == counted(events, "turn_end") == 2  # both turns, once each
    assert not (private / "hook-spool").exists() and not (private / "hook-spool.taken").exists()
