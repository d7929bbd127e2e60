"""What imports could not read, per agent (``<agent>/.orkas/not-read.json``): the one reader every view uses.

The importers write it (``importers/not_read.py``): records of kinds they do not know, by kind,
with the first example of each, and malformed lines. Here so that ``status`` reads it without
importing the importers.
"""

from __future__ import annotations

from orkas_tui.core.disk.confine import read_json_object
from orkas_tui.core.read.workspace import AgentPaths

FILE = "not-read.json"


def read_not_read(paths: AgentPaths) -> dict:
    """The agent's counts: ``records`` of unknown kinds, by kind (``count`` and the ``first`` example), and the
    ``malformed_lines``; all zero when no import found any (or the file is unreadable)."""
    doc = read_json_object(paths.private / FILE)
    kinds = doc.get("kinds")
    kinds = kinds if isinstance(kinds, dict) else {}
    clean = {
        str(kind): {"count": entry["count"], "first": entry.get("first") if isinstance(entry.get("first"), str) else None}
        for kind, entry in kinds.items()
        if isinstance(entry, dict) and isinstance(entry.get("count"), int)
    }
    malformed = doc.get("malformed_lines")
    return {
        "records": sum(entry["count"] for entry in clean.values()),
        "kinds": clean,
        "malformed_lines": malformed if isinstance(malformed, int) else 0,
    }
