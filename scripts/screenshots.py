"""Regenerate ``screenshots/*.svg``: every tab, the help and settings screens, the empty
workspace, and the Turns tab at 80x24, on the demo workspace.

    python scripts/screenshots.py            # writes screenshots/*.svg (120x40 unless named)

The demo is written to a temporary home folder (shown as ``~/.orkas``) with a fixed seed
and anchor, the app runs with a fixed clock, no watcher and no cursor blink, so the same
code gives the same pictures.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orkas_tui.core.store.first_run import create_workspace  # noqa: E402
from orkas_tui.demo.proposal import add_demo_proposal  # noqa: E402
from orkas_tui.demo.workspace import DEFAULT_ANCHOR, write_demo  # noqa: E402
from orkas_tui.tui.app import TABS, make_app  # noqa: E402

SIZE = (120, 40)
AGENT = "coder"


async def _settle(app, pilot) -> None:
    while not app.loaded:
        await pilot.pause(0.02)
    await app.workers.wait_for_complete([w for w in app.workers if w.group != "watch"])
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()  # the tab underline slides: a picture taken mid-way differs run to run


async def shoot(root: Path, empty: Path, out: Path) -> list[Path]:
    written = []
    app = make_app(root, clock=lambda: DEFAULT_ANCHOR, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(app, pilot)
        app.select_agent_from_palette(AGENT)
        for n, (tab, _title) in enumerate(TABS, 1):
            app.action_tab(tab)  # not the key: on the Self tab the keys go to its editor
            await _settle(app, pilot)
            written.append(_save(app, out / f"{n}-{tab}.svg", f"orkas-tui: {tab}"))
        app.query_one("#sidebar").focus()
        await pilot.press("question_mark")
        await pilot.pause()
        written.append(_save(app, out / "7-help.svg", "orkas-tui: help"))
        await pilot.press("escape", "comma")
        await pilot.pause()
        written.append(_save(app, out / "8-settings.svg", "orkas-tui: settings"))
    app = make_app(empty, clock=lambda: DEFAULT_ANCHOR, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(app, pilot)
        written.append(_save(app, out / "9-empty.svg", "orkas-tui: a new workspace"))
    app = make_app(root, clock=lambda: DEFAULT_ANCHOR, watch=False, blink=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        app.select_agent_from_palette(AGENT)
        await _settle(app, pilot)
        written.append(_save(app, out / "10-turns-80x24.svg", "orkas-tui: 80x24"))
    return written


def _save(app, path: Path, title: str) -> Path:
    path.write_text(app.export_screenshot(title=title), encoding="utf-8")
    return path


def main() -> int:
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HOME"] = tmp  # paths show as ~/...: the same on every machine
        os.environ.pop("ORKAS_HOME", None)
        root = write_demo(Path(tmp) / ".orkas", seed=7, anchor=DEFAULT_ANCHOR)
        (root / "orkas.toml").write_text('[model]\nname = "openai/llama3"\napi_base = "http://127.0.0.1:11434/v1"\n')
        add_demo_proposal(root, DEFAULT_ANCHOR)
        empty = create_workspace(Path(tmp) / "new" / ".orkas")
        for path in asyncio.run(shoot(root, empty, out)):
            print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
