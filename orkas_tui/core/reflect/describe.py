"""One description of a conversation event: the line the model reads in the bundle and the
line a person reads in the app's transcript. A failed tool result or turn carries the
transient rule's verdict (the one the score counted), so both say "transient" alike."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from orkas_tui.core.observe.transient import ErrorVerdict, TransientRule
from orkas_tui.core.observe.turns import end_failure, tool_failure


@dataclass(frozen=True)
class Description:
    text: str
    output: str | None = None  # a tool's output, kept apart: the bundle cuts it before anything else
    error: ErrorVerdict | None = None  # a failed tool result or turn: transient or real, and why


def describe(event: dict, rule: TransientRule) -> Description:
    """The text of a conversation event, its tool output (if any) and, for a failure, its verdict."""
    kind = event["type"]
    if kind in ("user", "assistant"):
        return Description(str(event.get("text", "")))
    if kind == "turn_start":
        indexed = event.get("skills_indexed")
        listed = ", ".join(s for s in indexed if isinstance(s, str)) if isinstance(indexed, list) else ""
        return Description(f"turn {event.get('turn')} (skills indexed: {listed or 'none'})")
    if kind == "tool_call":
        args = orjson.dumps(event.get("args", {}), default=str).decode()
        return Description(f"{event.get('name')} {args} (call {event.get('id')})")
    if kind == "tool_result":
        output = event.get("output")
        output = output if isinstance(output, str) and output else None
        if event.get("ok") is True:
            return Description(f"ok (call {event.get('id')})", output)
        status = event.get("status")
        _, _, verdict = tool_failure(rule, event)
        label = "TRANSIENT error (the environment's, not the agent's)" if verdict.transient else "error"
        code = f" status {status}" if isinstance(status, int) else ""
        return Description(f"{label}{code} (call {event.get('id')}): {event.get('error', '')}", output, verdict)
    if kind == "skill_read":
        return Description(str(event.get("skill")))
    if kind == "turn_end":
        text = f"turn {event.get('turn')} ended {event.get('status')}"
        if ended := end_failure(rule, event):
            text += f" with a {'TRANSIENT (environment) ' if ended[1].transient else ''}error: {event.get('error', '')}"
            return Description(text, None, ended[1])
        return Description(text)
    if kind == "output_edited":
        return Description(f"the user edited the output of turn {event.get('turn')} by hand")
    return Description(fields_text(event, ("ts", "type")))


def fields_text(event: dict, drop: tuple[str, ...]) -> str:
    """An event's other fields as compact JSON (an event of a kind not described above)."""
    rest = {k: v for k, v in event.items() if k not in drop}
    return orjson.dumps(rest, default=str).decode() if rest else ""
