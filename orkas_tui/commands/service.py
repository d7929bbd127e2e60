"""``orkas-tui service install|uninstall|status`` (``daemon --install-service`` is the same install): a
systemd user unit (Linux) or a launchd agent (macOS) that keeps the daemon running.

It writes the file and prints the one command that enables it; it never runs
``systemctl`` or ``launchctl`` itself (enabling a service is the user's decision).
Uninstall removes only the file orkas-tui writes, byte for byte, and only once the
daemon has stopped (``keepers.daemon_pid``: the lock it holds), with the enable link
``systemctl --user enable`` made for it; ``status`` says which file and whether the
daemon runs.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from orkas_tui.commands.io import CliError, add_workspace, open_workspace
from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.keepers import daemon_pid
from orkas_tui.importers.hook_settings import program

LABEL = "dev.orkas-tui.daemon"
UNIT = "orkas-tui.service"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "service", help="install, remove or show (the default) the user service that keeps the daemon running"
    )
    add_workspace(parser)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    parser.set_defaults(func=run_service, action="status")  # no action: status
    for action, text in (
        ("install", "write the systemd user unit or launchd agent for the daemon; print how to enable it"),
        ("uninstall", "remove that file (only ours, only once the daemon has stopped)"),
        ("status", "the service file, and whether the daemon runs"),
    ):
        command = actions.add_parser(action, help=text)
        if action != "status":
            command.add_argument("--dry-run", action="store_true", help="say what would be done; write nothing")
        add_workspace(command)
        command.set_defaults(func=run_service)


def run_service(args: argparse.Namespace) -> int:
    workspace = open_workspace(args)
    root = workspace.root.expanduser().absolute()
    if args.action == "install":
        return install_service(root, args.dry_run)
    if args.action == "uninstall":
        return uninstall_service(workspace, root, args.dry_run)
    return service_status(workspace, root)


def service_file(root: Path, platform: str = sys.platform) -> tuple[Path, str, str]:
    """(where, content, the command that enables it) for this platform."""
    argv = [_absolute(program()), "daemon", "--workspace", str(root)]
    if platform == "darwin":
        path = Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"
        args = "".join(f"\n        <string>{escape(word)}</string>" for word in argv)
        content = f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>Label</key>
    <string>{LABEL}</string>
    <key>ProgramArguments</key>
    <array>{args}
    </array>
    <key>RunAtLoad</key>
    <true/>
    <key>KeepAlive</key>
    <true/>
    <key>StandardOutPath</key>
    <string>{escape(str(root / ".orkas" / "daemon.log"))}</string>
    <key>StandardErrorPath</key>
    <string>{escape(str(root / ".orkas" / "daemon.log"))}</string>
</dict>
</plist>
"""
        return path, content, f"launchctl load -w {shlex.quote(str(path))}"
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    path = config / "systemd" / "user" / "orkas-tui.service"
    content = f"""[Unit]
Description=orkas-tui: reflection cycles on the schedule (workspace {root})

[Service]
ExecStart={shlex.join(argv)}
Restart=on-failure
RestartSec=60

[Install]
WantedBy=default.target
"""
    return path, content, "systemctl --user daemon-reload && systemctl --user enable --now orkas-tui.service"


def install_service(root: Path, dry_run: bool) -> int:
    path, content, enable = service_file(root)
    if dry_run:
        print(f"would write {path}:\n{content}\nthen enable it with:\n  {enable}")
        return 0
    data, version = read_versioned(path)
    if data is not None and data != content.encode():
        raise CliError(f"{path} exists with other content; left as is (remove it to write a new one)")
    if data is None:
        atomic_write(path, content, expected=version, lock_dir=root / ".orkas")  # no lock file left beside the unit
    print(f"{'wrote' if data is None else 'already written:'} {path}\nenable it with:\n  {enable}")
    return 0


def stop_command(path: Path, platform: str = sys.platform) -> str:
    return f"launchctl unload -w {shlex.quote(str(path))}" if platform == "darwin" else f"systemctl --user disable --now {UNIT}"


def uninstall_service(workspace: Workspace, root: Path, dry_run: bool) -> int:
    path, content, _enable = service_file(root)
    data = read_versioned(path)[0]
    if data is None:
        print(f"not installed: {path}")
        return 0
    if data != content.encode():
        raise CliError(f"{path} is not the file orkas-tui writes for {root}; left as is")
    if (pid := daemon_pid(workspace)) is not None:
        raise CliError(f"the daemon still runs (pid {pid}); stop it first: {stop_command(path)}")
    wants = path.parent / "default.target.wants" / UNIT  # the link `systemctl --user enable` made
    linked = wants.is_symlink() and os.path.realpath(wants) == os.path.realpath(path)
    if dry_run:
        print(f"would remove {path}" + (f" and {wants}" if linked else ""))
        return 0
    if linked:
        wants.unlink()
    path.unlink()
    print(f"removed {path}" + (f" and {wants}" if linked else ""))
    return 0


def service_status(workspace: Workspace, root: Path) -> int:
    path, content, enable = service_file(root)
    data = read_versioned(path)[0]
    if data is None:
        state = "not installed (orkas-tui service install writes it)"
    elif data == content.encode():
        state = f"installed for {root}; enable it with: {enable}"
    else:
        state = "holds other content (not written by orkas-tui for this workspace)"
    pid = daemon_pid(workspace)
    print(f"service file: {path}: {state}")
    print(f"daemon: running (pid {pid})" if pid is not None else "daemon: not running")
    return 0


def _absolute(command: str) -> str:
    """A service has no login PATH: a plain ``orkas-tui`` is looked up now."""
    import shutil

    return command if os.path.isabs(command) else shutil.which(command) or command
