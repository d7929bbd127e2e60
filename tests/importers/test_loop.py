"""The loop closes by itself: hooks in, a reflection, one approval, the change out, its effect measured.

From a fake HOME laid out as Claude Code's and Codex's, with nothing but what a user
runs: ``hooks install``, the tools calling the installed hook after their sessions
(real sample sessions, fed one at a time, the command taken from the tool's own
settings), a cycle the hook starts against a local fake model over HTTP, and
``proposals approve``. No ``export`` command is run: the skill and the notes must be
where the tool reads them, and a later session that invokes the skill must show it
invoked, offered only from the export on, with the change's effect measured.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import tomllib
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui.core.read.timefmt import format_ts, parse_ts, utc_now
from tests.importers.test_hooks import BIG, HEAVY, ROLLOUT, SHORT, env, home, place, stop_json, wait_for_drain
from tests.modelserver import ModelServer, reply

__all__ = ["home"]  # the fake-HOME fixture, shared with the hook tests

SKILL = {
    "op": "create_skill",
    "sources": ["$USER"],  # a model citing what the user typed
    "name": "Read the server error first",
    "description": "When a dev server does not start",
    "body": "When `mix phx.server` or `npm run dev` fails to start, always read the first error line of its output before changing any config.",
}
NOTE = {
    "op": "update_self",
    "sources": ["$USER"],
    "note": "strategies",
    "content": "When a server does not start, read its first error line before editing config.",
}
SLUG = "read-the-server-error-first"


@pytest.fixture
def model():
    with ModelServer([reply({"summary": "servers that do not start", "operations": [SKILL, NOTE]})]) as server:
        yield server


def tool_env(home: Path) -> dict[str, str]:
    """The environment Claude Code or Codex gives its hook: this venv's ``orkas-tui`` on PATH."""
    base = env(home)
    return base | {"PATH": os.pathsep.join([str(Path(sys.executable).parent), base.get("PATH", "")])}


def cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "orkas_tui", *args], capture_output=True, env=env(home), stdin=subprocess.DEVNULL, timeout=120
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    return done


def cli_json(home: Path, *args: str):
    return json.loads(cli(home, *args, "--json").stdout)


def claude_calls_its_hook(home: Path, session: Path, event: str) -> None:
    """What Claude Code does on ``Stop`` / ``SessionEnd``: run each installed command, the hook's JSON on stdin."""
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    commands = [h["command"] for group in settings["hooks"][event] for h in group["hooks"] if "orkas-tui" in h["command"]]
    assert len(commands) == 1, commands
    done = subprocess.run(
        commands[0], shell=True, input=stop_json(session, event), capture_output=True, env=tool_env(home), timeout=60
    )
    assert (done.returncode, done.stdout) == (0, b""), done.stderr
    wait_for_drain(home / ".orkas")  # the import the hook started detached


def codex_calls_its_hook(home: Path, rollout: Path, thread: str) -> None:
    """What Codex does after a turn: run the installed ``Stop`` command through the shell, the hook's JSON on stdin
    (``stop.command.input``, docs/hooks.md), and nothing else."""
    hooks = tomllib.loads((home / ".codex" / "config.toml").read_text())["hooks"]["Stop"]
    commands = [h["command"] for group in hooks for h in group["hooks"] if "orkas-tui" in h["command"]]
    assert len(commands) == 1, commands
    stdin = {"session_id": thread, "turn_id": "1", "transcript_path": str(rollout), "cwd": "/tmp", "hook_event_name": "Stop"}
    stdin |= {"model": "gpt-5-codex", "permission_mode": "default", "stop_hook_active": False, "last_assistant_message": "ok"}
    done = subprocess.run(
        commands[0], shell=True, input=json.dumps(stdin).encode(), capture_output=True, env=tool_env(home), timeout=60
    )
    assert (done.returncode, done.stdout) == (0, b""), done.stderr
    wait_for_drain(home / ".orkas")


def configure_model(home: Path, server: ModelServer) -> None:
    """The user sets their model (the hooks' link is already in orkas.toml); one turn after a change is a window."""
    toml = home / ".orkas" / "orkas.toml"
    text = toml.read_text()  # the template hooks install wrote: fill in its [model] and [reflection], as a person would
    text = text.replace("[model]\n", f'[model]\nname = "openai/test-model"\napi_base = "{server.url}"\nmax_retries = 0\n', 1)
    toml.write_text(text.replace("[reflection]\n", "[reflection]\neffect_window = 1\n", 1))


def wait_for_cycle(home: Path) -> None:
    """The hook started a detached cycle that holds ``cycle.lock`` until it exits."""
    lock = home / ".orkas" / ".orkas" / "cycle.lock"
    assert lock.exists(), "the hook started no cycle"
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)


def approve_the_proposal(home: Path, agent: str) -> None:
    proposals = [p for p in cli_json(home, "proposals", "list") if p["agent"] == agent]
    assert [p["status"] for p in proposals] == ["pending"], proposals
    cli(home, "proposals", "approve", proposals[0]["id"])


def later_copy(source: Path, target: Path, start, rewrite) -> None:
    """A later session built from real records: new ids, times moved to ``start`` on, ``rewrite`` applied to each."""
    records = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    first = next(parse_ts(r["timestamp"]) for r in records if r.get("timestamp"))
    lines = []
    for record in records:
        if record.get("timestamp"):
            record["timestamp"] = format_ts(start + (parse_ts(record["timestamp"]) - first))
        if "uuid" in record:
            record["uuid"] = str(uuid.uuid4())
        lines.append(json.dumps(rewrite(record)))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n")


def skill_metrics(home: Path, agent: str) -> dict:
    status = cli_json(home, "status", "--agent", agent)
    return {s["slug"]: s for s in status["agents"][0]["skills"]}


def test_claude_code_loop_closes_by_itself(home: Path, samples: Path, model: ModelServer) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}, "env": {"A": "1"}}, indent=2) + "\n")
    cli(home, "hooks", "install", "claude-code", "--agent", "claude")

    claude_calls_its_hook(home, place(samples, home, SHORT), "SessionEnd")
    configure_model(home, model)
    claude_calls_its_hook(home, place(samples, home, BIG), "SessionEnd")  # due: the hook starts a cycle
    wait_for_cycle(home)
    assert len(model.requests) == 1
    approve_the_proposal(home, "claude")

    skill_md = home / ".claude" / "skills" / SLUG / "SKILL.md"
    assert SKILL["body"] in skill_md.read_text()  # exported at once, no export command
    claude_md = (home / ".claude" / "CLAUDE.md").read_text()
    assert "<!-- orkas-tui:begin claude" in claude_md and NOTE["content"] in claude_md

    # An older session (February) imported only now: the skill was not there then, so it was not offered.
    claude_calls_its_hook(home, place(samples, home, HEAVY), "SessionEnd")
    assert skill_metrics(home, "claude")[SLUG]["impressions"] == 0

    # A person edits the exported file: every later hook leaves it alone (the app flags it), never imports it back.
    with skill_md.open("a") as handle:
        handle.write("Also check the port.\n")
    workspace_skill = home / ".orkas" / "agents" / "claude" / "skills" / f"{SLUG}.md"
    kept = workspace_skill.read_text()

    def invoke(record: dict) -> dict:
        """The later session's first Bash call becomes the agent invoking the skill."""
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("id") == first_call:
                block.update(name="Skill", input={"skill": SLUG})
            if block.get("type") == "tool_result" and block.get("tool_use_id") == first_call:
                block.update(content=f"Launching skill: {SLUG}", is_error=False)
        return record

    source = home / ".claude" / "projects" / "-home-me-code" / Path(BIG).name  # its turns end ok: real turns
    first_call = next(
        b["id"]
        for line in source.read_text().splitlines()
        for b in (json.loads(line).get("message") or {}).get("content") or []
        if isinstance(b, dict) and b.get("type") == "tool_use"
    )
    later = home / ".claude" / "projects" / "-home-me-code" / f"{uuid.uuid4()}.jsonl"
    later_copy(source, later, utc_now() + timedelta(minutes=1), invoke)
    claude_calls_its_hook(home, later, "SessionEnd")

    assert re.sub(r"lastUsedAt: .*", "", workspace_skill.read_text()) == re.sub(r"lastUsedAt: .*", "", kept)
    assert "Also check the port." in skill_md.read_text()
    rates = skill_metrics(home, "claude")[SLUG]
    later_turns = [
        t for t in cli_json(home, "status", "--agent", "claude")["agents"][0]["turns"] if later.stem in t["conversation"]
    ]
    assert rates["invocations"] == 1 and rates["impressions"] == len(later_turns) >= 1
    changes = cli_json(home, "history", "claude")
    created = next(c for c in changes if c["action"] == "create_skill")
    assert created["effect"]["agent"]["turns_after"] >= 1 and created["effect"]["agent"]["status"] == "measured"
    assert created["effect"]["skill"]["turns_after"] >= 1
    dry = cli(home, "reflect", "claude", "--dry-run").stdout.decode()
    assert f"effect of change {created['id']}" in dry  # the next bundle says whether it helped

    cli(home, "hooks", "uninstall", "claude-code")
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(ls:*)"]}, "env": {"A": "1"}}


def test_codex_loop_closes_by_itself(home: Path, samples: Path, model: ModelServer) -> None:
    config = home / ".codex" / "config.toml"
    config.write_text('# mine\nmodel = "gpt-5-codex"  # default\n\n[projects."/home/me/code"]\ntrust_level = "trusted"\n')
    cli(home, "hooks", "install", "codex", "--agent", "codex")
    configure_model(home, model)

    thread = "019a93b9-0000-4000-8000-000000000001"
    day = home / ".codex" / "sessions" / "2025" / "11" / "17"
    day.mkdir(parents=True)
    rollout = day / f"rollout-2025-11-17T15-30-28-{thread}.jsonl"
    rollout.write_bytes((samples / ROLLOUT).read_bytes())
    codex_calls_its_hook(home, rollout, thread)
    wait_for_cycle(home)
    approve_the_proposal(home, "codex")
    assert SKILL["body"] in (home / ".codex" / "skills" / SLUG / "SKILL.md").read_text()
    assert NOTE["content"] in (home / ".codex" / "AGENTS.md").read_text()

    def invoke(record: dict) -> dict:
        """The later session's second shell call reads the exported skill, as Codex reads a skill."""
        payload = record.get("payload") or {}
        if payload.get("type") == "function_call" and payload.get("call_id") == second_call:
            payload["arguments"] = json.dumps({"command": ["bash", "-lc", f"cat ~/.codex/skills/{SLUG}/SKILL.md"]})
        if record.get("type") == "session_meta":
            payload["id"] = later_thread
        return record

    second_call = [
        json.loads(line)["payload"]["call_id"]
        for line in (samples / ROLLOUT).read_text().splitlines()
        if '"function_call"' in line and json.loads(line)["payload"].get("type") == "function_call"
    ][1]
    later_thread = "019a93b9-0000-4000-8000-000000000002"
    start = utc_now() + timedelta(minutes=1)
    later = home / ".codex" / "sessions" / format_ts(start)[:10].replace("-", "/") / f"rollout-later-{later_thread}.jsonl"
    later_copy(samples / ROLLOUT, later, start, invoke)
    os.utime(later, (start.timestamp() - 3600, start.timestamp() - 3600))  # quiet: its last turn settles
    codex_calls_its_hook(home, later, later_thread)

    rates = skill_metrics(home, "codex")[SLUG]
    turns = cli_json(home, "status", "--agent", "codex")["agents"][0]["turns"]
    later_turns = [t for t in turns if later_thread in t["conversation"]]
    assert rates["invocations"] == 1 and rates["impressions"] == len(later_turns) >= 1
    created = next(c for c in cli_json(home, "history", "codex") if c["action"] == "create_skill")
    assert created["effect"]["agent"]["turns_after"] >= 1

    cli(home, "hooks", "uninstall", "codex")
    assert (
        config.read_text() == '# mine\nmodel = "gpt-5-codex"  # default\n\n[projects."/home/me/code"]\ntrust_level = "trusted"\n'
    )
