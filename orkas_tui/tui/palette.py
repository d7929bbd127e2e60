"""Command palette provider: jump to an agent or open a skill of the selected agent by name.

Each command posts a message to the app (an intent, or a request to select an agent); none calls the app."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from orkas_tui.tui.intents import OpenSkill
from orkas_tui.tui.messages import SelectAgent

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp


class AgentsAndSkills(Provider):
    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app = cast("OrkasApp", self.app)  # the provider of this app's palette (Textual types it as any App)
        commands: list[tuple[str, str, Callable[[], Any]]] = []
        for agent_id, agent in sorted(app.views.items()):
            commands.append(
                (f"Agent: {agent_id}", agent.meta.description or agent.name, partial(app.post_message, SelectAgent(agent_id)))
            )
        view = app.views.get(app.agent) if app.agent else None
        if view is not None:
            for row in view.skills:
                commands.append(
                    (
                        f"Skill: {row.skill.slug}",
                        row.skill.description,
                        partial(app.post_message, OpenSkill(view.id, row.skill.slug)),
                    )
                )
        return commands

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
