"""``status`` and ``reflect --dry-run`` on one conversation holding a 200 MB line.

    python -m benchmarks.huge_line                    # this checkout
    python -m benchmarks.huge_line --code /tmp/old    # another checkout's orkas_tui (a "before" figure)

The line is one ``user`` event (valid JSON), between two short turns: the worst case,
since a reader that keeps it also parses it. Cold = both caches deleted before each run.
Best of ``--runs``; peak RSS from one more, untimed run (:func:`benchmarks.measure.tree_peak_rss`).
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

import orjson

from benchmarks.measure import best_run, tree_peak_rss

NOW = "2026-11-30T09:00:00Z"


def build(root: Path, megabytes: int) -> Path:
    conv = root / "agents" / "a1" / "conversations" / "big.jsonl"
    if conv.is_file() and conv.stat().st_size > megabytes * 1024 * 1024:
        return root
    conv.parent.mkdir(parents=True, exist_ok=True)
    with open(conv, "wb") as handle:
        handle.write(orjson.dumps({"ts": "2026-11-20T10:00:00Z", "type": "turn_start", "turn": "t1"}) + b"\n")
        handle.write(b'{"ts":"2026-11-20T10:00:00Z","type":"user","text":"that\'s wrong ')
        block = b"x" * (1024 * 1024)
        for _ in range(megabytes):
            handle.write(block)
        handle.write(b'"}\n')
        for event in (
            {"ts": "2026-11-20T10:00:01Z", "type": "turn_end", "turn": "t1", "status": "ok"},
            {"ts": "2026-11-20T10:01:00Z", "type": "turn_start", "turn": "t2"},
            {"ts": "2026-11-20T10:01:01Z", "type": "turn_end", "turn": "t2", "status": "ok"},
        ):
            handle.write(orjson.dumps(event) + b"\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, help="run the orkas_tui package of this checkout instead")
    parser.add_argument("--dry-run", action="store_true", help="also time reflect --dry-run (slow before the cap)")
    args = parser.parse_args()
    root = build(Path(os.environ.get("ORKAS_BENCH_CACHE", "/tmp/orkas-tui-bench")) / "huge-line" / "ws", args.megabytes)
    if args.code:
        os.chdir(args.code)  # ``python -m orkas_tui`` imports from the working directory first
    private = root / "agents" / "a1" / ".orkas"
    status = ["-m", "orkas_tui", "status", "--json", "--jobs", "1", "--workspace", str(root), "--now", NOW]

    def cold() -> None:
        shutil.rmtree(private, ignore_errors=True)

    rows = [("status, cold", best_run(status, args.runs, cold))]
    cold()
    rss = tree_peak_rss(status)
    rows.append(("status, warm", best_run(status, args.runs)))
    if args.dry_run:
        rows.append(
            (
                "reflect --dry-run",
                best_run(["-m", "orkas_tui", "reflect", "a1", "--dry-run", "--workspace", str(root), "--now", NOW], args.runs),
            )
        )
    print(f"{args.megabytes} MB line; peak RSS of a cold status: {rss.largest_mb:,.0f} MB")
    for name, seconds in rows:
        print(f"{name:<20} {seconds:8.2f} s")


if __name__ == "__main__":
    main()
