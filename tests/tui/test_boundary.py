"""Import boundaries: the core knows nothing of Textual; the app pulls in no litellm until a reflection."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import orkas_tui.core
import orkas_tui.demo
import orkas_tui.importers
import orkas_tui.tui

HEADLESS = (orkas_tui.core, orkas_tui.importers, orkas_tui.demo)


def _headless_tui() -> list[str]:
    """The app's modules whose own imports name neither Textual nor Rich (read from their source, so a
    new one is checked without being listed): importing one must not load Textual through another."""
    names = []
    for module in pkgutil.walk_packages(orkas_tui.tui.__path__, "orkas_tui.tui."):
        imported = set()
        for node in ast.walk(ast.parse(Path(str(find_spec(module.name).origin)).read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.split(".")[0])
        if not imported & {"textual", "rich"}:
            names.append(module.name)
    return names


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2]
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_core_config_and_headless_tui_modules_import_no_textual() -> None:
    """Run, not read: import-linter's contract sees the import statements of the core, the importers and
    the demo; this sees what importing them loads, and the app's headless modules, which no contract can
    single out.
    (The CLI's side is test_status_imports.py.)"""
    modules = [m.name for package in HEADLESS for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")]
    headless_tui = _headless_tui()
    assert {"orkas_tui.tui.watch", "orkas_tui.tui.collector", "orkas_tui.tui.exported"} <= set(headless_tui)
    modules += headless_tui
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
