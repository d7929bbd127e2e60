"""The hook log: one JSON line per hook run or problem, in ``<agent>/.orkas/hooks.log``.

A hook prints nothing (Claude Code reads a Stop hook's stdout), so this file is where
what it did is said; ``hooks status`` and the app's Events tab read it. It is kept out
of ``events.jsonl`` on purpose: those events go to the model in a reflection's bundle,
these never do. A problem met before an agent is known goes to the workspace's own
``.orkas/hooks.log``. At :data:`LOG_MAX` bytes the log moves to ``hooks.log.1``.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.core.disk.write import append_bytes, atomic_write
from orkas_tui.core.read.timefmt import format_ts, utc_now

LOG_NAME = "hooks.log"
LOG_MAX = 1 << 20
TAIL_BYTES = 64 * 1024  # what ``read_log`` looks at: the last few hundred runs


def log_path(private: Path) -> Path:
    """The log in an agent's (or the workspace's) ``.orkas`` folder."""
    return private / LOG_NAME


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


def read_log(private: Path) -> list[tuple[int, dict]]:
    """(byte offset, entry) of the log's last lines, oldest first; lines that do not parse are left out."""
    try:
        with open_regular(log_path(private)) as handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - TAIL_BYTES)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return []
    if start:
        cut = data.find(b"\n") + 1  # the first line may be a part of one
        data, start = data[cut:], start + cut
    entries, offset = [], start
    for raw in data.splitlines(keepends=True):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            entries.append((offset, value))
        offset += len(raw)
    return entries


SEEN_NAME = "hooks.seen"  # when a person last looked at the agent's Events tab: problems after it are news


def seen_at(private: Path) -> str | None:
    """The time the log was last looked at (RFC 3339), or ``None``: never."""
    try:
        with open_regular(private / SEEN_NAME) as handle:
            text = handle.read(64).decode("ascii", "replace").strip()
    except OSError:
        return None
    return text or None


def mark_seen(private: Path, at: str) -> None:
    atomic_write(private / SEEN_NAME, at + "\n")


def problems_since(entries: list[tuple[int, dict]], seen: str | None) -> int:
    """The hook problems logged after ``seen`` (all of them when never seen)."""
    return sum(
        1 for _, entry in entries if entry.get("type") == "hook_problem" and (seen is None or str(entry.get("ts") or "") > seen)
    )
