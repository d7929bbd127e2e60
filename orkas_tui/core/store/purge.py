"""Take back what orkas-tui exported for an agent: every ``SKILL.md`` nobody changed since, and the notes block.

An export records each ``SKILL.md`` it wrote, with the version it wrote, in the agent's
``.orkas/exports/<target>.json`` (``export.py``). :func:`purge_exports` removes a file only
while it still has that version (and its skill folder once empty); a file edited since is
kept and listed, one already gone is forgotten. The notes block between this agent's
markers in ``CLAUDE.md`` / ``AGENTS.md`` goes when it still says what the notes say (bytes
outside the markers stay; a file that held only the block goes with it); a block that says
anything else is kept and listed. Nothing is removed through a link: a link is removed as a
link, never what it points at. ``hooks uninstall --purge`` calls it for the uninstalled format.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import atomic_write, file_lock
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.store.export import load_state, markers, memory_path, notes_block, recorded_version
from orkas_tui.core.store.notes import SelfNotes


@dataclass
class PurgeResult:
    removed: list[str] = field(default_factory=list)  # files (and notes blocks: "<file> (notes block)") taken back
    kept: list[str] = field(default_factory=list)  # "<file>: why", changed since orkas-tui wrote it
    forgotten: list[str] = field(default_factory=list)  # recorded, already gone: dropped from the record

    def lines(self, dry_run: bool = False) -> list[str]:
        verb = "would remove" if dry_run else "removed"
        return [f"{verb} {path}" for path in self.removed] + [f"kept {why}" for why in self.kept]

    def to_json(self) -> dict:
        return dict(self.__dict__)


def purge_exports(paths: AgentPaths, settings: Settings, target: str, dry_run: bool = False) -> PurgeResult:
    """Remove what the agent's exports to ``target`` wrote and nobody changed since (under its export lock)."""
    lock_dir = paths.private / "exports"
    state_path = lock_dir / f"{target}.json"
    result = PurgeResult()
    if not state_path.exists() and paths.id not in settings.agents:
        return result
    with file_lock(lock_dir / "export.lock"):
        state = load_state(state_path)
        folders: set[Path] = set()
        for name, entry in sorted(state.items()):
            path = Path(name)
            folders.add(path.parent.parent)
            try:
                version = read_versioned(path)[1]
            except OSError as exc:  # not a regular file any more: not ours to remove
                result.kept.append(f"{path}: {exc.strerror or exc}")
                continue
            if version is None:
                result.forgotten.append(name)
            elif version != recorded_version(entry):
                result.kept.append(f"{path}: edited since orkas-tui wrote it")
                continue
            else:
                result.removed.append(name)
                if not dry_run:
                    os.unlink(path)
                    with contextlib.suppress(OSError):  # the skill's folder, once nothing else is in it
                        os.rmdir(path.parent)
            if not dry_run:
                del state[name]
        for memory in _memory_files(paths, settings, target, folders):
            _purge_block(paths, settings, memory, lock_dir, result, dry_run)
        if not dry_run and state != load_state(state_path):
            atomic_write(state_path, orjson.dumps(state, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return result


def purge_workspace(workspace: Workspace, target: str, dry_run: bool = False) -> dict[str, PurgeResult]:
    """:func:`purge_exports` for every agent of the workspace; agents with nothing exported are left out."""
    found = {}
    for agent in workspace.agent_ids():
        result = purge_exports(workspace.agent(agent), workspace.settings, target, dry_run)
        if result.removed or result.kept or result.forgotten:
            found[agent] = result
    return found


def _memory_files(paths: AgentPaths, settings: Settings, target: str, folders: set[Path]) -> list[Path]:
    """Where the notes block may be: the agent's link in ``orkas.toml``, and beside each folder skills went to."""
    found = [memory_path(target, folder) for folder in folders]
    link = settings.agents.get(paths.id)
    if link is not None and link.format == target and (link.export_memory or link.export_skills):
        found.append(link.export_memory or memory_path(target, link.export_skills))  # type: ignore[arg-type]
    return list(dict.fromkeys(p.expanduser() for p in found))


def _purge_block(paths: AgentPaths, settings: Settings, memory: Path, lock_dir: Path, result: PurgeResult, dry_run: bool) -> None:
    try:
        data, version = read_versioned(memory)
        text = (data or b"").decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return  # the export refuses such a file too: there is no block of ours in it
    begin, end = markers(paths.id)
    start = text.find(begin)
    stop = text.find(end, start) if start >= 0 else -1
    if stop < 0:
        return
    if text[start + len(begin) : stop].strip("\n") != notes_block(SelfNotes(paths, settings)):
        result.kept.append(f"{memory} (notes block): it says something else than the agent's notes")
        return
    before, after = text[:start], text[stop + len(end) :].removeprefix("\n")
    if not after and before.endswith("\n\n"):
        before = before[:-1]  # the blank line the export put before the block
    result.removed.append(f"{memory} (notes block)")
    if dry_run:
        return
    if not (before + after).strip():
        os.unlink(memory)  # the file held nothing but the block
    else:
        atomic_write(memory, before + after, expected=version, lock_dir=lock_dir)
