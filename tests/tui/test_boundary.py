"""Import boundaries: the core knows nothing of Textual; the app pulls in no litellm until a reflection."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import orkas_tui.core

HEADLESS_TUI = [
    "orkas_tui.tui.watch",
    "orkas_tui.demo.simulate",
    "orkas_tui.tui.skill_flags",
    "orkas_tui.tui.collector",
]


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2]
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_core_config_and_headless_tui_modules_import_no_textual() -> None:
    """Run, not read: import-linter's contract sees the core's import statements; this sees what
    importing it loads, and the app's headless modules, which no contract can single out.
    (The CLI's side is test_status_imports.py.)"""
    modules = [m.name for m in pkgutil.walk_packages(orkas_tui.core.__path__, "orkas_tui.core.")]
    modules += HEADLESS_TUI
    out = _run(
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'textual')) or 'clean')\n"
    )
    assert out == "clean", f"textual imported by: {out}"


def test_app_paints_the_demo_without_the_reflection_path(demo_ws: Path) -> None:
    """pydantic, litellm and tiktoken come only with a reflection, a bundle or a token count; the model
    client's warm-up (preload, as the CLI runs the app) waits until after the first paint."""
    out = _run(
        "import asyncio, sys\n"
        "from datetime import datetime, timezone\n"
        "from orkas_tui.tui.app import make_app\n"
        "NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)\n"
        "async def main():\n"
        f"    app = make_app({str(demo_ws)!r}, clock=lambda: NOW, watch=False, blink=False, preload=True)\n"
        "    async with app.run_test(size=(120, 40)) as pilot:\n"
        "        while not app.loaded:\n"
        "            await pilot.pause(0.01)\n"
        "        assert app.query_one('#turns-table').row_count > 0\n"
        "    print(sorted(m for m in ('pydantic', 'litellm', 'tiktoken') if m in sys.modules))\n"
        "asyncio.run(main())\n"
    )
    imported = out.splitlines()[-1]
    assert imported == "[]", f"imported before any reflection: {imported}"  # how fast it paints: python -m benchmarks
