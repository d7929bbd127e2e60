"""The hook log: one JSON line per hook run or problem, in ``<agent>/.orkas/hooks.log``.

A hook prints nothing (Claude Code reads a Stop hook's stdout), so this file is where
what it did is said; ``hooks status`` and the app's Events tab read it
(:mod:`orkas_tui.core.read.hook_log`). It is kept out
of ``events.jsonl`` on purpose: those events go to the model in a reflection's bundle,
these never do. A problem met before an agent is known goes to the workspace's own
``.orkas/hooks.log``. At :data:`LOG_MAX` bytes the log moves to ``hooks.log.1``.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from orkas_tui.core.disk.write import append_bytes, atomic_write
from orkas_tui.core.read.hook_log import LOG_NAME, SEEN_NAME, log_path
from orkas_tui.core.read.timefmt import format_ts, utc_now

LOG_MAX = 1 << 20


def append_log(private: Path, kind: str, **fields: object) -> None:
    """One line ``{"ts", "type": "hook_<kind>", "source": "hook", ...}``: the shape of an event, so the Events tab shows it."""
    path = log_path(private)
    line = orjson.dumps({"ts": format_ts(utc_now()), "type": f"hook_{kind}", "source": "hook", **fields}) + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if os.stat(path).st_size > LOG_MAX:
            os.replace(path, path.with_name(LOG_NAME + ".1"))
    except FileNotFoundError:
        pass
    append_bytes(path, line, sync=False)


def mark_seen(private: Path, at: str) -> None:
    atomic_write(private / SEEN_NAME, at + "\n")
