"""Installing the hooks: entries in Claude Code's ``settings.json`` (Codex's: :mod:`.codex_hooks`),
and the agent's link in ``orkas.toml``.

Each change is computed as an :class:`Edit` (the bytes before and after), shown as a diff
or written atomically, refused if the file changed since it was read. Only orkas-tui's own
entries are touched; they are recognised by their command: ``<…>/orkas-tui hook <format>``.

- ``settings.json``: only the text of its top-level ``hooks`` member changes (added after
  the last member; removed when orkas-tui's entries were all it held), and within it only
  the events and groups that change (groups appended or cut, events added or cut, with the
  file's indentation, 2 spaces when it cannot be seen); every other byte stays, so install
  then uninstall gives back the file byte for byte.
- The same JSON edit serves Codex's ``hooks.json``, which has the same ``hooks`` shape.
- ``orkas.toml`` gets ``[agents.<id>]`` appended when it has none; one already there is kept.

A settings file is refused, with one line naming it and nothing changed, when it is not
valid, read-only, or a link that leads out of the home folder (a link into it, as a
dotfiles repository makes, is followed and the file behind it written).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.settings import settings_path
from orkas_tui.core.store.first_run import SETTINGS_TEMPLATE, display_path
from orkas_tui.importers import claude_code
from orkas_tui.importers.skills import user_skill_dirs

PROGRAM = "orkas-tui"
HOOK_TIMEOUT_S = 10  # the agent's limit for our command; it returns in well under a second
# SessionStart catches up what a killed or skipped hook left; Stop after each answer; SessionEnd at the end.
CLAUDE_TIMEOUTS = {"SessionStart": HOOK_TIMEOUT_S, "Stop": HOOK_TIMEOUT_S, "SessionEnd": HOOK_TIMEOUT_S}
PLUGIN = "orkas-tui"  # the plugin's name in .claude-plugin/plugin.json, and so in ``enabledPlugins``
_WS = re.compile(r"[ \t\r\n]*")


class HookError(OrkasError, ValueError):
    """A settings file orkas-tui will not change: one line, exit 2, the file untouched."""


@dataclass
class Edit:
    """One file's change: ``before`` is ``None`` when it does not exist."""

    path: Path
    before: bytes | None
    after: bytes
    version: str | None

    @property
    def changed(self) -> bool:
        return self.after != (self.before or b"")

    def diff(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = self.after.decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, str(self.path), str(self.path)))

    def write(self, lock_dir: Path) -> None:
        """Atomically, refused (:class:`ConflictError`) if the file changed since it was read."""
        if self.changed:
            atomic_write(self.path, self.after, expected=self.version, lock_dir=lock_dir)


def program() -> str:
    """The absolute path of the running ``orkas-tui`` script (it works in sessions started with
    another PATH, e.g. from a desktop launcher), else plain ``orkas-tui`` found on PATH."""
    script = Path(sys.argv[0])
    if script.name == PROGRAM and script.is_file():
        return os.path.abspath(script)
    return PROGRAM


def hook_words(fmt: str, agent: str, workspace: Path | None) -> list[str]:
    """The hook's command line; ``workspace`` only when it is not where the commands look by default."""
    return [program(), "hook", fmt, "--agent", agent, *(["--workspace", str(workspace)] if workspace else [])]


def is_ours(words: object, fmt: str) -> bool:
    return (
        isinstance(words, list)
        and len(words) >= 3
        and all(isinstance(w, str) for w in words)
        and Path(words[0]).name == PROGRAM
        and words[1:3] == ["hook", fmt]
    )


def command_words(command: object) -> list[str]:
    try:
        return shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        return []


def read_settings(path: Path) -> tuple[Path, bytes | None, str | None]:
    """The file behind ``path``: a link into the home folder is followed (a settings file kept in a dotfiles
    repository stays there); one out of it, or a file that cannot be written, is refused."""
    named = Path(os.path.abspath(path.expanduser()))
    real = Path(os.path.realpath(named))
    home = Path(os.path.realpath(Path.home()))
    if real != named and not real.is_relative_to(home):
        raise HookError(f"{named}: a link to {real}, outside {home}; left untouched")
    data, version = read_versioned(real)
    if data is not None and not (os.access(real, os.W_OK) and os.stat(real).st_mode & 0o222):  # root may write anything
        raise HookError(f"{real}: read-only; left untouched")
    return real, data, version


# Claude Code: settings.json


def claude_settings_path(explicit: str | None) -> Path:
    return Path(explicit).expanduser() if explicit else claude_code.config_dir(Path.home()) / "settings.json"


def _load_json(path: Path, data: bytes | None) -> dict:
    if data is None:
        return {}
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise HookError(f"{path}: not valid JSON ({exc}); left untouched") from None
    if not isinstance(value, dict):
        raise HookError(f"{path}: not a JSON object; left untouched")
    return value


def _unit(like: bytes | None) -> str:
    """The file's indentation step (that of its first key), 2 spaces when it cannot be seen."""
    found = re.match(rb"\{[ \t]*\r?\n([ \t]+)\"", like or b"")
    return "  " if found is None else found.group(1).decode()


def _dump_json(value: object, unit: str, level: int = 0) -> str:
    indent: int | str = len(unit) if unit == " " * len(unit) else unit
    return json.dumps(value, indent=indent, ensure_ascii=False).replace("\n", "\n" + unit * level)


def _members(text: str, at: int | None = None) -> list[tuple[str, int, int, int]]:
    """The members of the JSON object (or the elements of the array, key ``""``) whose text starts at ``at`` (the
    root when ``None``): (key, where the member starts, where its value starts and ends)."""
    decoder, members = json.JSONDecoder(), []
    at = _WS.match(text, 0).end() if at is None else at  # type: ignore[union-attr]
    close = "}" if text[at] == "{" else "]"
    at = _WS.match(text, at + 1).end()  # type: ignore[union-attr]  # past "{" or "["
    while text[at : at + 1] not in (close, ""):
        key, start = "", at
        if close == "}":
            key, end = decoder.raw_decode(text, at)
            start = _WS.match(text, _WS.match(text, end).end() + 1).end()  # type: ignore[union-attr]  # past ":"
        _value, stop = decoder.raw_decode(text, start)
        members.append((key, at, start, stop))
        at = _WS.match(text, stop).end()  # type: ignore[union-attr]
        at = _WS.match(text, at + 1).end() if text[at : at + 1] == "," else at  # type: ignore[union-attr]
    return members


def _cut(text: str, members: list[tuple[str, int, int, int]], gone: set[int]) -> list[tuple[int, int, str]]:
    """The cuts that take the members ``gone`` out of their object or array, commas and line breaks with them:
    the inverse of :func:`_append`. At least one member stays."""
    cuts, first_kept = [], min(set(range(len(members))) - gone)
    for i in sorted(gone):
        if i > first_kept:
            cuts.append((members[i - 1][3], members[i][3], ""))
        elif i == 0:
            cuts.append((members[0][1], members[first_kept][1], ""))
    return cuts


def _append(members: list[tuple[str, int, int, int]], pieces: list[str], unit: str, level: int) -> tuple[int, int, str]:
    """The text that adds ``pieces`` after the last member (there is one), each on its own line."""
    end = members[-1][3]
    return end, end, "".join(f",\n{unit * level}{piece}" for piece in pieces)


def _splice_hooks(text: str, at: int, old: dict, new: dict, unit: str) -> list[tuple[int, int, str]] | None:
    """The cuts that turn the ``hooks`` object at ``at`` from ``old`` into ``new`` touching only the groups and
    events that changed, so their own formatting stays; ``None`` when the change is of another kind."""
    events = _members(text, at)
    if [key for key, *_ in events] != list(old) or not events:
        return None
    cuts, gone = [], {i for i, (key, *_rest) in enumerate(events) if key not in new}
    if len(gone) == len(events):
        return None
    cuts += _cut(text, events, gone)
    for key, _at, start, stop in events:
        if key not in new or new[key] == old[key]:
            continue
        before, after = old[key], new[key]
        if not (isinstance(before, list) and isinstance(after, list) and text[start] == "[" and before):
            cuts.append((start, stop, _dump_json(after, unit, 2)))
            continue
        groups = _members(text, start)
        if after[: len(before)] == before:
            cuts.append(_append(groups, [_dump_json(g, unit, 3) for g in after[len(before) :]], unit, 3))
        elif len(after) == len(before):
            cuts += [(g[2], g[3], _dump_json(a, unit, 3)) for g, b, a in zip(groups, before, after, strict=True) if a != b]
        elif after and _subsequence(after, before) is not None:
            cuts += _cut(text, groups, _subsequence(after, before) or set())
        else:
            cuts.append((start, stop, _dump_json(after, unit, 2)))
    added = [
        f"{json.dumps(key, ensure_ascii=False)}: {_dump_json(value, unit, 2)}" for key, value in new.items() if key not in old
    ]
    if added:
        cuts.append(_append(events, added, unit, 2))
    return cuts


def _subsequence(short: list, long: list) -> set[int] | None:
    """The indexes of ``long`` to drop to get ``short``, keeping order; ``None`` if it cannot be had so."""
    gone, i = set(), 0
    for j, item in enumerate(long):
        if i < len(short) and short[i] == item:
            i += 1
        else:
            gone.add(j)
    return gone if i == len(short) else None


def _with_hooks(data: bytes | None, settings: dict) -> bytes:
    """The file with only its ``hooks`` member changed to ``settings``' (added, replaced or removed): every
    other byte stays, and within ``hooks`` every event and group that did not change; the whole file is
    written anew only when that cannot be done."""
    unit, hooks = _unit(data), settings.get("hooks")
    text = (data or b"").decode("utf-8")
    new = None
    try:
        members = _members(text) if data is not None else []
        found = [i for i, member in enumerate(members) if member[0] == "hooks"]
        if found and hooks is not None:
            _key, _at, start, stop = members[found[-1]]
            old = json.loads(text[start:stop])
            cuts = _splice_hooks(text, start, old, hooks, unit) if isinstance(old, dict) and isinstance(hooks, dict) else None
            for begin, end, piece in sorted(cuts or [(start, stop, _dump_json(hooks, unit, 1))], reverse=True):
                text = text[:begin] + piece + text[end:]
            new = text
        elif found and len(members) > 1:
            new = "".join(piece for piece in _pieces(text, _cut(text, members, set(found))))
        elif not found and hooks is not None and members:
            begin, end, piece = _append(members, [f'"hooks": {_dump_json(hooks, unit, 1)}'], unit, 1)
            new = text[:begin] + piece + text[end:]
    except (ValueError, IndexError):  # a shape the scan does not follow (a byte-order mark, ...): written anew below
        new = None
    if new is None or json.loads(new) != settings:
        new = _dump_json(settings, unit) + ("\n" if data is None or data.endswith(b"\n") else "")
    return new.encode()


def _pieces(text: str, cuts: list[tuple[int, int, str]]) -> list[str]:
    """``text`` with the cuts made, in pieces."""
    pieces, at = [], 0
    for begin, end, piece in sorted(cuts):
        pieces += [text[at:begin], piece]
        at = end
    return [*pieces, text[at:]]


def _hook_groups(settings: dict, path: Path, create: bool) -> dict:
    hooks = settings.setdefault("hooks", {}) if create else settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookError(f'{path}: "hooks" is not an object; left untouched')
    return hooks


def json_install(path: Path, fmt: str, command: str, timeouts: dict[str, int]) -> Edit:
    """Add (or update in place) our command to each event of ``timeouts``; every other entry kept."""
    real, data, version = read_settings(path)
    settings = _load_json(real, data)
    hooks = _hook_groups(settings, real, create=True)
    for event, timeout in timeouts.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise HookError(f"{real}: hooks.{event} is not a list; left untouched")
        ours = [entry for entry in _entries(groups) if is_ours(command_words(entry.get("command")), fmt)]
        for entry in ours:
            entry["command"] = command
        if not ours:
            groups.append({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
    return Edit(real, data, _with_hooks(data, settings) if data is None or settings != json.loads(data) else data, version)


def json_uninstall(path: Path, fmt: str) -> Edit:
    """Remove our entries, and the groups, event lists and ``hooks`` object they leave empty."""
    real, data, version = read_settings(path)
    settings = _load_json(real, data)
    hooks = _hook_groups(settings, real, create=False)
    touched = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list) or not any(is_ours(command_words(e.get("command")), fmt) for e in _entries(groups)):
            continue
        touched = True
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                group["hooks"] = [
                    e for e in group["hooks"] if not (isinstance(e, dict) and is_ours(command_words(e.get("command")), fmt))
                ]
        hooks[event] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not hooks[event]:
            del hooks[event]
    if touched and "hooks" in settings and not hooks:  # a person's own empty "hooks" stays
        del settings["hooks"]
    if data is None or settings == json.loads(data):
        return Edit(real, data, data or b"", version)
    return Edit(real, data, _with_hooks(data, settings), version)


def json_installed(path: Path, fmt: str) -> list[str]:
    """Our commands in the file, one per event that has one (``[]``: not installed or unreadable)."""
    try:
        _real, data, _version = read_settings(path)
        hooks = _hook_groups(_load_json(path, data), path, create=False)
    except (OSError, HookError):
        return []
    return [
        f"{event}: {entry['command']}"
        for event, groups in hooks.items()
        for entry in _entries(groups if isinstance(groups, list) else [])
        if is_ours(command_words(entry.get("command")), fmt)
    ]


def claude_install(path: Path, command: str) -> Edit:
    return json_install(path, claude_code.NAME, command, CLAUDE_TIMEOUTS)


def claude_uninstall(path: Path) -> Edit:
    return json_uninstall(path, claude_code.NAME)


def claude_installed(path: Path) -> list[str]:
    return json_installed(path, claude_code.NAME)


def claude_plugin(path: Path) -> str | None:
    """``orkas-tui@<marketplace>`` when the plugin is enabled in this settings file (its ``enabledPlugins``)."""
    try:
        _real, data, _version = read_settings(path)
        enabled = _load_json(path, data).get("enabledPlugins")
    except (OSError, HookError):
        return None
    if not isinstance(enabled, dict):
        return None
    return next((key for key, on in enabled.items() if on is True and key.split("@", 1)[0] == PLUGIN), None)


def _entries(groups: list) -> list[dict]:
    return [
        entry
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for entry in group["hooks"]
        if isinstance(entry, dict)
    ]


def load_toml(path: Path, data: bytes | None) -> tuple[str, dict]:
    try:
        text = (data or b"").decode("utf-8")
        return text, tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HookError(f"{path}: not valid TOML ({exc}); left untouched") from None


# orkas.toml: the agent's link


def export_skills(fmt: str) -> str:
    """Where ``fmt`` reads the user's skills, written ``~/…`` when under the home folder."""
    return display_path(user_skill_dirs(fmt, Path.home())[0])


def link_agent(root: Path, agent: str, fmt: str) -> Edit:
    """``[agents.<agent>]`` with ``format`` and ``export_skills`` appended to ``orkas.toml``, unless it has one."""
    path = settings_path(root)
    data, version = read_versioned(path)
    text, parsed = load_toml(path, data)
    agents = parsed.get("agents")
    if isinstance(agents, dict) and agent in agents:
        return Edit(path, data, data or b"", version)
    block = f'[agents.{agent}]\nformat = "{fmt}"\nexport_skills = {json.dumps(export_skills(fmt), ensure_ascii=False)}\n'
    if data is None:  # a new orkas.toml: the commented template first, so [model] is there to fill in
        text = SETTINGS_TEMPLATE
    sep = "" if not text else "\n" if text.endswith("\n") else "\n\n"
    try:
        linked = tomllib.loads(text + sep + block)["agents"][agent]
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as exc:  # e.g. an inline `agents = {...}` table
        raise HookError(f"{path}: cannot add the agent link safely ({exc}); add by hand:\n{block}") from None
    if linked.get("format") != fmt:
        raise HookError(f"{path}: cannot add the agent link safely; add by hand:\n{block}")
    return Edit(path, data, (text + sep + block).encode(), version)
