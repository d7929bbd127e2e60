"""The bundle figure, run in a child process: build a 12,000-token bundle, triggering turns first.

Never reflected on, the first agent has every turn since its first in the period:
its triggering turns fill the front (each read back from its file), the 5 newest
conversations the rest. Prints one JSON object: the build time (best of 5,
tokenizer already loaded), the time to count the finished text's tokens once (the
reference), and what the bundle holds.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import orjson

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.bundle import build_bundle
from orkas_tui.core.reflect.tokens import count_tokens
from orkas_tui.core.summary.scan import AgentScan


def main() -> None:
    workspace = Workspace.open(Path(sys.argv[1]))
    scan = AgentScan(workspace.agent(workspace.agent_ids()[0]), workspace.settings)
    scan.refresh()
    count_tokens("warm the tokenizer up")
    builds, counts = [], []
    for _ in range(5):
        start = time.perf_counter()
        bundle = build_bundle(scan, None)
        builds.append(time.perf_counter() - start)
        start = time.perf_counter()
        count_tokens(bundle.text)
        counts.append(time.perf_counter() - start)
    conversations = [scan.conversations[c] for c in bundle.conversations]
    sys.stdout.write(
        orjson.dumps(
            {
                "build_s": min(builds),
                "count_once_s": min(counts),
                "tokens": bundle.tokens,
                "conversations": len(conversations),
                "events_in": bundle.items_total,
                "events_kept": bundle.items_kept,
                "bytes_in": sum(s.tail.offset for s in conversations),
                "triggering_turns": len(bundle.turns),
                "turns_kept": sum(1 for t in bundle.turns if t["kept"]),
                "front_tokens": bundle.parts["triggering_turns"],
            }
        ).decode()
        + "\n"
    )


if __name__ == "__main__":
    main()
