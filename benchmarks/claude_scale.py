"""A Claude Code history of 0.5, 1 and 2 GB imported: wall time, peak RSS, then a warm ``status``.

    python -m benchmarks.claude_scale [--sizes 500,1000,2000] [--runs 1] [--keep]

For each size (MB), :func:`benchmarks.claude_history.ensure_history` copies the real sample
session (with its subagents, 2.4 MB a session) under as many new session ids as the size
needs. ``orkas-tui import claude-code`` then runs as a whole process with ``HOME`` pointed
at the copies (its default source, ``~/.claude/projects``) into a fresh workspace: wall time
, CPU time and peak RSS from ``wait4`` (the import is one process; on a loaded machine its
CPU time is the steadier measure of linearity). Then ``status --agent claude`` once
(it builds the summary cache) and again, warm: best of 3, with its peak RSS. At the size
``--cold`` names (1,000 MB by default; issue 35), the cold ``status --json --all-turns`` (every turn printed) of that one
agent (its cache deleted before each run) with ``--jobs`` 1, 2 and 4, taken in turns with
the orjson loop over the workspace's conversation lines (``parse_loop.py``), best of
``--cold-runs``: the floor the cold status is held to, and the speed-up the pool gives one
agent. Prints one JSON line. The copies and the workspace are deleted afterwards unless ``--keep`` (2 GB of history
takes a minute to write; the last size's workspace stays in ``$ORKAS_BENCH_CACHE/run/claude-scale-ws``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from benchmarks.claude_history import NOW, SAMPLE, SESSION, _read, ensure_history, measured
from benchmarks.measure import best_runs, run
from benchmarks.workspace import cache_root

JOBS = (1, 2, 4)  # 4 on a 2-core machine: what oversubscription costs


def session_bytes() -> int:
    """One copied session's size: the main file and its subagents."""
    subagents = sum(len(_read(p)) for p in (SAMPLE / SESSION / "subagents").iterdir())
    return len(_read(SAMPLE / f"{SESSION}.jsonl.gz")) + subagents


def cold_status(ws: Path, rounds: int) -> dict:
    """Cold ``status --json --all-turns`` of the workspace's one agent at each of :data:`JOBS`, and the orjson
    loop over its conversation lines, best of ``rounds`` taken in turns."""
    status = ["-m", "orkas_tui", "status", "--json", "--all-turns", "--workspace", str(ws), "--now", NOW]
    loop = [str(Path(__file__).with_name("parse_loop.py")), str(ws)]

    def drop_cache() -> None:
        for cache in ws.glob("agents/*/.orkas/summary-cache.jsonl"):
            cache.unlink()

    run(loop)  # page cache warm for every side
    commands = {"parse": (loop, None)} | {f"jobs_{jobs}": ([*status, "--jobs", str(jobs)], drop_cache) for jobs in JOBS}
    best = best_runs(commands, rounds)
    return {"parse_s": best["parse"], "cold_s": {str(jobs): best[f"jobs_{jobs}"] for jobs in JOBS}}


def measure(megabytes: float, runs: int, keep: bool, cold_rounds: int = 0) -> dict:
    sessions = max(1, round(megabytes * 1e6 / session_bytes()))
    home = ensure_history(sessions, megabytes)
    files = list((home / ".claude" / "projects").rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in files)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "ORKAS_HOME")}
    env["HOME"] = str(home)
    code = Path(__file__).resolve().parents[1]
    ws = cache_root() / "run" / "claude-scale-ws"
    orkas = [sys.executable, "-m", "orkas_tui"]
    importing = [*orkas, "import", "claude-code", "--agent", "claude", "--workspace", str(ws)]
    status = [*orkas, "status", "--agent", "claude", "--workspace", str(ws), "--now", NOW]
    imports = []
    for _ in range(runs):
        shutil.rmtree(ws, ignore_errors=True)
        imports.append(measured(importing, env, code))
    written = sum(p.stat().st_size for p in ws.glob("agents/*/conversations/*.jsonl"))
    first = measured(status, env, code)  # builds the summary cache
    warm = [measured(status, env, code) for _ in range(3)]
    cold = cold_status(ws, cold_rounds) if cold_rounds else None
    if not keep:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return {
        "sessions": sessions,
        "files": len(files),
        "bytes": size,
        "written_bytes": written,
        "import_s": min(s for s, _, _ in imports),
        "import_cpu_s": min(c for _, _, c in imports),
        "import_rss_mb": max(m for _, m, _ in imports),
        "first_status_s": first[0],
        "first_status_rss_mb": first[1],
        "warm_status_s": min(s for s, _, _ in warm),
        "warm_status_rss_mb": max(m for _, m, _ in warm),
        "cold": cold,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.claude_scale", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000", help="history sizes in MB, comma-separated")
    parser.add_argument("--runs", type=int, default=1, help="imports per size (best of)")
    parser.add_argument("--keep", action="store_true", help="keep the copied histories for the next run")
    parser.add_argument("--cold", type=float, default=1000, help="the size (MB) whose cold status is measured")
    parser.add_argument("--cold-runs", type=int, default=3, help="rounds of the cold status figures (best of)")
    args = parser.parse_args(argv)
    sizes = [float(part) for part in args.sizes.split(",") if part.strip()]
    measures = [measure(mb, args.runs, args.keep, args.cold_runs if mb == args.cold else 0) for mb in sizes]
    print(json.dumps({"sizes": measures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
