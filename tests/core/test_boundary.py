"""The headless core imports nothing from Textual (and litellm only when reflecting)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import orkas_tui.core


def test_core_and_cli_import_no_textual() -> None:
    modules = ["orkas_tui.core.read.settings", "orkas_tui.cli", "orkas_tui.commands"] + [
        m.name for m in pkgutil.walk_packages(orkas_tui.core.__path__, "orkas_tui.core.")
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"textual imported by the core: {result.stdout}"
    assert len(modules) > 10
