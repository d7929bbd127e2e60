"""The hook log read back: what the hooks did and what went wrong, in ``<agent>/.orkas/hooks.log``.

The hooks write it (:mod:`orkas_tui.importers.hook_log`); ``hooks status`` and the picture of
an agent (the app's Events tab) read it here. It is kept out of ``events.jsonl`` on purpose:
those events go to the model in a reflection's bundle, these never do.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import open_regular

LOG_NAME = "hooks.log"
TAIL_BYTES = 64 * 1024  # what ``read_log`` looks at: the last few hundred runs
SEEN_NAME = "hooks.seen"  # when a person last looked at the agent's Events tab: problems after it are news


def log_path(private: Path) -> Path:
    """The log in an agent's (or the workspace's) ``.orkas`` folder."""
    return private / LOG_NAME


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


def seen_at(private: Path) -> str | None:
    """The time the log was last looked at (RFC 3339), or ``None``: never."""
    try:
        with open_regular(private / SEEN_NAME) as handle:
            text = handle.read(64).decode("ascii", "replace").strip()
    except OSError:
        return None
    return text or None


def problems_since(entries: list[tuple[int, dict]], seen: str | None) -> int:
    """The hook problems logged after ``seen`` (all of them when never seen)."""
    return sum(
        1 for _, entry in entries if entry.get("type") == "hook_problem" and (seen is None or str(entry.get("ts") or "") > seen)
    )
