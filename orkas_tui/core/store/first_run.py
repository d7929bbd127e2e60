"""A new workspace, and what to do next in one that has no agents yet.

The app, the CLI and the README say the same next steps because they all read them here.
"""

from __future__ import annotations

import os
from pathlib import Path

from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.settings import settings_path
from orkas_tui.core.read.workspace import resolve_root

SETTINGS_TEMPLATE = """\
# orkas-tui settings: every key is optional (docs/workspace.md lists them all).
# The app reloads this file when it changes (or on F5); the settings screen (ctrl+p, "Settings") shows the effect.

[model]
# Any litellm model string; $ORKAS_MODEL overrides it.
# name = "openai/gpt-4o-mini"
# api_key_env = "OPENAI_API_KEY"        # the variable that holds the key
# A local OpenAI-compatible server (Ollama, llama.cpp, vLLM) needs no key:
# name = "openai/llama3"
# api_base = "http://127.0.0.1:11434/v1"
# The most reflections may cost in one day (your local day), in US dollars, priced with
# litellm's price map; once spent, cycles wait until midnight (`reflect --force` still sends).
# daily_budget_usd = 0.50

[reflection]
auto_apply = false  # every change waits in Proposals for you
"""


def create_workspace(root: Path) -> Path:
    """Create ``root`` with an empty ``agents/`` and a commented ``orkas.toml`` (an existing one is kept)."""
    (root / "agents").mkdir(parents=True, exist_ok=True)
    settings = settings_path(root)
    if not settings.exists():
        atomic_write(settings, SETTINGS_TEMPLATE)
    return root


def workspace_flag(root: Path) -> str:
    """`` --workspace ROOT`` unless ``root`` is where the commands look anyway."""
    return "" if Path(root).expanduser() == resolve_root(None) else f" --workspace {_shell_word(str(root))}"


def next_steps(root: Path) -> list[tuple[str, str]]:
    """(what, exact command) for a workspace with no agents yet."""
    flag = workspace_flag(root)
    return [
        ("Learn from your Claude Code history (~/.claude/projects)", f"orkas-tui import claude-code --agent claude{flag}"),
        ("Learn from your Codex history (~/.codex/sessions)", f"orkas-tui import codex --agent codex{flag}"),
        ("Then import each session as it ends", f"orkas-tui hooks install claude-code --agent claude{flag}"),
        ("Or look around a made-up workspace first", "orkas-tui --demo"),
    ]


def display_path(path: Path) -> str:
    """``path`` with the home folder written ``~``: shorter, and the same on every machine."""
    text, home = str(path), os.path.expanduser("~")
    return "~" + text[len(home) :] if text == home or text.startswith(home + os.sep) else text


def _shell_word(text: str) -> str:
    """``text`` as one shell word: ``~/…`` when it is plain, else single-quoted in full."""
    short = display_path(Path(text))
    if all(c.isalnum() or c in "/._-~+" for c in short):
        return short
    return "'" + text.replace("'", "'\\''") + "'"
