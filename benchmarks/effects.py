"""The effects figure, run in a child process: the effect of 20 changes over one agent's whole history.

Twenty changes (held in memory, nothing written) are spread evenly over the first
agent's turns: every other one patches a skill of its index, the rest update a self
note. Prints one JSON object: :func:`measure_effects` over them (best of 5, on the
scan the caller holds, as the app and the bundle do) and, for reference, the skill
rates over the same turns (``skill_metrics``, what ``status`` shows; best of 5).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import orjson

from orkas_tui.core.observe.skill_metrics import skill_metrics
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.effects import measure_effects
from orkas_tui.core.store.history import Change
from orkas_tui.core.summary.scan import AgentScan

CHANGES = 20


def changes_over(scan: AgentScan) -> tuple[list[Change], int]:
    """``CHANGES`` changes at evenly spaced turn ends of the agent, and the number of ended turns."""
    ended = sorted((t for t in scan.records() if t.ended and parse_ts(t.ended_at)), key=lambda t: parse_ts(t.ended_at))
    step = len(ended) // (CHANGES + 1)
    out = []
    for i in range(1, CHANGES + 1):
        turn = ended[i * step]
        skill = i % 2 == 0 and bool(turn.skills_indexed)
        out.append(
            Change(
                id=f"{scan.id}.c{i}",
                agent=scan.id,
                at=turn.ended_at or "",
                by="approval",
                action="patch_skill" if skill else "update_self",
                kind="skill" if skill else "note",
                target=turn.skills_indexed[0] if skill else "strategies",
                before="a",
                after="b",
            )
        )
    return out, len(ended)


def best(call, times: int = 5) -> float:
    runs = []
    for _ in range(times):
        start = time.perf_counter()
        call()
        runs.append(time.perf_counter() - start)
    return min(runs)


def main() -> None:
    workspace = Workspace.open(Path(sys.argv[1]))
    scan = AgentScan(workspace.agent(workspace.agent_ids()[0]), workspace.settings)
    scan.refresh()
    changes, turns = changes_over(scan)
    effects = measure_effects(scan, changes)
    figures = {
        "measure_s": best(lambda: measure_effects(scan, changes)),
        "skill_metrics_s": best(lambda: skill_metrics(scan.records())),
        "turns": turns,
        "changes": len(changes),
        "measured": sum(1 for e in effects.values() if e.agent.window.status == "measured"),
    }
    sys.stdout.write(orjson.dumps(figures).decode() + "\n")


if __name__ == "__main__":
    main()
