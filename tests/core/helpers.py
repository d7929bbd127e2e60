"""Write spec events into a temp workspace the way a runtime would (raw lines, exact timestamps)."""

from __future__ import annotations

from pathlib import Path

import orjson


def write_lines(path: Path, events: list[dict | bytes], mode: str = "ab") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode) as handle:
        for event in events:
            handle.write(event if isinstance(event, bytes) else orjson.dumps(event) + b"\n")


def turn(
    turn_id: str,
    *,
    user: str = "please do it",
    calls: int = 0,
    results: list[dict] | None = None,
    status: str = "ok",
    end: dict | None = None,
    indexed: list[str] | None = None,
    read: list[str] | None = None,
    ts: str = "2026-11-20T10:00:00Z",
    end_ts: str | None = None,
) -> list[dict]:
    """One complete turn; ``results`` override the default ok results of the first calls."""
    events: list[dict] = [
        {"ts": ts, "type": "turn_start", "turn": turn_id, "skills_indexed": indexed or []},
        {"ts": ts, "type": "user", "text": user},
    ]
    for slug in read or []:
        events.append({"ts": ts, "type": "skill_read", "skill": slug})
    results = results or []
    for i in range(calls):
        events.append({"ts": ts, "type": "tool_call", "id": f"{turn_id}-c{i}", "name": "bash", "args": {}})
        result = {"ok": True} if i >= len(results) else results[i]
        events.append({"ts": ts, "type": "tool_result", "id": f"{turn_id}-c{i}", **result})
    closing = {"ts": end_ts or ts, "type": "turn_end", "turn": turn_id, "status": status}
    closing.update(end or {})
    events.append(closing)
    return events


def make_agent(root: Path, agent_id: str = "a1") -> Path:
    agent = root / "agents" / agent_id
    (agent / "conversations").mkdir(parents=True, exist_ok=True)
    return agent
