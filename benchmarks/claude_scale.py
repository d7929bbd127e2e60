"""A Claude Code history of 0.5, 1 and 2 GB imported: wall time, peak RSS, then a warm ``status``.

    python -m benchmarks.claude_scale [--sizes 500,1000,2000] [--runs 1] [--keep]

For each size (MB), :func:`benchmarks.claude_history.ensure_history` copies the real sample
session (with its subagents, 2.4 MB a session) under as many new session ids as the size
needs. ``orkas-tui import claude-code`` then runs as a whole process with ``HOME`` pointed
at the copies (its default source, ``~/.claude/projects``) into a fresh workspace: wall time
, CPU time and peak RSS from ``wait4`` (the import is one process; on a loaded machine its
CPU time is the steadier measure of linearity). Then ``status --agent claude`` once
(it builds the summary cache) and again, warm: best of 3, with its peak RSS. Prints one JSON
line. The copies and workspaces are deleted afterwards unless ``--keep`` (2 GB of history
takes a minute to write).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from benchmarks.claude_history import NOW, SAMPLE, SESSION, _read, ensure_history, measured
from benchmarks.workspace import cache_root


def session_bytes() -> int:
    """One copied session's size: the main file and its subagents."""
    subagents = sum(len(_read(p)) for p in (SAMPLE / SESSION / "subagents").iterdir())
    return len(_read(SAMPLE / f"{SESSION}.jsonl.gz")) + subagents


def measure(megabytes: float, runs: int, keep: bool) -> dict:
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
    shutil.rmtree(ws, ignore_errors=True)
    if not keep:
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
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.claude_scale", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000", help="history sizes in MB, comma-separated")
    parser.add_argument("--runs", type=int, default=1, help="imports per size (best of)")
    parser.add_argument("--keep", action="store_true", help="keep the copied histories for the next run")
    args = parser.parse_args(argv)
    sizes = [float(part) for part in args.sizes.split(",") if part.strip()]
    print(json.dumps({"sizes": [measure(mb, args.runs, args.keep) for mb in sizes]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
