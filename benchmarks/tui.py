"""TUI figures, run in a child process: first paint, and live latency of appended turns.

Prints one JSON object. ``paint``: seconds from ``make_app`` until the Turns tab
shows rows (a screenful comes first), and from the process's start until then, until every agent, the queue and every turn row
are in, the import time of the app, and the process's peak RSS once every agent is read. ``live``: for each appended turn,
seconds from the ``write`` until the Turns tab holds its row; ``live-idle``: the same with
the app's collector doing nothing.
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import asyncio  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from datetime import timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

import orjson  # noqa: E402

from benchmarks.workspace import ANCHOR, _turn  # noqa: E402
from orkas_tui.tui.app import make_app  # noqa: E402
from orkas_tui.tui.collector import Collector  # noqa: E402
from orkas_tui.tui.widgets.turns import TurnsPane  # noqa: E402

IMPORTED = time.perf_counter() - _T0


def _since_process_start() -> float | None:
    """Seconds since this process started (the kernel's start time, to 10 ms; Linux only): what a person
    waits from pressing enter, the interpreter's start and every import included."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return float(Path("/proc/uptime").read_text().split()[0]) - started
    except (OSError, ValueError, IndexError):
        return None


SIZE = (160, 48)


async def _until(predicate, timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(0.001)
    return True


async def paint(root: Path) -> dict:
    start = time.perf_counter()
    app = make_app(root, clock=lambda: ANCHOR, watch=False, blink=False)
    painted: list[float] = []
    display = app._display  # called with each composed frame (written out unless headless)

    from_start: list[float | None] = []

    def spy(screen, update) -> None:
        display(screen, update)
        if update is not None and not painted and app.query_one(TurnsPane).table.row_count:
            painted.append(time.perf_counter())
            from_start.append(_since_process_start())

    app._display = spy
    async with app.run_test(size=SIZE):
        await _until(lambda: painted, 60)
        pane = app.query_one(TurnsPane)
        table = pane.table
        await _until(lambda: app.loaded and table.row_count == len(pane.rows), 60)
        complete = time.perf_counter() - start
        rows = table.row_count
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return {
        "import_s": IMPORTED,
        "paint_s": painted[0] - start,
        "from_start_s": from_start[0],
        "complete_s": complete,
        "rows": rows,
        "rss_mb": peak_mb,
    }


class _NoCollector(Collector):
    """The app's collector doing nothing: Python's own schedule, what the app's is measured against."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def tick(self) -> None:
        pass


async def live(root: Path, appends: int, collector: bool = True) -> dict:
    app = make_app(root, clock=lambda: ANCHOR, watch=True, blink=False)
    if not collector:
        app.collector = _NoCollector()
    latencies, missed = [], 0
    async with app.run_test(size=SIZE):
        pane = app.query_one(TurnsPane)
        await _until(lambda: app.loaded and pane.table.row_count == len(pane.rows), 60)  # steady state
        agent = app.agent
        files = sorted((root / "agents" / agent / "conversations").glob("*.jsonl"))
        target = files[-1]
        await asyncio.sleep(1.0)  # let the watcher start
        rng = random.Random(5)
        clock = ANCHOR + timedelta(days=1)
        for i in range(appends):
            scan = app.data.agents[agent].scan
            seq = scan.conversations[target.stem].count
            lines: list[bytes] = []
            clock = _turn(lines, rng, ["skill-001"], clock, f"live{i}", 40)
            key = f"{target.stem}#{seq}"
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
            written = time.perf_counter()
            os.write(fd, b"".join(lines))
            os.close(fd)
            if await _until(lambda key=key: key in pane.table.rows, 10):
                latencies.append(time.perf_counter() - written)
            else:
                missed += 1
            await asyncio.sleep(0.05)
    return {"latencies_s": latencies, "missed": missed}


def main() -> None:
    mode, root = sys.argv[1], Path(sys.argv[2])
    result = asyncio.run(paint(root) if mode == "paint" else live(root, int(sys.argv[3]), collector=mode == "live"))
    sys.stdout.write(orjson.dumps(result).decode() + "\n")


if __name__ == "__main__":
    main()
