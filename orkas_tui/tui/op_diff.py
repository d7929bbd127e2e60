"""An operation shown as a diff against the file as it is now (rendering only: the core
applies operations; this reads the current text and shows what the operation asks for)."""

from __future__ import annotations

import difflib

from rich.text import Text

from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.skills import SkillError, SkillStore, slugify


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


def _before_after(op: dict, store: SkillStore, notes: SelfNotes) -> tuple[str, str]:
    kind = op.get("op")
    if kind == "create_skill":
        head = f"name: {op.get('name', '')}\ndescription: {op.get('description', '')}\n\n"
        return "", head + str(op.get("body", ""))
    if kind == "update_self":
        try:
            return notes.read(str(op.get("note"))).text, str(op.get("content", ""))
        except ValueError:
            return "", str(op.get("content", ""))
    try:
        body = store.get(str(op.get("skill"))).body
    except SkillError:
        body = ""
    if kind == "delete_skill":
        return body, ""
    find, replace = str(op.get("find", "")), str(op.get("replace", ""))
    return body, body.replace(find, replace, 1) if find and find in body else body


def op_diff(op: object, store: SkillStore, notes: SelfNotes) -> Text:
    """A coloured unified diff (file I/O: call from a worker)."""
    if not isinstance(op, dict):
        return Text(repr(op))
    before, after = _before_after(op, store, notes)
    target = op_target(op)
    out = Text()
    if op.get("op") == "delete_skill":
        out.append(f"reason: {op.get('reason', '')}\n", style="italic")
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), f"a/{target}", f"b/{target}", lineterm="", n=3)
    for line in lines:
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else ""
        out.append(line + "\n", style=style)
    return out if out.plain.strip() else Text("(no change to the current file)", style="dim")
