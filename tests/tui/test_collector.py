"""The app's collector: young generations on every tick, one full pass once things are quiet after a change."""

from __future__ import annotations

import gc

from orkas_tui.tui.collector import IDLE_S, Collector


def test_full_pass_only_when_idle_after_a_change_and_the_automatic_collector_restored() -> None:
    now = [100.0]
    generations: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            generations.append(info["generation"])

    collector = Collector(clock=lambda: now[0])
    was_enabled = gc.isenabled()
    gc.callbacks.append(seen)
    try:
        collector.start()
        assert not gc.isenabled()
        collector.tick()
        collector.changed()
        now[0] += IDLE_S / 2
        collector.tick()  # a change, but not quiet long enough
        now[0] += IDLE_S
        collector.tick()  # quiet: the full pass
        collector.tick()  # and only one
        assert generations == [1, 1, 2, 1]
    finally:
        gc.callbacks.remove(seen)
        collector.stop()
    assert gc.isenabled() == was_enabled
