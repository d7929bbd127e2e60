"""The bundle of one 3,000-turn conversation reflected on before its last 30 turns, in a child process.

What a long-running session costs each reflection: the bundle reads only the spans of
the turns it carries, so its build time follows the turns after the last reflection,
not the conversation's length. Prints one JSON object: the build time (best of 5,
tokenizer loaded), the bytes of the conversation, the events the bundle saw.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import orjson

from benchmarks.workspace import ANCHOR, _turn
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import Workspace, write_state
from orkas_tui.core.reflect.bundle import build_bundle
from orkas_tui.core.reflect.tokens import count_tokens
from orkas_tui.core.summary.scan import AgentScan

TURNS = 3_000
AFTER = 30  # turns after the last reflection


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        agent = root / "agents" / "long"
        (agent / "conversations").mkdir(parents=True)
        rng = random.Random(11)
        clock = ANCHOR
        lines: list[bytes] = []
        ends = []
        for i in range(TURNS):
            clock = _turn(lines, rng, ["skill-001"], clock, f"t{i}", 40)
            ends.append(lines[-1])
        path = agent / "conversations" / "long.jsonl"
        path.write_bytes(b"".join(lines))
        since = parse_ts(orjson.loads(ends[TURNS - AFTER - 1])["ts"]) + timedelta(seconds=1)
        workspace = Workspace.open(root)
        paths = workspace.agent("long")
        write_state(paths, last_reflection_at=format_ts(since))
        scan = AgentScan(paths, workspace.settings)
        scan.refresh()
        count_tokens("warm the tokenizer up")
        builds = []
        for _ in range(5):
            start = time.perf_counter()
            bundle = build_bundle(scan, since)
            builds.append(time.perf_counter() - start)
        sys.stdout.write(
            orjson.dumps(
                {
                    "build_s": min(builds),
                    "turns": TURNS,
                    "turns_after": AFTER,
                    "bytes": path.stat().st_size,
                    "events_in": bundle.items_total,
                    "tokens": bundle.tokens,
                }
            ).decode()
            + "\n"
        )


if __name__ == "__main__":
    main()
