"""Which agent and which area a changed path belongs to, and the watch loop itself.

The watcher only says *what* changed; the app re-reads just that agent's areas in a
thread worker (new bytes only, through :class:`~orkas_tui.core.summary.scan.AgentScan`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from pathlib import Path

from watchfiles import Change, awatch

from orkas_tui.core.read.workspace import PRIVATE_NAME, WHOLE_WORKSPACE, Area, area_at
from orkas_tui.core.summary import cache

DEBOUNCE_MS = 60  # watchfiles' default 1,600 ms makes a live view feel dead
STEP_MS = 10  # a lone write is yielded after one quiet step: 10 to 20 ms
ALL_AGENTS = WHOLE_WORKSPACE

OWN_CACHES = {(cache.NAME,), (cache.SKILLS,)}


def classify(root: Path, path: Path) -> tuple[str, Area] | None:
    """``(agent_id, area)`` for a path under ``root`` (the workspace's layout: :func:`area_at`); ``None``
    for what the app ignores: a write's temporary file or lock, and the caches the app and status write."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return None
    name = parts[-1] if parts else ""
    if (name.startswith(".") and name.endswith(".tmp")) or name == ".orkas-write.lock":
        return None
    if parts[3:] in OWN_CACHES and parts[2:3] == (PRIVATE_NAME,):  # written by the app's own scans and by status
        return None
    return area_at(parts)


def exported(exports: dict[Path, str], path: Path) -> tuple[str, Area] | None:
    """A ``SKILL.md`` in the folder an agent's skills are exported to (``exports``: folder -> agent):
    someone edited an exported skill, which the Skills tab flags (read with the agent's skills)."""
    for folder, agent in exports.items():
        if path.name == "SKILL.md" and path.is_relative_to(folder):
            return agent, Area.SKILLS
    return None


def group_changes(root: Path, paths: Iterable[Path], exports: dict[Path, str] | None = None) -> dict[str, set[Area]]:
    """Agent id -> the set of areas that changed in one batch."""
    touched: dict[str, set[Area]] = {}
    for path in paths:
        hit = classify(root, path) or (exported(exports, path) if exports else None)
        if hit is not None:
            touched.setdefault(hit[0], set()).add(hit[1])
    return touched


async def watch_workspace(
    root: Path, stop_event=None, exports: dict[Path, str] | None = None
) -> AsyncIterator[dict[str, set[Area]]]:
    """Yield grouped changes under ``root``, and under the linked agents' export folders that exist
    (``exports``: folder -> agent), as they happen, debounced to ``DEBOUNCE_MS``."""
    folders = {folder: agent for folder, agent in (exports or {}).items() if folder.is_dir() and not folder.is_relative_to(root)}
    paths = [root, *folders]
    async for changes in awatch(*paths, debounce=DEBOUNCE_MS, step=STEP_MS, stop_event=stop_event, watch_filter=_keep):
        grouped = group_changes(root, (Path(p) for _, p in changes), folders)
        if grouped:
            yield grouped


def _keep(change: Change, path: str) -> bool:
    return not path.endswith((".tmp", ".lock"))
