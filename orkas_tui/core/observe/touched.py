"""The files a tool call changes: what a lesson's evidence is about when the agent edited files.

Claude Code's editing tools name their file (``file_path``; ``notebook_path`` for a notebook);
Codex's ``apply_patch`` names each file in its patch (``*** Update File: path``, ``Add``,
``Delete``), in whichever argument carries the patch. A read is not an edit: a lesson about
reading a file is not about that file's folder.
"""

from __future__ import annotations

import re

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$", re.MULTILINE)


def edited_files(name: object, args: object) -> list[str]:
    """The paths a call edits, as written in it (absolute, or relative to the session's folder)."""
    if not isinstance(args, dict):
        return []
    if name in EDIT_TOOLS:
        path = args.get("file_path") or args.get("notebook_path")
        return [path] if isinstance(path, str) and path.strip() else []
    found: list[str] = []
    for value in args.values():
        texts = value if isinstance(value, list) else [value]
        for text in texts:
            if isinstance(text, str) and "*** " in text:
                found += PATCH_FILE.findall(text)
    return list(dict.fromkeys(found))
