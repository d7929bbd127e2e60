"""A large, deterministic workspace written line by line, cached by its parameters.

Writing through :class:`~orkas_tui.core.runtime.AgentRuntime` would take minutes
for a million events, so events are serialised straight to the files in the
spec's format. The same parameters always give the same bytes, so the
workspace is generated once per parameter set and reused between runs.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path

import orjson

from orkas_tui.core.read.timefmt import UTC, format_ts
from orkas_tui.core.store.skills import Skill

FORMAT = 2  # bump when the generator's output changes
ANCHOR = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

TOOLS = ("bash", "read_file", "edit_file", "grep", "run_tests", "web_search", "fetch_url", "kubectl")
ASKS = (
    "Add retry logic to the API client",
    "Summarise the incident timeline",
    "Rename fetchUser to loadUser everywhere",
    "Scale the workers to 6 replicas",
    "查一下2023年新能源汽车的销量",
    "Redacta el informe semanal de la cartera",
)
CORRECTIONS = (
    "Actually, use pnpm instead",
    "That's not what I asked, keep the API",
    "不对，应该是2023年的数据",
    "Incorrecto, el tono debería ser más formal",
    "Wrong file, I meant src/api/client.ts",
)
REAL = (
    "3 failed, 41 passed: AssertionError in test_parse_config",
    "Permission denied (publickey)",
    "old_string not found in src/api/client.ts",
    "Error: Invalid reference in main.tf line 42",
)
TRANSIENT = (
    ("ETIMEDOUT registry.npmjs.org", None),
    ("503 Service Unavailable", 503),
    ("429 Too Many Requests", 429),
    ("connection reset by peer", None),
)


INDEXED = {"shared": 24, "per-turn": 20}  # each shape's skills per turn index, as first measured


@dataclass(frozen=True)
class Params:
    agents: int = 12
    events: int = 1_000_000
    skills: int = 200
    indexed: int = 24  # skills listed in each turn's index (a runtime that indexes the relevant ones)
    conversations: int = 150  # per agent
    seed: int = 11
    index: str = "shared"  # "shared": one index per conversation; "per-turn": each turn draws its own

    def key(self) -> str:
        fields = asdict(self)
        if self.index == "shared":  # the shape from before the option: its cached workspaces keep their key
            del fields["index"]
        text = orjson.dumps({"format": FORMAT, **fields}, option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(text).hexdigest()[:16]


def cache_root() -> Path:
    return Path(os.environ.get("ORKAS_BENCH_CACHE") or Path(tempfile.gettempdir()) / "orkas-tui-bench")


def ensure_workspace(params: Params) -> Path:
    """The pristine workspace for ``params``: generated once, then reused."""
    target = cache_root() / params.key() / "ws"
    if (target.parent / "complete").exists():
        return target
    shutil.rmtree(target.parent, ignore_errors=True)
    generate(target, params)
    (target.parent / "complete").write_text(orjson.dumps(asdict(params)).decode())
    return target


def working_copy(pristine: Path, into: Path) -> Path:
    """A private copy to append to and to cache in, so the pristine one stays cold."""
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(pristine, into)
    return into


def generate(root: Path, params: Params) -> None:
    rng = random.Random(params.seed)
    per_agent = params.events // params.agents
    for a in range(params.agents):
        count = per_agent + (params.events - per_agent * params.agents if a == 0 else 0)
        _agent(root / "agents" / f"agent-{a:02d}", params, count, random.Random(rng.random()))


def _agent(folder: Path, params: Params, events: int, rng: random.Random) -> None:
    (folder / "conversations").mkdir(parents=True)
    (folder / "skills").mkdir()
    (folder / "self").mkdir()
    (folder / "agent.toml").write_text(f'name = "{folder.name}"\n')
    (folder / "self" / "profile.md").write_text("I stumble with `kubectl` rollouts and `run_tests` fixtures.\n")
    slugs = [f"skill-{i:03d}" for i in range(params.skills)]
    start = ANCHOR - timedelta(days=120)
    for i, slug in enumerate(slugs):
        stamp = format_ts(start + timedelta(minutes=i))
        used = format_ts(ANCHOR - timedelta(days=i % 30)) if i % 3 else None
        skill = Skill(
            slug,
            f"Skill {i}",
            f"When task {i} comes up, always check step {i} first",
            stamp,
            stamp,
            i % 4,
            used,
            f"## Rule\nWhen task {i} comes up, always run step {i} first.\n",
        )
        (folder / "skills" / f"{slug}.md").write_text(skill.render())
    per_conv = events // params.conversations
    clock = start
    for c in range(params.conversations):
        budget = per_conv + (events - per_conv * params.conversations if c == params.conversations - 1 else 0)
        lines: list[bytes] = []
        clock += timedelta(minutes=rng.randint(20, 90))
        offset = rng.randrange(len(slugs))  # shared: the index changes between conversations, not within one
        index = [slugs[(offset + k) % len(slugs)] for k in range(min(params.indexed, len(slugs)))]
        turn = 0
        while len(lines) < budget:
            turn += 1
            if params.index == "per-turn":  # a runtime that retrieves the relevant skills for each turn
                index = rng.sample(slugs, min(params.indexed, len(slugs)))
            clock = _turn(lines, rng, index, clock, f"t{turn}", budget - len(lines))
        (folder / "conversations" / f"conv-{c:04d}.jsonl").write_bytes(b"".join(lines))


def _turn(lines: list[bytes], rng: random.Random, index: list[str], clock: datetime, turn: str, room: int) -> datetime:
    def emit(event: dict) -> None:
        nonlocal clock
        clock += timedelta(seconds=rng.randint(1, 30))
        lines.append(orjson.dumps({"ts": format_ts(clock), **event}) + b"\n")

    calls = min(rng.randint(1, 16), max(0, (room - 5) // 2))
    emit({"type": "turn_start", "turn": turn, "skills_indexed": index})
    emit({"type": "user", "text": rng.choice(CORRECTIONS) if rng.random() < 0.2 else rng.choice(ASKS)})
    if index and rng.random() < 0.4:
        emit({"type": "skill_read", "skill": rng.choice(index)})
    real = rng.randrange(calls) if calls and rng.random() < 0.25 else None
    transient = rng.randrange(calls) if calls and rng.random() < 0.2 else None
    for i in range(calls):
        name = rng.choice(TOOLS)
        emit(
            {
                "type": "tool_call",
                "id": f"{turn}-c{i}",
                "name": name,
                "args": {"path": f"src/module_{rng.randrange(400)}.py", "limit": 200},
            }
        )
        if i == real:
            emit({"type": "tool_result", "id": f"{turn}-c{i}", "ok": False, "error": rng.choice(REAL)})
        elif i == transient:
            message, status = rng.choice(TRANSIENT)
            result = {"type": "tool_result", "id": f"{turn}-c{i}", "ok": False, "error": message}
            if status:
                result["status"] = status
            emit(result)
        else:
            emit({"type": "tool_result", "id": f"{turn}-c{i}", "ok": True, "output": f"{name}: ok " + "x" * rng.randint(40, 260)})
    roll = rng.random()
    if roll < 0.05:
        emit({"type": "turn_end", "turn": turn, "status": "aborted"})
    elif roll < 0.12:
        emit({"type": "turn_end", "turn": turn, "status": "error", "error": rng.choice((*REAL, "request timed out"))})
    else:
        emit({"type": "assistant", "text": "Done. Here is the summary of the change."})
        emit({"type": "turn_end", "turn": turn, "status": "ok"})
        if rng.random() < 0.05:
            emit({"type": "output_edited", "turn": turn})
    return clock + timedelta(minutes=rng.randint(1, 20))
