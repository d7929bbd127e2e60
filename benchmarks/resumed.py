"""What skipping a resumed session's repeated records costs, on the 72-session history of ``claude_history``.

    python -m benchmarks.resumed [--sessions 72] [--mb 176] [--runs 5]

The history is imported once into a fresh workspace; then, best of ``--runs``, in one
process: reading every session's record keys from the import states (what a file read from
its start pays, once per import); an incremental import of one ~2.4 MB session that
grew by one turn (the hook's hot path: its own uuids only); and the first import of a
resumed file (that session's records copied with their uuids, then one new turn).
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
import uuid

from benchmarks.claude_history import ensure_history
from benchmarks.workspace import cache_root
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.importers.repeats import ImportedRecords
from orkas_tui.importers.run import import_files

IDS = re.compile(rb'"(uuid|parentUuid)":"[0-9a-f-]{36}"')


def one_turn(source: bytes, run: int) -> bytes:
    """A typed prompt and its answer: the session's first message records under new uuids, a year later (a record
    is known by its time and content, importers/repeats.py: else it would be a copy, not a new turn)."""
    lines = [line for line in source.splitlines(keepends=True) if b'"type":"user"' in line or b'"type":"assistant"' in line]
    turn = b"".join(lines[:12]).replace(b'"timestamp":"2026-', b'"timestamp":"2027-')
    return IDS.sub(lambda m: b'"%s":"%s"' % (m.group(1), str(uuid.uuid4()).encode()), turn)


def best(action, runs: int) -> float:
    times = []
    for n in range(runs):
        start = time.perf_counter()
        action(n)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.resumed", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=72)
    parser.add_argument("--mb", type=float, default=176)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    projects = ensure_history(args.sessions, args.mb) / ".claude" / "projects"
    root = cache_root() / "run" / "resumed-ws"
    shutil.rmtree(root, ignore_errors=True)
    (root / "agents" / "claude").mkdir(parents=True)
    workspace = Workspace(root)
    agent = workspace.agent("claude")
    start = time.perf_counter()
    import_files(agent, workspace.settings, "claude-code", sorted(projects.rglob("*.jsonl")), settle=0)
    full = time.perf_counter() - start
    imports = agent.private / "imports"
    uuids = len(ImportedRecords(imports).agent_wide())
    state_bytes = sum(p.stat().st_size for p in imports.glob("*.json"))
    session = sorted(projects.glob("*/*.jsonl"))[0]
    data = session.read_bytes()
    work = root.parent / "resumed-src"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    grown = work / session.name  # the same session (its state is keyed by its id), moved: it continues where it stopped

    shutil.copyfile(session, grown)

    def grow(n: int) -> None:
        with open(grown, "ab") as handle:
            handle.write(one_turn(data, n))
        import_files(agent, workspace.settings, "claude-code", [grown], settle=0)

    def resume(n: int) -> None:
        resumed = work / f"{uuid.uuid4()}.jsonl"
        resumed.write_bytes(data + one_turn(data, n))
        import_files(agent, workspace.settings, "claude-code", [resumed], settle=0)

    result = {
        "sessions": args.sessions,
        "uuids": uuids,
        "state_bytes": state_bytes,
        "session_bytes": len(data),
        "history_import_s": round(full, 3),
        "read_all_uuids_s": round(best(lambda n: ImportedRecords(imports).agent_wide(), args.runs), 4),
        "grown_by_one_turn_s": round(best(grow, args.runs), 4),
        "resumed_first_import_s": round(best(resume, args.runs), 4),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
