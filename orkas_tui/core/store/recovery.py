"""Finishing what a crash interrupted, before any command reads: here, apart from the apply machinery.

``status`` and the app call :func:`recover_workspace` first. With no journal on disk (the usual
case: only a crash leaves one) it costs one ``stat`` per agent and imports nothing more: the code that
applies, exports and reads proposals (``store/changes.py``) is loaded only for an agent
whose journal says an apply or a revert was cut short.
"""

from __future__ import annotations

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.journal import journal_path


def recover_workspace(workspace: Workspace) -> list[str]:
    """:func:`~orkas_tui.core.store.changes.recover_agent` for every agent with a journal; one line
    per agent where something was done."""
    lines = []
    for agent_id in workspace.agent_ids():
        paths = workspace.agent(agent_id)
        if not journal_path(paths).exists():
            continue
        from orkas_tui.core.store.changes import recover_agent

        if line := recover_agent(paths):
            lines.append(line)
    return lines
