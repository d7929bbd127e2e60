"""The incremental figure inside one process: a refreshed scan, turns appended, ``refresh()`` timed.

What the TUI does on every change and what ``status`` adds to its warm start: only
the new bytes are read. Prints one JSON object: for each batch, the bytes appended
and the seconds ``refresh()`` took.
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
    sys.stdout.write(orjson.dumps(batches).decode() + "\n")


if __name__ == "__main__":
    main()
