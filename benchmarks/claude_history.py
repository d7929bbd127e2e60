"""A large Claude Code history: ``orkas-tui import claude-code`` then ``status``, against ccusage on the same files.

    python -m benchmarks.claude_history [--sessions 72] [--mb 176] [--runs 3] [--code CHECKOUT]

Builds (once, cached under ``$ORKAS_BENCH_CACHE``) a ``.claude/projects`` of
``--sessions`` sessions and about ``--mb`` MB by copying the real sample session of
``tests/data/samples`` (with its two subagent files) under new session ids, six
projects, one day apart each (over 100 days, then a year earlier); message, request and tool
use ids are made unique per copy so ccusage, which drops repeated messages, counts every copy,
and so are record uuids and times, so the import does not take the copies for a resumed
session's repeats (before 2026-12-04 the tool use ids and the times of every hundredth copy
repeated, and the import kept about a third of the history). Each session's main file is
cut at a line boundary to reach the size. Then, best of ``--runs`` taken in turns, each
command a child process timed from outside: into a fresh workspace, the import followed by ``status``
of the agent (what a person runs to see their history), and ``npx ccusage@18 daily
--offline`` with ``HOME`` pointed at the folder holding ``.claude/projects``. Prints one
JSON line. ``--code``: run another checkout's ``orkas_tui`` (a "before" figure).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from datetime import date, timedelta
from pathlib import Path

from benchmarks.workspace import cache_root

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "samples" / "claude-code" / "marot-spotter__8463c716"
SESSION = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
DAY = b'"2026-02-11T'
RECORD_ID = re.compile(rb'"(uuid|parentUuid)":"[0-9a-f]{3}')
CCUSAGE = ["npx", "-y", "ccusage@18", "daily", "--offline"]
NOW = "2026-06-01T00:00:00Z"


def _read(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def ensure_history(sessions: int, megabytes: float) -> Path:
    """The folder holding ``.claude/projects`` (built once per parameters)."""
    home = cache_root() / f"claude-history-{sessions}-{megabytes:g}-unique"
    if (home / "complete").exists():
        return home
    shutil.rmtree(home, ignore_errors=True)
    main = _read(SAMPLE / f"{SESSION}.jsonl.gz")
    subagents = {p.name.removesuffix(".gz"): _read(p) for p in sorted((SAMPLE / SESSION / "subagents").iterdir())}
    room = int(megabytes * 1e6 / sessions) - sum(map(len, subagents.values()))
    cut = main.find(b"\n", max(room, 1) - 1) + 1 or len(main)
    for k in range(sessions):
        new = str(uuid.uuid5(uuid.NAMESPACE_URL, f"orkas-bench-session-{k}"))
        # one day apart over 100 days, then the same days a year earlier: every copy has times of
        # its own (a record is known by its time and what it says) and stays before the status's NOW
        day = b'"' + (date(2026 - k // 100, 2, 11) + timedelta(days=k % 100)).isoformat().encode() + b"T"

        def copy(data: bytes, k: int = k, new: str = new, day: bytes = day) -> bytes:
            data = data.replace(SESSION.encode(), new.encode()).replace(DAY, day)
            data = RECORD_ID.sub(rb'"\1":"' + f"{k:03x}".encode(), data)  # another session's records, not a resumed copy
            for prefix in (b'"id":"msg_', b'"requestId":"req_', b'"id":"toolu_', b'"tool_use_id":"toolu_'):
                data = data.replace(prefix, prefix + f"{k:03d}".encode())
            return data

        project = home / ".claude" / "projects" / f"-home-bench-project-{k % 6}"
        (project / new / "subagents").mkdir(parents=True)
        (project / f"{new}.jsonl").write_bytes(copy(main[:cut]))
        for name, data in subagents.items():
            (project / new / "subagents" / name).write_bytes(copy(data))
    (home / "complete").write_text("ok\n")
    return home


def measured(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float, float]:
    """Wall time (s), peak RSS (MB) and CPU time (s) of one child, its stdout discarded, a failure raised with its stderr."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"{argv!r} failed ({status}): {child.stderr.read().decode(errors='replace')[-2000:]}")
    child.stderr.close()
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # ru_maxrss: kB on Linux


def _timed(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    return measured(argv, env, cwd)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.claude_history", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=72)
    parser.add_argument("--mb", type=float, default=176)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, help="run the orkas_tui package of this checkout instead")
    parser.add_argument("--no-ccusage", action="store_true")
    args = parser.parse_args(argv)
    home = ensure_history(args.sessions, args.mb)
    projects = home / ".claude" / "projects"
    files = list(projects.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in files)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "ORKAS_HOME")}
    env["HOME"] = str(home)
    env.setdefault("npm_config_cache", str(Path.home() / ".npm"))  # the download stays where it was
    code = args.code or Path(__file__).resolve().parents[1]  # ``-m orkas_tui`` imports from the working directory
    ws = cache_root() / "run" / "claude-ws"
    orkas = [sys.executable, "-m", "orkas_tui"]
    importing = [*orkas, "import", "claude-code", str(projects), "--agent", "claude", "--workspace", str(ws)]
    status = [*orkas, "status", "--agent", "claude", "--workspace", str(ws), "--now", NOW]
    if not args.no_ccusage:
        _timed(CCUSAGE, env)  # downloads ccusage once; not timed
    imports, totals, ccusage = [], [], []
    for _ in range(args.runs):  # in turns, so both sides see the same moments of a noisy machine
        shutil.rmtree(ws, ignore_errors=True)
        took = _timed(importing, env, code)
        imports.append(took)
        totals.append(took + _timed(status, env, code))
        if not args.no_ccusage:
            ccusage.append(_timed(CCUSAGE, env))
    warm = min(_timed(status, env, code) for _ in range(args.runs))
    result = {
        "sessions": args.sessions,
        "files": len(files),
        "bytes": size,
        "import_s": min(imports),
        "import_status_s": min(totals),
        "warm_status_s": warm,
    }
    if ccusage:
        result["ccusage_s"] = min(ccusage)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
