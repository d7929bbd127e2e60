"""One picture of an agent: ``status``, ``status --json`` and the app all read
:meth:`AgentPicture.load` (core/picture.py), and what they show of an agent agrees."""

from __future__ import annotations

from pathlib import Path

import orjson

from orkas_tui.cli import main
from orkas_tui.core.picture import AgentPicture, AgentView
from orkas_tui.core.read.workspace import AGENT_AREAS, Workspace
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.cache import SKILLS
from tests.tui.conftest import settle

STAMP = "2026-11-30T09:00:00Z"


def _spy(monkeypatch) -> list[tuple[str, AgentView]]:
    """Every view :meth:`AgentPicture.load` hands out, with its agent (the real method runs)."""
    loads: list[tuple[str, AgentView]] = []
    original = AgentPicture.load

    def load(self: AgentPicture, areas=AGENT_AREAS) -> AgentView:
        view = original(self, areas)
        loads.append((self.id, view))
        return view

    monkeypatch.setattr(AgentPicture, "load", load)
    return loads


async def test_status_text_status_json_and_the_app_read_one_picture(app_factory, demo_ws: Path, capsys, monkeypatch) -> None:
    loads = _spy(monkeypatch)
    agents = Workspace(demo_ws).agent_ids()
    assert main(["status", "--workspace", str(demo_ws), "--now", STAMP]) == 0
    text = capsys.readouterr().out
    assert sorted(agent for agent, _ in loads) == agents  # each agent's section came from its picture
    loads.clear()
    assert main(["status", "--workspace", str(demo_ws), "--now", STAMP, "--json", "--all-turns"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert sorted(agent for agent, _ in loads) == agents
    loads.clear()

    app = app_factory()
    async with app.run_test() as pilot:
        await settle(pilot)
        assert set(app.views) == set(agents)
        assert all(any(app.views[agent] is view for _, view in loads) for agent in agents)  # the app shows what load made
        for row in doc["agents"]:
            view = app.views[row["id"]]
            assert view.triggering == row["triggering_turns"] == sum(t.summary.triggers for t in view.turns)
            assert view.turn_count == len(row["turns"]) == len(view.turns)
            assert [t.summary.turn for t in view.turns] == [t["turn"] for t in row["turns"]]
            assert [{**s.to_json(), "verdict": view.verdicts[s.skill.slug].to_json()} for s in view.skills] == row["skills"]
            assert f"{view.turn_count} turns, {view.triggering} triggering" in text


def test_the_skills_cache_holds_the_skills_not_printed_rows(demo_ws: Path, capsys) -> None:
    """The cache keeps what the skill store reads (every field, the body and version too), so the
    app reads it as status does; a row's use counts and verdict are never in it."""
    assert main(["status", "--workspace", str(demo_ws), "--now", STAMP]) == 0
    capsys.readouterr()
    workspace = Workspace(demo_ws)
    for agent in workspace.agent_ids():
        paths = workspace.agent(agent)
        kept = orjson.loads((paths.private / SKILLS).read_bytes().split(b" ", 1)[1])
        store = SkillStore(paths, workspace.settings).read_all()
        assert [skill["slug"] for skill in kept["skills"]] == [skill.slug for skill in store.skills]
        assert all("body" in skill and "version" in skill and "impressions" not in skill for skill in kept["skills"])
        view = AgentPicture(paths, workspace).load()
        assert [row.skill for row in view.skills] == store.skills
