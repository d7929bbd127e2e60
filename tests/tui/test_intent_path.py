"""The app takes intents one way: no module under ``tui/`` calls the app or writes a file.

Read, not run: import-linter sees imports, not calls, and the layers contract lets a widget
name the app for the type checker (``app: OrkasApp``); these read every module's syntax tree.
"""

from __future__ import annotations

import ast
from pathlib import Path

from textual.app import App

import orkas_tui.tui
from orkas_tui.core.disk import write

TUI = Path(orkas_tui.tui.__file__).parent
WRITERS = {"write_text", "write_bytes", "touch", "mkdir", "unlink", "rmdir", "rename", "symlink_to", "hardlink_to", "chmod"}
FILE_MODULES = {"os", "shutil", "tempfile", "io"}
# the core's own writing functions (a file is written only by a core function an intent calls: tui/intents.py)
CORE_WRITERS = {
    name
    for name, value in vars(write).items()
    if callable(value) and not isinstance(value, type) and value.__module__ == write.__name__
} | {"open_confined"}


def _modules() -> list[Path]:
    return sorted(p for p in TUI.rglob("*.py") if p.name != "__init__.py")


def _app_methods() -> set[str]:
    """The methods OrkasApp defines beyond Textual's App: calling one from below goes up the circle."""
    tree = ast.parse((TUI / "app.py").read_text())
    (app,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "OrkasApp"]
    defined = {n.name for n in app.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    return defined - set(dir(App))


def _is_app(node: ast.expr) -> bool:
    """``app`` or ``<anything>.app``: the app a widget, screen or helper lives in."""
    return (isinstance(node, ast.Name) and node.id == "app") or (isinstance(node, ast.Attribute) and node.attr == "app")


def test_no_module_under_tui_calls_an_app_method() -> None:
    """Attributes down, messages up: a widget, screen, palette or the reflection helper posts a message;
    it never calls (nor hands out) a method of the app. It may read the app's state."""
    methods = _app_methods()
    assert {"load", "reload_settings", "select_agent_from_palette", "now"} <= methods  # the rule sees the app
    calls = []
    for path in _modules():
        if path == TUI / "app.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in methods and _is_app(node.value):
                calls.append(f"{path.relative_to(TUI)}:{node.lineno} app.{node.attr}")
    assert calls == []


def test_no_module_under_tui_writes_a_file() -> None:
    """Only the core writes (atomically, refusing to overwrite an edit made on disk since it was read)."""
    assert {"atomic_write", "remove_file", "append_jsonl"} <= CORE_WRITERS  # the rule sees the core's writers
    writes = []
    for path in _modules():
        where = path.relative_to(TUI)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                writes += [f"{where}:{node.lineno} import {a.name}" for a in node.names if a.name in FILE_MODULES]
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                if node.module in FILE_MODULES:
                    writes.append(f"{where}:{node.lineno} from {node.module}")
                writes += [f"{where}:{node.lineno} {a.name}" for a in node.names if a.name in CORE_WRITERS]
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name) and func.id == "open":
                    writes.append(f"{where}:{node.lineno} open()")
                elif isinstance(func, ast.Attribute) and func.attr in WRITERS:
                    writes.append(f"{where}:{node.lineno} .{func.attr}()")
    assert writes == []
