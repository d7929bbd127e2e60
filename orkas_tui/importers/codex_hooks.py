"""Installing orkas-tui's Codex hooks (``SessionStart``, ``Stop``, ``SessionEnd``), migrating an earlier ``notify``.

Codex finds hooks beside each config layer, in ``hooks.json`` and in inline ``[hooks]``
tables of ``config.toml``, and warns when one layer has both; so they go into ``hooks.json``
when the person keeps one there, else into ``config.toml`` (docs/hooks.md).

- ``config.toml`` is edited as text, so every byte of the person's stays: our tables go in
  one block at the end, between two marker comments, and uninstall removes exactly that
  block and the one newline put before it. Every edit is checked with ``tomllib``: the file
  must parse to the same settings with only our hooks added or removed (and our ``notify``).
- ``notify``: the line an earlier orkas-tui install wrote is removed, and a line of the
  person's that it had commented out is put back; someone else's ``notify`` stays.
- ``hooks.json`` gets the JSON edit of Claude Code's settings (:mod:`.hook_settings`).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import tomllib
from pathlib import Path

from orkas_tui.importers import codex
from orkas_tui.importers.hook_settings import (
    Edit,
    HookError,
    command_words,
    is_ours,
    json_install,
    json_installed,
    json_uninstall,
    load_toml,
    read_settings,
)

# Seconds Codex gives each hook: SessionEnd is capped at 3 (a longer one draws a warning at every start).
EVENTS = {"SessionStart": 10, "Stop": 10, "SessionEnd": 3}
BEGIN = "# >>> orkas-tui hooks (`orkas-tui hooks uninstall codex` removes this block)\n"
END = "# <<< orkas-tui hooks\n"
HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*[A-Za-z0-9_\"'-][^\]\n]*\]\]?[ \t]*(?:#.*)?$", re.M)
NOTIFY = re.compile(r"^notify[ \t]*=.*\n?", re.M)
REPLACED = "# orkas-tui replaced: "  # an earlier install's --force kept the person's notify so


def config_path() -> Path:
    return codex.default_sources(Path.home())[0].parent / "config.toml"


def hooks_json_path() -> Path:
    return config_path().parent / "hooks.json"


def uses_hooks_json() -> bool:
    return os.path.lexists(hooks_json_path())


def install(words: list[str]) -> list[Edit]:
    """The edits that install our hooks: ``config.toml`` (our notify removed; our block, unless ``hooks.json``
    takes the hooks) and ``hooks.json`` when it exists. All are computed, and so checked, before any is written."""
    command = shlex.join(words)
    real, data, version = read_settings(config_path())
    text, parsed = load_toml(real, data)
    new = _without_notify(real, text, parsed)
    edits = []
    if uses_hooks_json():
        edits.append(json_install(hooks_json_path(), codex.NAME, command, EVENTS))
        new, expected = _without_block(new), []
    else:
        found = _block(new)
        block = _block_text(command)
        if found:
            new = new[: found[0]] + block + new[found[1] :]
        else:
            new = new + ("\n" if new else "") + block
        expected = [f"{event}: {command}" for event in EVENTS]
    _check(real, parsed, new, expected)
    return [Edit(real, data, new.encode(), version), *edits]


def uninstall() -> list[Edit]:
    """The edits that remove our block, our ``notify`` and our entries of ``hooks.json``: nothing else."""
    real, data, version = read_settings(config_path())
    text, parsed = load_toml(real, data)
    new = _without_block(_without_notify(real, text, parsed))
    _check(real, parsed, new, [])
    edits = [Edit(real, data, new.encode() if data is not None else b"", version)]
    if uses_hooks_json():
        edits.append(json_uninstall(hooks_json_path(), codex.NAME))
    return edits


def installed() -> dict[str, list[str]]:
    """What is installed where: our hooks in ``config.toml`` and in ``hooks.json``, an earlier install's ``notify``."""
    try:
        real, data, _version = read_settings(config_path())
        parsed = load_toml(real, data)[1]
    except (OSError, HookError):
        parsed = {}
    notify = parsed.get("notify")
    return {
        "config.toml": _ours(parsed),
        "hooks.json": json_installed(hooks_json_path(), codex.NAME) if uses_hooks_json() else [],
        "notify": [shlex.join(notify)] if isinstance(notify, list) and is_ours(notify, codex.NAME) else [],
    }


def someone_elses_notify() -> list[str] | None:
    """A ``notify`` program that is not orkas-tui's: Codex still runs it, so install names it."""
    try:
        real, data, _version = read_settings(config_path())
        notify = load_toml(real, data)[1].get("notify")
    except (OSError, HookError):
        return None
    return notify if notify is not None and not is_ours(notify, codex.NAME) else None


def _block_text(command: str) -> str:
    tables = [
        f'[[hooks.{event}]]\n[[hooks.{event}.hooks]]\ntype = "command"\ncommand = {_toml_string(command)}\ntimeout = {timeout}\n'
        for event, timeout in EVENTS.items()
    ]
    return BEGIN + "\n".join(tables) + END


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's (``\\uXXXX`` too)."""
    return json.dumps(text, ensure_ascii=False)


def _block(text: str) -> tuple[int, int] | None:
    """Where our block is (its first and past its last character), if the file has one."""
    start = text.find(BEGIN)
    while start > 0 and text[start - 1] != "\n":
        start = text.find(BEGIN, start + 1)
    if start < 0:
        return None
    end = text.find(END.rstrip("\n"), start)
    if end < 0:
        return None
    end += len(END) - (0 if text.startswith(END, end) else 1)
    return start, end


def _without_block(text: str) -> str:
    """``text`` without our block and the newline install put before it."""
    found = _block(text)
    if found is None:
        return text
    start, end = found
    start -= 1 if text[:start].endswith("\n") and start > 0 else 0
    return text[:start] + text[end:]


def _without_notify(path: Path, text: str, parsed: dict) -> str:
    """``text`` without the ``notify`` line an earlier install wrote (the person's line it kept put back)."""
    notify = parsed.get("notify")
    if not is_ours(notify, codex.NAME):
        return text
    found = NOTIFY.search(text, 0, _top(text))
    if found is None or _single(found.group()) != notify:
        raise HookError(f"{path}: orkas-tui's notify spans several lines; remove it by hand, then run this again")
    rest = text[found.end() :]
    kept = rest.split("\n", 1)[0] if rest.startswith(REPLACED) else None
    if kept is None:
        return text[: found.start()] + rest
    return text[: found.start()] + kept[len(REPLACED) :] + "\n" + rest[len(kept) + 1 :]


def _top(text: str) -> int:
    """Where the top-level keys end: the first table header, else the end of the file."""
    header = HEADER.search(text)
    return header.start() if header else len(text)


def _single(line: str) -> object:
    try:
        return tomllib.loads(line).get("notify")
    except tomllib.TOMLDecodeError:
        return None


def _ours(parsed: dict) -> list[str]:
    """Our commands in parsed settings, as ``Event: command``."""
    hooks = parsed.get("hooks")
    found = []
    for event, groups in (hooks if isinstance(hooks, dict) else {}).items():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, dict) and is_ours(command_words(entry.get("command")), codex.NAME):
                    found.append(f"{event}: {entry['command']}")
    return found


def _strip(parsed: dict) -> dict:
    """Parsed settings without anything of ours: what every edit must leave as it was."""
    rest = copy.deepcopy(parsed)
    rest.pop("notify", None)  # checked on its own: ours goes, and a line of theirs that ours had kept comes back
    hooks = rest.get("hooks")
    if not isinstance(hooks, dict):
        return rest
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            entries = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(entries, list):
                left = [e for e in entries if not (isinstance(e, dict) and is_ours(command_words(e.get("command")), codex.NAME))]
                if not left and entries:
                    continue
                group["hooks"] = left
            kept.append(group)
        hooks[event] = kept
        if not kept and groups:
            del hooks[event]
    if not hooks:
        del rest["hooks"]
    return rest


def _check(path: Path, before: dict, text: str, expected: list[str]) -> None:
    """The edited text must parse to the same settings with exactly ``expected`` of ours."""
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HookError(f"{path}: cannot be edited safely ({exc}); left untouched (docs/hooks.md shows the tables)") from None
    notify = before.get("notify")
    kept = after.get("notify") == notify if not is_ours(notify, codex.NAME) else not is_ours(after.get("notify"), codex.NAME)
    if _strip(after) != _strip(before) or sorted(_ours(after)) != sorted(expected) or not kept:
        raise HookError(f"{path}: has orkas-tui hooks outside its block or cannot be edited safely; left untouched")
