"""System events: what orkas-tui itself did, appended to ``events.jsonl``.

These are the "system events" the reflection bundle interleaves with
conversations (skill created, patched, edited, deleted, evicted; self notes
updated; reflections) and what the Events tab shows.
"""

from __future__ import annotations

from datetime import datetime

from orkas_tui.core.disk.write import append_jsonl
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths

SOURCE = "orkas-tui"


def log_event(paths: AgentPaths, kind: str, now: datetime, **fields: object) -> dict:
    event: dict[str, object] = {"ts": format_ts(now), "type": kind, "source": SOURCE}
    event.update({k: v for k, v in fields.items() if v is not None})
    append_jsonl(paths.events, event)
    return event
