"""An operation's target and its diff, rendered (the texts are the core's:
:func:`~orkas_tui.core.store.op_preview.preview`, as the store applies it or applied it)."""

from __future__ import annotations

from rich.text import Text

from orkas_tui.core.store.op_preview import Preview
from orkas_tui.core.store.skills import slugify


def op_target(op: object) -> str:
    if not isinstance(op, dict):
        return "?"
    kind = op.get("op")
    if kind == "create_skill":
        return f"skills/{slugify(str(op.get('name', '')))}.md"
    if kind in ("patch_skill", "delete_skill"):
        return f"skills/{op.get('skill')}.md"
    if kind == "update_self":
        return f"self/{op.get('note')}.md"
    return "?"


def op_diff(preview: Preview) -> Text:
    """The preview's diff, coloured; its note (where the texts come from, or why there is none) first."""
    out = Text()
    if preview.note:
        out.append(preview.note + "\n", style="dim" if not preview.note.startswith("n/a") else "yellow")
    for line in preview.diff_lines():
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else ""
        out.append(line + "\n", style=style)
    if not preview.files and not preview.note:
        out.append("(no change to any file)", style="dim")
    return out
