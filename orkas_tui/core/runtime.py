"""The API an agent runtime calls to adopt a workspace in a few lines.

    from orkas_tui.core.runtime import AgentRuntime

    agent = AgentRuntime("~/.orkas", "coder")
    system_prompt = base_prompt + agent.system_prompt()
    conv = agent.conversation("2026-11-30-a")
    conv.start_turn()                       # indexes every current skill
    conv.user("deploy the docs")
    call = conv.tool_call("bash", {"cmd": "make docs"})
    conv.tool_result(call, ok=False, error="exit 2: missing target")
    skill = conv.read_skill("docs-deploy")  # logs skill_read, sets lastUsedAt
    conv.end_turn("ok")

Events are appended in the spec's format, one ``write`` per line, so a reader
tailing the file never sees half an event from this writer.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from orkas_tui.core.disk.write import append_jsonl
from orkas_tui.core.read.settings import Settings, load_settings
from orkas_tui.core.read.timefmt import format_ts, utc_now
from orkas_tui.core.read.workspace import AGENT_ID, AgentPaths, WorkspaceError
from orkas_tui.core.store.notes import SelfNotes, prompt_block
from orkas_tui.core.store.skills import Skill, SkillStore

Clock = Callable[[], datetime]


class AgentRuntime:
    def __init__(self, root: str | os.PathLike, agent_id: str, clock: Clock = utc_now, settings: Settings | None = None) -> None:
        if not AGENT_ID.match(agent_id):
            raise WorkspaceError(f"not a valid agent id: {agent_id!r}")
        root_path = Path(root).expanduser()
        self.paths = AgentPaths(root_path / "agents" / agent_id)
        self.paths.conversations.mkdir(parents=True, exist_ok=True)
        self.settings = settings if settings is not None else load_settings(root_path)
        self.clock = clock
        self.skills = SkillStore(self.paths, self.settings)
        self.notes = SelfNotes(self.paths, self.settings)

    def skill_index(self) -> list[Skill]:
        """The skills to list in this turn's system prompt."""
        return self.skills.load_all()[0]

    def read_skill(self, slug: str) -> Skill:
        """Read a skill for the agent; sets its ``lastUsedAt``."""
        return self.skills.read(slug, self.clock())

    def system_prompt(self) -> str:
        """Self notes plus the skill index, to add to the system prompt."""
        return prompt_block(self.notes, self.skill_index())

    def conversation(self, conversation_id: str) -> Conversation:
        return Conversation(self, conversation_id)


class Conversation:
    """Appends one conversation's events to ``conversations/<id>.jsonl``."""

    def __init__(self, runtime: AgentRuntime, conversation_id: str) -> None:
        if not AGENT_ID.match(conversation_id) and not _safe_stem(conversation_id):
            raise WorkspaceError(f"not a safe conversation id: {conversation_id!r}")
        self.runtime = runtime
        self.path = runtime.paths.conversations / f"{conversation_id}.jsonl"
        self.turn_id: str | None = None
        self._turns = 0
        self._calls = 0

    def emit(self, kind: str, **fields: object) -> dict:
        event: dict[str, object] = {"ts": format_ts(self.runtime.clock()), "type": kind}
        event.update(fields)
        append_jsonl(self.path, event, sync=False)
        return event

    def start_turn(self, turn_id: str | None = None, skills_indexed: list[str] | None = None) -> str:
        self._turns += 1
        self.turn_id = turn_id or f"t{self._turns}"
        if skills_indexed is None:
            skills_indexed = [s.slug for s in self.runtime.skill_index()]
        self.emit("turn_start", turn=self.turn_id, skills_indexed=skills_indexed)
        return self.turn_id

    def user(self, text: str) -> None:
        self.emit("user", text=text)

    def assistant(self, text: str) -> None:
        self.emit("assistant", text=text)

    def tool_call(self, name: str, args: dict | None = None, call_id: str | None = None) -> str:
        self._calls += 1
        call_id = call_id or f"c{self._calls}"
        self.emit("tool_call", id=call_id, name=name, args=args or {})
        return call_id

    def tool_result(
        self,
        call_id: str,
        ok: bool = True,
        error: str | None = None,
        status: int | None = None,
        transient: bool | None = None,
        output: str | None = None,
    ) -> None:
        fields: dict[str, object] = {"id": call_id, "ok": ok}
        for key, value in (("error", error), ("status", status), ("transient", transient), ("output", output)):
            if value is not None:
                fields[key] = value
        self.emit("tool_result", **fields)

    def read_skill(self, slug: str) -> Skill:
        skill = self.runtime.read_skill(slug)
        self.emit("skill_read", skill=slug)
        return skill

    def end_turn(self, status: str = "ok", error: str | None = None, transient: bool | None = None) -> None:
        fields: dict[str, object] = {"turn": self.turn_id, "status": status}
        if error is not None:
            fields["error"] = error
        if transient is not None:
            fields["transient"] = transient
        self.emit("turn_end", **fields)

    def output_edited(self, turn_id: str | None = None) -> None:
        self.emit("output_edited", turn=turn_id or self.turn_id)


def _safe_stem(value: str) -> bool:
    return bool(value) and len(value) <= 128 and all(c.isalnum() or c in "-_." for c in value) and not value.startswith(".")
