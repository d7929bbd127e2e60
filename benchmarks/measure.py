"""Child processes measured from outside: wall time (``wait4``), and the peak RSS of a whole process tree."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


def run(args: list[str]) -> float:
    """Run ``python args...`` with stdout discarded; its wall time in seconds."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, _ = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    _check(child, status, args)
    return seconds


def best_run(args: list[str], times: int, before=None) -> float:
    """The shortest wall time of ``times`` runs (``before()`` runs untimed ahead of each).

    The shortest, not the median: on a shared machine the noise only ever adds time.
    """
    runs = []
    for _ in range(times):
        if before is not None:
            before()
        runs.append(run(args))
    return min(runs)


def best_runs(commands: dict[str, tuple[list[str], Callable[[], None] | None]], rounds: int) -> dict[str, float]:
    """:func:`best_run` of several commands taken in turns, one run of each per round, so a
    figure and its reference see the same moments of a noisy machine."""
    best = dict.fromkeys(commands, float("inf"))
    for _ in range(rounds):
        for name, (args, before) in commands.items():
            if before is not None:
                before()
            best[name] = min(best[name], run(args))
    return best


@dataclass(frozen=True)
class TreeRss:
    """Per-process peak RSS over a process and every descendant it had: how many, the largest, their sum."""

    processes: int
    largest_mb: float
    sum_mb: float


def tree_peak_rss(args: list[str], interval: float = 0.005) -> TreeRss:
    """Run ``python args...`` once, untimed, and the peak RSS of each process of its tree.

    ``ru_maxrss`` from ``wait4`` is the peak of the largest single process of the
    tree (Linux folds in the reaped descendants'), not of the tree. While the child
    runs, a thread lists the child and its descendants every ``interval`` seconds
    (parent pids from ``/proc/*/stat``) and keeps, per pid, the last ``VmHWM`` read
    from ``/proc/<pid>/status`` (that process's peak so far). The sum of the peaks
    is an upper bound of what the tree held at once: the peaks need not coincide,
    and a forked child's count includes the pages it still shares with its parent.
    Sampling costs CPU, hence a run of its own, not one of the timed runs.
    """
    child = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks_kb: dict[int, int] = {}
    stop = threading.Event()

    def sample() -> None:
        while True:
            for pid in _descendants(child.pid):
                hwm = _vm_hwm_kb(pid)
                if hwm is not None:
                    peaks_kb[pid] = hwm
            if stop.wait(interval):
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, _ = os.wait4(child.pid, 0)
    stop.set()
    sampler.join()
    _check(child, status, args)
    return TreeRss(len(peaks_kb), max(peaks_kb.values()) / 1024, sum(peaks_kb.values()) / 1024)


def _descendants(root: int) -> list[int]:
    """``root`` and the processes below it, from the parent pid of every process in ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:  # gone since the listing
                continue
            ppid = int(stat[stat.rindex(b")") + 2 :].split(maxsplit=2)[1])  # after "pid (comm)": state, ppid
            children.setdefault(ppid, []).append(int(entry.name))
    tree = [root]
    for pid in tree:
        tree.extend(children.get(pid, ()))
    return tree


def _vm_hwm_kb(pid: int) -> int | None:
    """``VmHWM`` of ``pid`` in kB; ``None`` once it has exited (a zombie has no memory lines)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _check(child: subprocess.Popen, status: int, args: list[str]) -> None:
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{args!r} failed: {child.stderr.read().decode(errors='replace')[-2000:]}")
    child.stderr.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]
