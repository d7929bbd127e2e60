"""Keep importing while the agent writes: one import per batch of file changes.

Each batch imports the files that changed plus those whose last turn is still
open; a quiet tick imports only the latter, so a session's last turn ends once its
file has been quiet for the settle time, without rereading every session.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from orkas_tui.config import Settings
from orkas_tui.core.workspace import AgentPaths
from orkas_tui.importers.run import discover, import_files
from orkas_tui.importers.writer import ImportStats


def watch_import(paths: AgentPaths, settings: Settings, fmt: str, sources: list[Path], settle: float,
                 on_import: Callable[[ImportStats], None], stop: threading.Event | None = None, tick: float = 5.0) -> None:
    """Import now, then after every change under ``sources`` until Ctrl-C or ``stop`` is set."""
    targets = [s for s in sources if s.exists()]
    if not targets:
        raise FileNotFoundError(f"nothing to watch: none of {', '.join(map(str, sources))} exists")
    stats = import_files(paths, settings, fmt, discover(fmt, targets), settle)
    on_import(stats)
    running = {Path(p) for p in stats.running}
    for changes in watchfiles.watch(*targets, watch_filter=lambda _change, path: path.endswith(".jsonl"),
                                    stop_event=stop, yield_on_timeout=True, rust_timeout=int(tick * 1000),
                                    raise_interrupt=False):
        changed = {Path(p) for _change, p in changes if Path(p).is_file()}
        batch = sorted(changed | running)
        if not batch:
            continue
        stats = import_files(paths, settings, fmt, batch, settle)
        running = {Path(p) for p in stats.running}
        if stats.lines or stats.turns:
            on_import(stats)
