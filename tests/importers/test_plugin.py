"""The Claude Code plugin in the repository: its files checked against Claude Code's documented schemas
(docs/hooks.md names the version), and its hook run as Claude Code runs it, with and without orkas-tui on PATH."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.importers.test_hooks import SHORT, conversations, env, home, place, stop_json, wait_for_drain

__all__ = ["home"]  # the fake-HOME fixture

REPO = Path(__file__).resolve().parents[2]
# Claude Code's hook events (its hooks reference; 2.1.x); ours must be among them.
EVENTS = {
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Notification", "UserPromptSubmit",
    "Stop", "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionStart",
    "SessionEnd", "Setup",
}  # fmt: skip
NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")  # plugin and marketplace names: kebab-case
VARIABLE = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}/([^\"' ]+)")


def problems(root: Path) -> list[str]:
    """What is wrong with the plugin and marketplace at ``root``, one line each (none: it loads)."""

    def load(name: str) -> dict:
        value = json.loads((root / name).read_text())
        if not isinstance(value, dict):
            raise ValueError(f"{name}: not an object")
        return value

    try:
        plugin, market, hooks = (
            load(".claude-plugin/plugin.json"),
            load(".claude-plugin/marketplace.json"),
            load("hooks/hooks.json"),
        )
    except (OSError, ValueError) as exc:
        return [str(exc)]
    found = []
    if not NAME.match(str(plugin.get("name"))):
        found.append(f"plugin.json: name {plugin.get('name')!r} is not kebab-case")
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    if plugin.get("version") != version:
        found.append(f"plugin.json: version {plugin.get('version')!r} is not the package's {version}")
    if not NAME.match(str(market.get("name"))) or not isinstance(market.get("owner"), dict) or not market["owner"].get("name"):
        found.append("marketplace.json: needs a kebab-case name and owner.name")
    entries = [e for e in market.get("plugins", []) if isinstance(e, dict) and e.get("name") == plugin.get("name")]
    source = entries[0].get("source") if entries else None
    if not (isinstance(source, str) and source.startswith("./") and (root / source / ".claude-plugin/plugin.json").is_file()):
        found.append(f"marketplace.json: no entry for {plugin.get('name')!r} whose ./source holds the plugin")
    if set(hooks) - {"description", "hooks"} or not isinstance(hooks.get("hooks"), dict):
        found.append("hooks.json: takes only description and a hooks object")
        return found
    if missing := {"SessionStart", "Stop", "SessionEnd"} - set(hooks["hooks"]):
        found.append(f"hooks.json: no {sorted(missing)} hooks")
    for event, groups in hooks["hooks"].items():
        if event not in EVENTS:
            found.append(f"hooks.json: {event!r} is not a Claude Code hook event")
        for group in groups if isinstance(groups, list) else [None]:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list) or not handlers:
                found.append(f"hooks.json: {event}: each group needs a list of hooks")
            for handler in handlers or []:
                command, timeout = handler.get("command"), handler.get("timeout", 1)
                if (
                    handler.get("type") != "command"
                    or not isinstance(command, str)
                    or not isinstance(timeout, int)
                    or timeout < 1
                ):
                    found.append(f"hooks.json: {event}: a command hook needs type, command and a timeout in seconds")
                    continue
                paths = VARIABLE.findall(command)
                if not paths or not all((root / path).is_file() for path in paths):
                    found.append(f"hooks.json: {event}: {command!r} names no file of the plugin")
    return found


def test_the_plugin_files_follow_claude_codes_schemas() -> None:
    assert problems(REPO) == []
    script = REPO / "hooks" / "orkas-hook.sh"
    assert subprocess.run(["sh", "-n", str(script)], capture_output=True).returncode == 0


BROKEN = {
    "plugin.json not JSON": (".claude-plugin/plugin.json", lambda t: t[:-3]),
    "an unknown event": ("hooks/hooks.json", lambda t: t.replace('"SessionEnd"', '"SessionEnded"')),
    "a missing script": ("hooks/hooks.json", lambda t: t.replace("orkas-hook.sh", "gone.sh")),
    "no SessionStart": ("hooks/hooks.json", lambda t: t.replace('"SessionStart"', '"PreCompact"')),
    "a nameless owner": (".claude-plugin/marketplace.json", lambda t: re.sub(r'"owner": \{[^}]*\}', '"owner": {}', t)),
    "a source elsewhere": (".claude-plugin/marketplace.json", lambda t: t.replace('"./"', '"./nowhere"')),
    "a timeout in text": ("hooks/hooks.json", lambda t: t.replace('"timeout": 10', '"timeout": "10"', 1)),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_the_check_fails_on_a_broken_plugin(tmp_path: Path, case: str) -> None:
    root = tmp_path / "repo"
    for part in (".claude-plugin", "hooks"):
        shutil.copytree(REPO / part, root / part)
    assert problems(root) == []
    name, damage = BROKEN[case]
    (root / name).write_text(damage((root / name).read_text()))
    assert problems(root)


def run_plugin_hook(home: Path, event: str, stdin: bytes, path: str) -> subprocess.CompletedProcess:
    """As Claude Code runs the plugin's hook: the command of hooks.json through the shell, the plugin's variables set."""
    (command,) = [h["command"] for g in json.loads((REPO / "hooks/hooks.json").read_text())["hooks"][event] for h in g["hooks"]]
    variables = {"CLAUDE_PLUGIN_ROOT": str(REPO), "CLAUDE_PLUGIN_DATA": str(home / ".claude/plugins/data/orkas-tui-orkas-tui")}
    return subprocess.run(
        command, shell=True, input=stdin, capture_output=True, env=env(home) | variables | {"PATH": path}, timeout=60
    )


def test_without_orkas_tui_on_path_session_start_says_so_once(home: Path) -> None:
    bare = "/usr/bin:/bin"
    assert shutil.which("orkas-tui", path=bare) is None
    first = run_plugin_hook(home, "SessionStart", b"{}", bare)
    assert first.returncode == 0 and "orkas-tui command is not on PATH" in json.loads(first.stdout)["systemMessage"]
    again = [run_plugin_hook(home, event, b"{}", bare) for event in ("SessionStart", "Stop", "SessionEnd")]
    assert [(done.returncode, done.stdout, done.stderr) for done in again] == [(0, b"", b"")] * 3
    venv = f"{Path(sys.executable).parent}{os.pathsep}{bare}"
    run_plugin_hook(home, "Stop", b"{}", venv)  # installed: the marker goes, so a later loss is said again
    assert "systemMessage" in run_plugin_hook(home, "SessionStart", b"{}", bare).stdout.decode()


def test_with_orkas_tui_on_path_the_plugin_imports_the_session(home: Path, samples: Path) -> None:
    session = place(samples, home, SHORT)
    venv = f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"
    done = run_plugin_hook(home, "Stop", stop_json(session), venv)
    assert (done.returncode, done.stdout) == (0, b""), done.stderr
    wait_for_drain(home / ".orkas")  # the hook spools; a detached import reads the session
    assert list(conversations(home)) == [f"claude-{session.stem}.jsonl"]
