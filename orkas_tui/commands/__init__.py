"""Every CLI command, one module each; each exposes a ``register(subparsers)``.

The table names each command, its help line and where its registrar lives, so a
run imports only the chosen command's module (``status`` must not pay for the
importers, watchfiles or the reflection modules); ``--help`` still lists them all.
"""

from __future__ import annotations

import argparse
import importlib

# name: (module under orkas_tui.commands, registrar, help line shown by --help)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "status": ("status", "register", "turn scores, triggers and skill metrics per agent"),
    "prompt": ("status", "register_prompt", "the system-prompt block: self notes and the skill index"),
    "demo": ("demo", "register", "write a realistic demo workspace to PATH"),
    "queue": ("queue", "register", "the next reflection cycle: selected agents and one reason for each other"),
    "reflect": ("reflect", "register", "reflect on one agent now (or show exactly what would be sent)"),
    "cycle": ("reflect", "register", "run one scheduled cycle over the selected agents"),
    "daemon": ("reflect", "register", "run cycles on the schedule until stopped, logging each decision"),
    "service": ("service", "register", "install, remove or show (the default) the user service that keeps the daemon running"),
    "proposals": ("proposals", "register", "list (the default), show, approve, reject or edit reflection proposals"),
    "history": ("history", "register", "every change applied to an agent's skills and notes"),
    "revert": ("history", "register", "undo one applied change (refused if the file changed since)"),
    "import": ("transcripts", "register", "import Claude Code or Codex sessions as an agent's conversations"),
    "export": ("transcripts", "register_export", "write an agent's skills and self notes where Claude Code or Codex reads them"),
    "skills": ("skills", "register", "each skill and its scope: one repository, or global"),
    "hooks": ("hooks", "register", "install, remove or show (the default) the hooks that import each session as it ends"),
    "hook": ("hook", "register", "run by Claude Code's and Codex's hooks: import the session that just ran"),
}


def chosen_command(argv: list[str]) -> str | None:
    """The command named on the command line, if any (the value of ``--workspace`` is skipped)."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token == "--workspace":
            skip = True
        elif token in COMMANDS:
            return token
        elif not token.startswith("-"):
            return None
    return None


def register_commands(sub: argparse._SubParsersAction, chosen: str | None) -> None:
    """Full parsers for ``chosen``'s module (``None``: every module); help-only entries for the rest."""
    done: set[tuple[str, str]] = set()
    for name, (module, registrar, help_line) in COMMANDS.items():
        if chosen is not None and COMMANDS[chosen][:2] != (module, registrar):
            sub.add_parser(name, help=help_line)
        elif (module, registrar) not in done:
            done.add((module, registrar))
            getattr(importlib.import_module(f"orkas_tui.commands.{module}"), registrar)(sub)
