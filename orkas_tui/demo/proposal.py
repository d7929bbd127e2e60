"""One pending proposal for the demo workspace, filed through the core's ``create_proposal``,
so ``--demo`` and the screenshots show the Proposals tab with something to review
(the demo generator writes no reflection output of its own)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.proposals import Proposal, create_proposal
from orkas_tui.core.store.skills import SkillStore

AGENT = "coder"


def add_demo_proposal(root: Path, now: datetime) -> Proposal:
    workspace = Workspace.open(root)
    paths = workspace.agent(AGENT)
    store = SkillStore(paths, workspace.settings)
    skill = store.get(store.slugs()[0])
    first_line = next(line for line in skill.body.splitlines() if line.strip())
    operations = [
        {
            "op": "patch_skill",
            "skill": skill.slug,
            "find": first_line,
            "replace": first_line + "\nWhen a command fails, always read the whole error before retrying.",
        },
        {
            "op": "create_skill",
            "name": "Run the tests before claiming success",
            "description": "When a change touches code, always run the unit tests before saying it works",
            "body": "1. Run `pnpm test` (or `pytest -q` in Python packages).\n2. Quote the summary line in the reply.\n",
        },
        {
            "op": "update_self",
            "note": "strategies",
            "content": "- This user wants pnpm, never npm.\n- Never change a public API without asking first.\n",
        },
    ]
    usage = {"model": workspace.settings.model.name, "bundle_tokens": 4180, "redactions": 2}
    return create_proposal(
        paths,
        workspace.settings,
        "The user corrected package-manager and testing habits twice; record them as a patch, a new skill and a strategy.",
        operations,
        now,
        usage,
    )
