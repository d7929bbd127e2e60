"""The Claude Code hook on a ~3 MB session that grew by one turn: whole process, as Claude Code runs it.

    python -m benchmarks.hook [--runs 9]

The real sample session of ``tests/data/samples`` (2.9 MB, with its two subagent files)
is placed in a fake ``~/.claude/projects``, cut before its last user prompt, and
imported by one hook. Each run then starts from a copy of that workspace, appends the
last turn to the session and times the installed ``orkas-tui hook claude-code`` (the
console script beside this interpreter, else ``python -m orkas_tui``; the hook's JSON on
stdin) as a child process from outside, then ``python -c pass``, the bare interpreter's
start, right after it: paired runs, so a loaded machine slows both alike. The figure is
the median of the pairs' ratios (target: 4x). The hook only spools and starts the import
detached: the time until that import has committed the turn (its process gone, found by
its command line in ``/proc``) is reported too. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orkas_tui
from benchmarks.workspace import cache_root

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "samples" / "claude-code" / "marot-spotter__8463c716"
SESSION = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def _last_prompt(lines: list[bytes]) -> int:
    """The index of the last line that is a person's prompt (a user record whose content is text)."""
    for index in range(len(lines) - 1, -1, -1):
        record = json.loads(lines[index])
        if record.get("type") == "user" and isinstance((record.get("message") or {}).get("content"), str):
            return index
    raise ValueError("no prompt in the sample")


def _timed(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0 or done.stdout or done.stderr:
        raise RuntimeError(f"{argv!r}: exit {done.returncode}, stdout {done.stdout[:200]!r}, stderr {done.stderr[-2000:]!r}")
    return seconds


def _drain_done(root: Path, since: float) -> float:
    """Seconds from ``since`` until the hook's detached import is done: ``hook-drain.lock`` no longer held
    (``/proc/locks``; the hook takes it before starting the import) and no ``hook --drain`` for ``root``
    running (it lets go of the lock before its last look at the spool)."""
    needle = f"\0--workspace\0{root}\0".encode()
    inode = str(os.stat(root / ".orkas" / "hook-drain.lock").st_ino)
    while True:
        with open("/proc/locks") as locks:
            held = any(len(f) > 5 and f[5].rsplit(":", 1)[-1] == inode for f in (x.split() for x in locks if "->" not in x))
        running = False
        for entry in os.scandir("/proc"):
            if not held and not running and entry.name.isdigit():
                try:
                    line = Path(entry.path, "cmdline").read_bytes()
                except OSError:
                    continue
                running = b"\0--drain\0" in line and needle in line
        if not held and not running:
            return time.perf_counter() - since
        time.sleep(0.002)


def hook_command() -> list[str]:
    """What the installed hooks run: the ``orkas-tui`` console script of this environment, else ``-m``."""
    script = Path(sys.executable).with_name("orkas-tui")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "orkas_tui"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hook", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    compileall.compile_dir(Path(orkas_tui.__file__).parent, quiet=1)  # as an installed wheel is (see benchmarks/__main__.py)
    base = cache_root() / "run" / "hook"
    shutil.rmtree(base, ignore_errors=True)
    home = base / "home"
    project = home / ".claude" / "projects" / "-home-bench"
    (project / SESSION / "subagents").mkdir(parents=True)
    for packed in sorted((SAMPLE / SESSION / "subagents").iterdir()):
        data = gzip.decompress(packed.read_bytes()) if packed.suffix == ".gz" else packed.read_bytes()
        (project / SESSION / "subagents" / packed.name.removesuffix(".gz")).write_bytes(data)
    lines = gzip.decompress((SAMPLE / f"{SESSION}.jsonl.gz").read_bytes()).splitlines(keepends=True)
    cut = _last_prompt(lines)
    session = project / f"{SESSION}.jsonl"
    session.write_bytes(b"".join(lines[:cut]))
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "ORKAS_HOME")} | {"HOME": str(home)}
    root = home / ".orkas"
    hook = [*hook_command(), "hook", "claude-code", "--agent", "claude"]
    payload = json.dumps({"session_id": SESSION, "transcript_path": str(session), "hook_event_name": "Stop"}).encode()
    _timed(hook, env, payload)  # the history so far, imported once
    _drain_done(root, 0.0)
    pristine = base / "pristine"
    shutil.copytree(root, pristine)
    grown, python, landed = [], [], []
    for _ in range(args.runs):
        shutil.rmtree(root)
        shutil.copytree(pristine, root)
        session.write_bytes(b"".join(lines[:cut]))
        with open(session, "ab") as out:
            out.writelines(lines[cut:])
        start = time.perf_counter()
        grown.append(_timed(hook, env, payload))
        landed.append(_drain_done(root, start))
        python.append(_timed([sys.executable, "-c", "pass"], env))
    log = (root / "agents" / "claude" / ".orkas" / "hooks.log").read_text().splitlines()
    last = json.loads(log[-1])
    if last.get("type") != "hook_imported" or not last.get("lines"):
        raise RuntimeError(f"the hook's import did not bring the new turn in: {last}")
    print(
        json.dumps(
            {
                "session_bytes": sum(map(len, lines)),
                "turn_bytes": sum(map(len, lines[cut:])),
                "turn_lines": len(lines) - cut,
                "command": "orkas-tui" if hook[0].endswith("orkas-tui") else "python -m orkas_tui",
                "hook_s": statistics.median(grown),
                "python_s": statistics.median(python),
                "ratio": statistics.median(h / p for h, p in zip(grown, python, strict=True)),
                "imported_s": statistics.median(landed),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
