"""Prove a built wheel works as users install it: run from outside any checkout.

    python scripts/wheel_smoke.py        # with the wheel's venv active, from another folder

It writes the demo, prints its status, then starts the app headless on it and checks that
the first tab has rows. It refuses to run against a checkout, so a pass means the wheel
itself carries everything the app needs at run time (styles included).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path


def check_installed() -> None:
    import orkas_tui

    where = Path(orkas_tui.__file__).resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    if site not in where.parents:
        sys.exit(f"orkas_tui imported from {where}, not from the installed wheel in {site}")


def run(*argv: str) -> str:
    exe = shutil.which("orkas-tui")
    if exe is None:
        sys.exit("the wheel installed no orkas-tui command")
    done = subprocess.run([exe, *argv], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"orkas-tui {' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


async def start_app(root: Path) -> int:
    from textual.widgets import DataTable

    from orkas_tui.tui.app import make_app

    app = make_app(root, watch=False, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            rows = max((t.row_count for t in app.query(DataTable)), default=0)
            if rows:
                return rows
    return 0


def main() -> None:
    check_installed()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "workspace"
        run("demo", str(root))
        status = run("status", "--workspace", str(root))
        if "coder" not in status:
            sys.exit("status on the demo does not list the coder agent")
        rows = asyncio.run(start_app(root))
        if not rows:
            sys.exit("the app started headless but showed no rows")
    print(f"wheel smoke: demo, status and a headless start ({rows} rows shown) all ran from the wheel")


if __name__ == "__main__":
    main()
