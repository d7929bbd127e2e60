"""The incremental figures inside one process: a refreshed scan, turns appended, ``refresh()`` timed.

What the TUI does on every change and what ``status`` adds to its warm start: only
the new bytes are read, and only the turns they changed are folded. Prints one JSON
object: for each batch, the bytes appended and the seconds ``refresh()`` took; and for
one turn appended to a conversation of 3,000 turns (restored from its cache, as a new
process would), the best of 5 of ``refresh()`` and of ``save_cache()`` (the appended entry).
"""

from __future__ import annotations

import random
import sys
import time
from datetime import timedelta
from pathlib import Path

import orjson

from benchmarks.workspace import ANCHOR, _turn
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.summary.scan import AgentScan


def main() -> None:
    workspace = Workspace.open(Path(sys.argv[1]))
    agent = workspace.agent(workspace.agent_ids()[-1])
    scan = AgentScan(agent, workspace.settings, persist=False)
    scan.refresh()
    target = agent.conversation_files()[-1]
    rng = random.Random(3)
    clock = ANCHOR + timedelta(days=5)
    batches = []
    for turns in (1, 10, 100, 1000):
        lines: list[bytes] = []
        for i in range(turns):
            clock = _turn(lines, rng, ["skill-001"], clock, f"b{turns}-{i}", 40)
        data = b"".join(lines)
        with open(target, "ab") as handle:
            handle.write(data)
        start = time.perf_counter()
        result = scan.refresh()
        batches.append(
            {"turns": turns, "bytes": len(data), "seconds": time.perf_counter() - start, "changed": len(result.changed)}
        )
    sys.stdout.write(orjson.dumps({"batches": batches, "long_conversation": long_conversation(agent, workspace)}).decode() + "\n")


LONG = 3_000


def long_conversation(agent, workspace: Workspace) -> dict:
    rng = random.Random(5)
    clock = ANCHOR + timedelta(days=7)
    lines: list[bytes] = []
    for i in range(LONG):
        clock = _turn(lines, rng, ["skill-001"], clock, f"long-{i}", 40)
    path = agent.conversations / "bench-long.jsonl"
    path.write_bytes(b"".join(lines))
    AgentScan(agent, workspace.settings).refresh()  # autosaved: its history is large
    scan = AgentScan(agent, workspace.settings, autosave=False)
    scan.refresh()  # from the cache: no turn record built
    refresh, save = [], []
    for i in range(5):
        lines = []
        clock = _turn(lines, rng, ["skill-001"], clock, f"long-more-{i}", 40)
        with open(path, "ab") as handle:
            handle.write(b"".join(lines))
        start = time.perf_counter()
        scan.refresh()
        refresh.append(time.perf_counter() - start)
        start = time.perf_counter()
        scan.save_cache()
        save.append(time.perf_counter() - start)
    return {"turns": LONG, "refresh_s": min(refresh), "save_s": min(save), "first_refresh_s": refresh[0]}


if __name__ == "__main__":
    main()
