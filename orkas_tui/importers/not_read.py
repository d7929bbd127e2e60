"""What imports could not read, per agent: records of kinds the importers do not know, and malformed lines.

An importer never reads an unknown record as agent work (least of all as a success): it
counts it, by kind, and keeps the first example of each kind (its source and the head of
its line). Each import adds its counts to ``<agent>/.orkas/not-read.json``, which ``status``
shows (``not_read`` in ``--json``, read by ``core/read/not_read.py``), so a format a new version of the agent writes is seen the
day it appears, not only in one import's summary. A kind an older orkas-tui counted and this one knows
to carry no work (a bookkeeping record, a quiet event or block) is dropped from the counts at the
next import: nothing was missed, and a count that says otherwise is false.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.not_read import FILE, read_not_read
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.importers.writer import ImportStats

EXAMPLE_CHARS = 300


def example(source: str, raw: bytes) -> str:
    """An unknown record's example: where it was, and the head of its line."""
    return f"{source}: {raw[:EXAMPLE_CHARS].decode('utf-8', 'replace')}"


def record(paths: AgentPaths, stats: ImportStats, no_work: Callable[[str], bool]) -> None:
    """Add this import's unknown records and malformed lines to the agent's counts, less the kinds the
    format now reads as ``no_work`` (nothing to change: no write)."""
    doc = read_not_read(paths)
    kinds = doc["kinds"]
    settled = [kind for kind in kinds if no_work(kind)]
    if not stats.unknown and not stats.malformed and not settled:
        return
    for kind in settled:
        del kinds[kind]
    for kind, count in stats.unknown.items():
        entry = kinds.setdefault(kind, {"count": 0, "first": stats.examples.get(kind)})
        entry["count"] += count
    doc["malformed_lines"] += stats.malformed
    doc["records"] = sum(entry["count"] for entry in kinds.values())
    # not synced: counts to show, not records to keep (a power cut may lose one import's, never the history's)
    atomic_write(
        paths.private / FILE, orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n", durable=False
    )
