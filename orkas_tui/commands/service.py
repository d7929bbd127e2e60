"""``orkas-tui daemon --install-service``: a systemd user unit (Linux) or a launchd agent (macOS) that keeps the daemon running.

It writes the file and prints the one command that enables it; it never runs
``systemctl`` or ``launchctl`` itself (enabling a service is the user's decision).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from orkas_tui.commands.io import CliError
from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.importers.hook_settings import program

LABEL = "dev.orkas-tui.daemon"


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
        atomic_write(path, content, expected=version)
    print(f"{'wrote' if data is None else 'already written:'} {path}\nenable it with:\n  {enable}")
    return 0


def _absolute(command: str) -> str:
    """A service has no login PATH: a plain ``orkas-tui`` is looked up now."""
    import shutil

    return command if os.path.isabs(command) else shutil.which(command) or command
