"""Fixtures for reflection tests: small workspaces written event by event, a local model server, the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import orjson
import pytest

from orkas_tui import cli
from orkas_tui.core.read.timefmt import UTC, format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace, write_state
from tests.modelserver import ModelServer

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
CORRECTION = "That's wrong, I meant the staging cluster"


def ts(moment: datetime) -> str:
    return format_ts(moment)


def add_events(root: Path, agent: str, conversation: str, events: list[dict]) -> None:
    path = root / "agents" / agent / "conversations" / f"{conversation}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as handle:
        for event in events:
            handle.write(orjson.dumps(event) + b"\n")


def add_turn(
    root: Path,
    agent: str,
    at: datetime,
    *,
    conversation: str = "c1",
    turn: str | None = None,
    user: str = "please deploy the docs",
    errors: list[dict] | None = None,
    calls: int = 0,
    status: str = "ok",
    end: dict | None = None,
    output: str | None = None,
    read: list[str] | None = None,
) -> None:
    """One ended turn at ``at``: optional failed tool results (``errors``), extra ok calls, a tool output."""
    turn = turn or f"t{int(at.timestamp())}"
    events = [
        {"ts": ts(at), "type": "turn_start", "turn": turn, "skills_indexed": read or []},
        {"ts": ts(at), "type": "user", "text": user},
    ]
    for slug in read or []:
        events.append({"ts": ts(at), "type": "skill_read", "skill": slug})
    for i, err in enumerate(errors or []):
        events.append({"ts": ts(at), "type": "tool_call", "id": f"{turn}-e{i}", "name": err.get("tool", "bash"), "args": {}})
        events.append(
            {
                "ts": ts(at),
                "type": "tool_result",
                "id": f"{turn}-e{i}",
                "ok": False,
                **{k: v for k, v in err.items() if k != "tool"},
            }
        )
    for i in range(calls):
        events.append({"ts": ts(at), "type": "tool_call", "id": f"{turn}-c{i}", "name": "bash", "args": {"cmd": "ls"}})
        events.append(
            {"ts": ts(at), "type": "tool_result", "id": f"{turn}-c{i}", "ok": True, **({"output": output} if output else {})}
        )
    events.append({"ts": ts(at + timedelta(seconds=30)), "type": "assistant", "text": "Done."})
    events.append({"ts": ts(at + timedelta(seconds=30)), "type": "turn_end", "turn": turn, "status": status, **(end or {})})
    add_events(root, agent, conversation, events)


def trigger_turn(root: Path, agent: str, at: datetime, **kw) -> None:
    """A turn scoring 1.4: a correction plus a complex task (8 tool calls). In a new conversation
    the task it corrects comes first (a conversation's first prompt is never a correction)."""
    conversation = kw.get("conversation", "c1")
    if not (root / "agents" / agent / "conversations" / f"{conversation}.jsonl").exists():
        add_turn(root, agent, at - timedelta(minutes=1), conversation=conversation, user="please deploy the docs")
    add_turn(root, agent, at, user=CORRECTION, calls=8, **kw)


def set_reflected(root: Path, agent: str, at: datetime) -> None:
    """The agent was last reflected on at ``at``: its read marks are those a reflection then left
    (derived from the time, as for a workspace from before read marks)."""
    paths = AgentPaths(root / "agents" / agent)
    paths.root.mkdir(parents=True, exist_ok=True)
    write_state(paths, last_reflection_at=ts(at), read_marks=None)


def write_skill(root: Path, agent: str, slug: str, name: str, body: str, description: str = "when deploying") -> Path:
    path = root / "agents" / agent / "skills" / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'---\nname: "{name}"\ndescription: "{description}"\ncreatedAt: "2026-11-01T00:00:00Z"\n'
        f'updatedAt: "2026-11-01T00:00:00Z"\npatchCount: 0\nlastUsedAt: null\n---\n\n{body}',
        "utf-8",
    )
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "agents").mkdir(parents=True)
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake HOME: an export link's ``~`` is expanded into it, never the machine's own ~/.claude."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    return path


def configure(
    root: Path, server: ModelServer | None = None, *, auto_apply: bool = False, extra: str = "", timeout_s: float = 2.0
) -> Workspace:
    """Write ``orkas.toml`` (model pointed at ``server``, short time-outs and back-off) and open it."""
    lines = [f"[reflection]\nauto_apply = {'true' if auto_apply else 'false'}\n"]
    if server is not None:
        lines.append(
            f'[model]\nname = "openai/test-model"\napi_base = "{server.url}"\n'
            f"timeout_s = {timeout_s}\nmax_retries = 2\nretry_backoff_s = 0.01\n"
        )
    lines.append(extra)
    (root / "orkas.toml").write_text("\n".join(lines), "utf-8")
    return Workspace(root)


@pytest.fixture
def server():
    with ModelServer() as srv:
        yield srv


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture, *argv: str):
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)
