"""Timing and memory of child processes: wall time and peak RSS of exactly one child."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_rss_mb: float


def run(args: list[str], env: dict | None = None) -> Run:
    """Run ``python args...`` with stdout discarded; its wall time and peak RSS (``wait4``)."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{args!r} failed: {child.stderr.read().decode(errors='replace')[-2000:]}")
    child.stderr.close()
    return Run(seconds, usage.ru_maxrss / 1024)


def best_run(args: list[str], times: int, before=None) -> Run:
    """The shortest wall time of ``times`` runs (``before()`` runs untimed ahead of each) and the largest peak RSS.

    The shortest, not the median: on a shared machine the noise only ever adds time.
    """
    runs = []
    for _ in range(times):
        if before is not None:
            before()
        runs.append(run(args))
    return Run(min(r.seconds for r in runs), max(r.peak_rss_mb for r in runs))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]
