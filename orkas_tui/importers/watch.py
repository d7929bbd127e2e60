"""Keep importing while the agent writes: one import per batch of file changes.

Each batch imports the files that changed plus those whose last turn is still
open; a quiet tick imports only the latter, so a session's last turn ends once its
file has been quiet for the settle time, without rereading every session. Every
rule of a one-shot import holds, since each batch is one: the parser's state is
saved after each file, so a session appended in steps gives the same events as
one read whole. A new file is imported only if it is a transcript of the format.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.importers.run import discover, import_files, refusal
from orkas_tui.importers.writer import ImportStats


def watch_import(
    paths: AgentPaths,
    settings: Settings,
    fmt: str,
    sources: list[Path],
    settle: float,
    on_import: Callable[[ImportStats], None],
    stop: threading.Event | None = None,
    tick: float = 5.0,
    index: Callable[[str | None, str | None], list[str]] | None = None,
    total: ImportStats | None = None,
) -> None:
    """Import now, then after every change under ``sources`` until ``stop`` is set; ``total`` sums every batch.

    Ctrl-C raises ``KeyboardInterrupt`` to the caller (watchfiles' own warning line is not printed).
    """
    targets = [s for s in sources if s.exists()]
    if not targets:
        raise FileNotFoundError(f"nothing to watch: none of {', '.join(map(str, sources))} exists")
    accepted: set[Path] = set()

    def run(files: list[Path]) -> ImportStats:
        chosen = [p for p in files if p in accepted or refusal(fmt, p) is None]
        accepted.update(chosen)
        stats = import_files(paths, settings, fmt, chosen, settle, index=index)
        if total is not None:
            total.add(stats)
        return stats

    stats = run(discover(fmt, targets))
    on_import(stats)
    running = {Path(p) for p in stats.running}
    settled = False  # the first batch rereads every session: writes between the first import and the watch's start
    for changes in watchfiles.watch(
        *targets,
        watch_filter=lambda _change, path: path.endswith(".jsonl"),
        stop_event=stop,
        yield_on_timeout=True,
        rust_timeout=int(tick * 1000),
    ):
        changed = {Path(p) for _change, p in changes if Path(p).is_file()}
        if not settled:
            changed.update(discover(fmt, targets))
            settled = True
        batch = sorted(changed | running)
        if not batch:
            continue
        stats = run(batch)
        running = {Path(p) for p in stats.running}
        if stats.lines or stats.turns:
            on_import(stats)
