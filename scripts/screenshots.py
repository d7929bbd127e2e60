"""Regenerate ``screenshots/*.svg``: every tab and the help screen on the demo workspace.

    python scripts/screenshots.py            # writes screenshots/<tab>.svg at 120x40

The demo is written to a temporary folder with a fixed seed and anchor, the app runs
with a fixed clock, no watcher and no cursor blink, so the same code gives the same
pictures.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orkas_tui.core.demo import DEFAULT_ANCHOR, write_demo  # noqa: E402
from orkas_tui.tui.app import TABS, make_app  # noqa: E402
from orkas_tui.tui.demo_proposal import add_demo_proposal  # noqa: E402

SIZE = (120, 40)
AGENT = "coder"


async def shoot(root: Path, out: Path) -> list[Path]:
    app = make_app(root, clock=lambda: DEFAULT_ANCHOR, watch=False, blink=False)
    written = []
    async with app.run_test(size=SIZE) as pilot:
        while not app.loaded:
            await pilot.pause(0.02)
        app.select_agent_from_palette(AGENT)
        for n, (tab, _title) in enumerate(TABS, 1):
            await pilot.press(str(n))
            await app.workers.wait_for_complete()
            await pilot.pause()
            written.append(_save(app, out / f"{n}-{tab}.svg", f"orkas-tui: {tab}"))
        await pilot.press("question_mark")
        await pilot.pause()
        written.append(_save(app, out / "7-help.svg", "orkas-tui: help"))
    return written


def _save(app, path: Path, title: str) -> Path:
    path.write_text(app.export_screenshot(title=title), encoding="utf-8")
    return path


def main() -> int:
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = write_demo(Path(tmp) / "demo", seed=7, anchor=DEFAULT_ANCHOR)
        add_demo_proposal(root, DEFAULT_ANCHOR)
        for path in asyncio.run(shoot(root, out)):
            print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
